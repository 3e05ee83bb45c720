package io.bull4j.internal.redis;

import io.bull4j.ConnectionOptions;
import io.bull4j.RedisException;
import io.bull4j.ValidationException;
import io.bull4j.internal.script.ScriptRunner;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.resource.ClientResources;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The connection layer: one Lettuce client, one shared multiplexed connection for ordinary commands, and
 * dedicated connections for blocking commands. All Lettuce clients and connections are built here.
 * Code above it sees only {@link RedisClusterAsyncCommands}, which standalone and Cluster connections share.
 */
public final class RedisLink implements AutoCloseable {
    /** How often a Cluster client we create re-reads the slot map, besides the refreshes that redirects trigger. */
    static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(30);
    /** The longest close() waits for the connections, then for the client's threads. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(2);
    /** The least time between two drops of the connections for READONLY replies. */
    static final Duration READ_ONLY_GAP = Duration.ofSeconds(1);
    /** The least time between two WARNs about them (a link pointed at a replica by mistake would repeat it). */
    static final Duration READ_ONLY_WARN_GAP = Duration.ofMinutes(1);
    /** The longest scripts are held back while a Sentinel promotes a replica, if its switch is never heard of. */
    static final Duration HOLD_MAX = Duration.ofSeconds(10);
    private static final Logger log = LoggerFactory.getLogger(RedisLink.class);

    private final AbstractRedisClient client;
    private final boolean ownsClient;
    /** Resources bull4j made for its own client (they carry the reconnect delay); null on a caller's client. */
    private final ClientResources ownResources;
    private final Duration commandTimeout;
    private final StatefulConnection<String, String> shared;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final ScriptRunner scripts;
    private final String serverVersion;
    private final String serverId;
    private final List<DedicatedConnection> dedicated = new CopyOnWriteArrayList<>();
    /** The Sentinels' failover announcements, on a Sentinel URI of our own; null otherwise. */
    private final SentinelWatch sentinelWatch;
    private volatile boolean closed;
    /** On a Lettuce before 6.7, fails the calls in flight on a connection of ours that breaks; null otherwise. */
    private final InFlightOnDisconnect inFlightOnDisconnect;
    /** When the connections were last dropped for a READONLY reply (see {@link #reconnectAfterReadOnly()}). */
    private final java.util.concurrent.atomic.AtomicLong readOnlyDropAt =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - READ_ONLY_GAP.toNanos());
    /** Whether a PING is checking the shared connection after a call timed out. */
    private final java.util.concurrent.atomic.AtomicBoolean probing = new java.util.concurrent.atomic.AtomicBoolean();
    /** Until when (nanoTime) scripts are held back during a Sentinel failover; 0 when they are not. */
    private volatile long holdUntil;
    /** The last switch of the primary a Sentinel announced, and when. */
    private volatile String lastSwitch = "";
    private volatile long switchAt = System.nanoTime() - READ_ONLY_GAP.toNanos();
    /** When a drop for READONLY was last logged at WARN. */
    private volatile long readOnlyWarnAt = System.nanoTime() - READ_ONLY_WARN_GAP.toNanos();
    /** Whether this link gave its client and resources back: once, whichever close or failure comes first. */
    private final java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();

    private RedisLink(AbstractRedisClient client, ClientResources ownResources, Duration commandTimeout) {
        this(client, ownResources, commandTimeout, null);
    }

    /** {@code sentinelUri}: the URI of a client of our own, watched for failovers when it names Sentinels. */
    private RedisLink(AbstractRedisClient client, ClientResources ownResources, Duration commandTimeout,
                      RedisURI sentinelUri) {
        this.client = client;
        this.ownsClient = ownResources != null;
        this.ownResources = ownResources;
        this.commandTimeout = commandTimeout;
        this.inFlightOnDisconnect = InFlightOnDisconnect.register(client, this::isOwnConnection);
        try {
            this.shared = connect();
        } catch (RuntimeException e) {
            InFlightOnDisconnect.remove(client, inFlightOnDisconnect);
            shutdownOwnClient();
            throw Await.translate(e, "connect");
        }
        this.commands = asyncOf(shared);
        warnIfCutShort();
        ServerClock serverClock;
        try {
            serverClock = new ServerClock(commands, commandTimeout);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.scripts = new ScriptRunner(commands, commandTimeout, serverClock, this::reconnectAfterReadOnly,
                this::probeAfterTimeout, this::writesHeld);
        String info;
        try {
            // refused (an ACL without +info) or failed, the connection and client are closed, not left reconnecting
            info = Await.result(commands.info("server"), commandTimeout, "INFO");
            RedisVersion.requireSupported(RedisVersion.parse(info));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.serverVersion = RedisVersion.parse(info);
        this.sentinelWatch = sentinelUri == null ? null
                : SentinelWatch.start((RedisClient) client, sentinelUri, commandTimeout, new FailoverSteps());
        String runId = EvictionPolicyCheck.field(info, "run_id");
        this.serverId = runId != null ? runId : "link@" + System.identityHashCode(this);
    }


    /**
     * For every client of our own: commands are rejected while disconnected, so that nothing is queued to run
     * after a reconnect when its caller has been told it failed (Lettuce's default buffers and re-sends them); with
     * it, Lettuce also fails the commands in flight when a connection breaks instead of re-sending them.
     */
    private static final ClientOptions.DisconnectedBehavior WHILE_DISCONNECTED =
            ClientOptions.DisconnectedBehavior.REJECT_COMMANDS;

    /** Opens a client of our own from a URI; it is shut down by {@link #close()}. */
    public static RedisLink open(String uri, Duration commandTimeout) {
        return open(uri, commandTimeout, ConnectionOptions.DEFAULT_RECONNECT_DELAY_MIN,
                ConnectionOptions.DEFAULT_RECONNECT_DELAY_MAX);
    }

    /** As {@link #open(String, Duration)}, with the reconnect backoff's bounds. */
    public static RedisLink open(String uri, Duration commandTimeout, Duration reconnectMin, Duration reconnectMax) {
        RedisURI redisUri = RedisUris.parse("uri", uri);
        redisUri.setTimeout(commandTimeout); // bounds a connect's handshake (HELLO, AUTH), 60 s by default
        for (RedisURI sentinel : redisUri.getSentinels()) {
            sentinel.setTimeout(commandTimeout); // the failover watch's handshakes with each Sentinel, likewise
        }
        ClientResources resources = SharedResources.acquire(reconnectMin, reconnectMax);
        RedisClient client;
        try {
            client = RedisClient.create(resources, redisUri);
            client.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .disconnectedBehavior(WHILE_DISCONNECTED)
                    // bull4j bounds every wait itself (Await), so blocking commands are not cut short by Lettuce
                    .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
                    .socketOptions(socketOptions(commandTimeout))
                    .build());
        } catch (RuntimeException e) {
            SharedResources.release(resources, CLOSE_WAIT);
            throw e;
        }
        return new RedisLink(client, resources, commandTimeout, redisUri);
    }

    /**
     * A connect bounded by the command timeout, and a connection whose peer vanished without a reset (a host gone,
     * a NAT or load balancer that dropped the flow) found dead and reconnected: TCP keepalive probes an idle one
     * after 15 s (every 5 s, 3 times), and on Linux with Netty's epoll or io_uring transport TCP_USER_TIMEOUT closes
     * one whose writes go unacknowledged for twice the command timeout (at least 10 s). Without them, the kernel
     * gives such a connection up only after about 15 minutes of retransmissions, and every call on it times out.
     */
    static SocketOptions socketOptions(Duration commandTimeout) {
        Duration unacknowledged = commandTimeout.multipliedBy(2).compareTo(Duration.ofSeconds(10)) < 0
                ? Duration.ofSeconds(10) : commandTimeout.multipliedBy(2);
        SocketOptions.Builder b = SocketOptions.builder()
                .connectTimeout(commandTimeout)
                .keepAlive(SocketOptions.KeepAliveOptions.builder().enable().idle(Duration.ofSeconds(15))
                        .interval(Duration.ofSeconds(5)).count(3).build());
        if (io.lettuce.core.resource.EpollProvider.isAvailable()
                || io.lettuce.core.resource.IOUringProvider.isAvailable()) {
            // Lettuce refuses the connect when it is asked for without a native transport
            b.tcpUserTimeout(SocketOptions.TcpUserTimeoutOptions.builder().enable().tcpUserTimeout(unacknowledged)
                    .build());
        }
        return b.build();
    }

    /**
     * Opens a Redis Cluster client of our own from one or more seed nodes (the rest are discovered); it is shut
     * down by {@link #close()}. The topology is refreshed periodically and on MOVED/ASK redirects,
     * so slots that move after a failover or resharding are followed.
     */
    public static RedisLink openCluster(List<String> seedUris, Duration commandTimeout) {
        return openCluster(seedUris, commandTimeout, ConnectionOptions.DEFAULT_RECONNECT_DELAY_MIN,
                ConnectionOptions.DEFAULT_RECONNECT_DELAY_MAX);
    }

    /** As {@link #openCluster(List, Duration)}, with the reconnect backoff's bounds. */
    public static RedisLink openCluster(List<String> seedUris, Duration commandTimeout, Duration reconnectMin,
                                        Duration reconnectMax) {
        ValidationException.check(seedUris != null && !seedUris.isEmpty(), "seedUris",
                "must name at least one node");
        List<RedisURI> uris = new ArrayList<>(seedUris.size());
        for (String uri : seedUris) {
            ValidationException.check(uri != null && !uri.isBlank(), "seedUris", "must not hold blanks");
            RedisURI parsed = RedisUris.parse("seedUris", uri);
            parsed.setTimeout(commandTimeout); // bounds a connect's handshake, as for one server
            uris.add(parsed);
        }
        ClientResources resources = SharedResources.acquire(reconnectMin, reconnectMax);
        RedisClusterClient client;
        try {
            client = RedisClusterClient.create(resources, uris);
            client.setOptions(clusterOptions(commandTimeout));
        } catch (RuntimeException e) {
            SharedResources.release(resources, CLOSE_WAIT); // e.g. seed URIs Lettuce refuses together
            throw e;
        }
        return new RedisLink(client, resources, commandTimeout);
    }

    private static ClusterClientOptions clusterOptions(Duration commandTimeout) {
        return ClusterClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(WHILE_DISCONNECTED)
                .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
                .socketOptions(socketOptions(commandTimeout))
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                        // redirects only: Lettuce 7 reopens node connections on the reconnect triggers, and commands
                        // sent meanwhile are rejected (REJECT_COMMANDS); a reconnect is followed by the next redirect
                        .enableAdaptiveRefreshTrigger(ClusterTopologyRefreshOptions.RefreshTrigger.MOVED_REDIRECT,
                                ClusterTopologyRefreshOptions.RefreshTrigger.ASK_REDIRECT)
                        .build())
                .build();
    }

    /** Uses a client the caller owns: bull4j closes the connections it opens on it, never the client. */
    public static RedisLink using(RedisClient client, Duration commandTimeout) {
        warnIfReplaying(Objects.requireNonNull(client, "client").getOptions());
        return new RedisLink(client, null, commandTimeout);
    }

    public static RedisLink using(RedisClusterClient client, Duration commandTimeout) {
        warnIfReplaying(Objects.requireNonNull(client, "client").getOptions());
        return new RedisLink(client, null, commandTimeout);
    }

    /**
     * A client that reconnects and does not reject commands while disconnected sends again, after the reconnect,
     * the commands it had in flight when the connection broke: an add without a jobId may then be applied twice.
     * bull4j's own clients reject them instead; a client the caller owns keeps its options, so say so once.
     */
    private static void warnIfReplaying(ClientOptions options) {
        if (options.isAutoReconnect() && options.getDisconnectedBehavior() != WHILE_DISCONNECTED) {
            log.warn("the Lettuce client given to bull4j reconnects without disconnectedBehavior(REJECT_COMMANDS): "
                    + "commands in flight when a connection breaks are sent again after the reconnect, so an add "
                    + "without a jobId may be applied twice. Set ClientOptions.disconnectedBehavior("
                    + "REJECT_COMMANDS), as Bull4jConnection.create does");
        }
    }

    /**
     * A client of the caller's that times commands out itself (Lettuce's default, at the RedisURI's timeout) ends
     * calls, blocking waits included, at that timeout: below bull4j's own bound, calls fail early, and idle workers
     * and readers report errors. Said once, when its first connection shows the timeout.
     */
    private void warnIfCutShort() {
        if (!ownsClient && client.getOptions().getTimeoutOptions().isTimeoutCommands()
                && shared.getTimeout().compareTo(commandTimeout) <= 0) {
            log.warn("the Lettuce client given to bull4j times commands out after {}, at or below bull4j's command "
                    + "timeout ({}): calls fail early, and blocking waits (drainDelay, blockTimeout) longer than it "
                    + "are cut. Set a longer RedisURI timeout, or TimeoutOptions.builder().timeoutCommands(false) "
                    + "as Bull4jConnection.create does", shared.getTimeout(), commandTimeout);
        }
    }

    private StatefulConnection<String, String> connect() {
        if (client instanceof RedisClusterClient) {
            StatefulRedisClusterConnection<String, String> cluster =
                    ((RedisClusterClient) client).connect(Utf8Codec.INSTANCE);
            try {
                openMasterConnections(cluster);
            } catch (RuntimeException e) {
                cluster.closeAsync();
                throw e;
            }
            return cluster;
        }
        return ((RedisClient) client).connect(Utf8Codec.INSTANCE);
    }

    /**
     * Opens the connection to every master before the first command. Lettuce 7 opens a node's connection on first
     * use, and with REJECT_COMMANDS it refuses the commands sent while that connection is still being opened. A
     * master marked failed is skipped, and one that cannot be reached is logged and left to first use: the queues
     * in the other masters' slots work meanwhile, and the calls to its slots fail as not applied until it is back.
     */
    private static void openMasterConnections(StatefulRedisClusterConnection<String, String> cluster) {
        for (RedisClusterNode node : cluster.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)
                    && !node.is(RedisClusterNode.NodeFlag.EVENTUAL_FAIL)) {
                try {
                    // by host and port: the key under which slot routing looks the connection up
                    cluster.getConnection(node.getUri().getHost(), node.getUri().getPort());
                } catch (RuntimeException e) {
                    log.warn("Redis Cluster master {}:{} cannot be reached now; calls to its slots fail until it "
                            + "can", node.getUri().getHost(), node.getUri().getPort(), e);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    static RedisClusterAsyncCommands<String, String> asyncOf(StatefulConnection<String, String> connection) {
        if (connection instanceof StatefulRedisClusterConnection) {
            return ((StatefulRedisClusterConnection<String, String>) connection).async();
        }
        return ((StatefulRedisConnection<String, String>) connection).async();
    }

    public RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    /**
     * A timer for short, non-blocking tasks (Lettuce's computation threads, not its I/O threads), precise to
     * about a millisecond.
     */
    public java.util.concurrent.ScheduledExecutorService timer() {
        return client.getResources().eventExecutorGroup();
    }

    public ScriptRunner scripts() {
        return scripts;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    public String serverVersion() {
        return serverVersion;
    }

    /** The server's run_id (a link-unique id if INFO has none): what identifies a server across connections. */
    String serverId() {
        return serverId;
    }

    /**
     * Warns once per server when its maxmemory-policy is not noeviction (see {@link EvictionPolicyCheck}). Never
     * throws.
     */
    public void checkEvictionPolicy() {
        EvictionPolicyCheck.run(this);
    }

    /**
     * The server's {@code maxmemory-policy}, read now from {@code INFO memory} (one round trip), or null when the
     * server does not report it. Throws as any command does when Redis cannot be reached.
     */
    public String maxmemoryPolicy() {
        return EvictionPolicyCheck.field(Await.result(commands.info("memory"), commandTimeout, "INFO memory"),
                "maxmemory_policy");
    }

    /** {@return whether this link was closed} */
    public boolean isClosed() {
        return closed;
    }

    public boolean isCluster() {
        return client instanceof RedisClusterClient;
    }

    /** A connection of its own, for a blocking command that must not hold up the shared one. */
    public DedicatedConnection openDedicated(String clientName) {
        if (closed) {
            throw new RedisException("connection is closed", null, false);
        }
        StatefulConnection<String, String> connection;
        try {
            connection = connect();
        } catch (RuntimeException e) {
            throw Await.translate(e, "connect");
        }
        DedicatedConnection d = new DedicatedConnection(this, connection, asyncOf(connection));
        dedicated.add(d);
        if (closed) { // the link closed while this one was being opened: its close did not see it
            d.close();
            throw new RedisException("connection is closed", null, false);
        }
        if (clientName != null) {
            name(connection, d.commands(), clientName);
        }
        return d;
    }

    /**
     * Best effort, never awaited: the name only serves listings (BullMQ's getWorkers, CLIENT LIST). On a standalone
     * connection Lettuce's own setter also records the name, so its reconnect handshake names the new socket too;
     * the CLIENT SETNAME command alone would be forgotten on reconnect. On a Cluster, Lettuce sends the command to
     * every node connection; after a reconnect those stay unnamed (Lettuce has no per-connection name there).
     */
    private static void name(StatefulConnection<String, String> connection,
                             RedisClusterAsyncCommands<String, String> commands, String clientName) {
        try {
            if (connection instanceof StatefulRedisConnectionImpl) {
                ((StatefulRedisConnectionImpl<String, String>) connection).setClientName(clientName);
            } else {
                commands.clientSetname(clientName);
            }
        } catch (RuntimeException ignored) {
            // a connection without a name works all the same
        }
    }

    /**
     * A write refused with READONLY: the server at the other end is a replica now. After a failover, Sentinel and
     * DNS names (a cloud provider's primary endpoint) lead to the new primary, but open connections stay with the
     * old one, and Lettuce does not reconnect on an error reply: every write would be refused until a restart. So
     * every connection of this link is dropped (at most once a second), and Lettuce's reconnect asks Sentinel, or
     * looks the name up, again. Not on a Cluster, whose replicas answer MOVED and whose slot map follows failovers,
     * nor on a caller's client that does not reconnect. Calls in flight on the dropped connections fail as not
     * applied, or as unknown when they were sent (the same outcomes as a connection reset).
     */
    void reconnectAfterReadOnly() {
        if (closed || isCluster() || !client.getOptions().isAutoReconnect()) {
            return;
        }
        long now = System.nanoTime();
        long last = readOnlyDropAt.get();
        if (now - last < READ_ONLY_GAP.toNanos() || !readOnlyDropAt.compareAndSet(last, now)) {
            return;
        }
        if (sentinelWatch != null && now - switchAt < READ_ONLY_GAP.toNanos()) {
            return; // the switch was announced, and the connections dropped, a moment ago
        }
        if (now - readOnlyWarnAt >= READ_ONLY_WARN_GAP.toNanos()) {
            readOnlyWarnAt = now;
            log.warn("Redis answered READONLY: the server bull4j is connected to is a replica (after a failover, "
                    + "or a URI that names a replica); reconnecting, so that Sentinel or DNS gives the primary "
                    + "(repeats within {} are logged at DEBUG)", READ_ONLY_WARN_GAP);
        } else {
            log.debug("Redis answered READONLY again; reconnecting");
        }
        dropConnections();
    }

    /**
     * A call on the shared connection got no answer within its bound. Redis may be slow; or the connection is dead
     * without a reset (a peer gone, a flow dropped by a NAT, a firewall or a load balancer, a partition): the socket
     * stays open, every call on it times out, and on Netty's NIO transport the kernel gives up only after about 15
     * minutes. So a PING on the same connection probes it, one at a time, and when that gets no answer within the
     * command timeout either, the connection is dropped and Lettuce reconnects. The PING waits behind what the
     * connection sent before it: while a call of a longer budget is in flight (a big flow's single script) no probe
     * is made; CLIENT PAUSE WRITE does not hold a PING; a command that keeps Redis from answering for longer than
     * the command timeout (another client's KEYS over millions of keys) costs a reconnect. Not on a
     * Cluster (Lettuce's connection there is one per node, behind the cluster connection) nor on a caller's client
     * that does not reconnect.
     */
    public void probeAfterTimeout() {
        if (closed || isCluster() || !client.getOptions().isAutoReconnect() || scripts.longCallInFlight()
                || !probing.compareAndSet(false, true)) {
            return; // a long call (a big flow's script) keeps the connection's later replies back: no probe then
        }
        CompletableFuture<String> pong;
        try {
            pong = Await.within(commands.ping(), commandTimeout, "PING");
        } catch (RuntimeException e) {
            probing.set(false); // not sent (disconnected): Lettuce is reconnecting already
            return;
        }
        pong.whenComplete((reply, error) -> {
            try {
                if (error instanceof RedisException && ((RedisException) error).isTimeout() && !closed) {
                    log.warn("no answer from Redis within {} on a connection, to a call and then to a PING: dropping "
                            + "the connection so that Lettuce reconnects (a peer gone without a reset, a dropped "
                            + "network flow, or a Redis that does not answer)", commandTimeout);
                    disconnect(shared);
                }
            } finally {
                probing.set(false);
            }
        });
    }

    /** A call's refusal: a READONLY reply leads to a reconnect (see {@link #reconnectAfterReadOnly()}). */
    public void noticeRefusal(Throwable error) {
        if (Await.isReadOnlyReply(error)) {
            reconnectAfterReadOnly();
        }
    }

    /**
     * Whether scripts are held back: a Sentinel is promoting a replica, and what the old primary takes from now on
     * would be lost with its resync. Until the switch is announced, the failover is given up, or at the latest
     * {@link #HOLD_MAX} (an announcement missed).
     */
    boolean writesHeld() {
        long until = holdUntil;
        return until != 0 && System.nanoTime() - until < 0;
    }

    /** What a failover behind Sentinel does to this link (see {@link SentinelWatch}); on Lettuce's I/O threads. */
    private final class FailoverSteps implements SentinelWatch.Steps {
        @Override
        public void promoting(String announcement) {
            if (!closed) {
                holdUntil = System.nanoTime() + HOLD_MAX.toNanos();
                log.info("Sentinel is promoting a replica ({}): scripts are refused, not applied, until the new "
                        + "primary is announced", announcement);
            }
        }

        @Override
        public void switched(String announcement) {
            synchronized (RedisLink.this) {
                if (closed || announcement.equals(lastSwitch)) {
                    return; // every Sentinel announces it
                }
                lastSwitch = announcement;
                switchAt = System.nanoTime();
                log.info("Sentinel switched the primary ({}); reconnecting to the new one", announcement);
                dropConnections();
                holdUntil = 0; // the reconnect asks Sentinel, which names the new primary now
            }
        }

        @Override
        public void aborted(String announcement) {
            holdUntil = 0;
            log.info("Sentinel gave the promotion up ({}); the primary stays", announcement);
        }
    }

    private void dropConnections() {
        disconnect(shared);
        for (DedicatedConnection d : dedicated) {
            disconnect(d.connection());
        }
    }

    /** Closes the socket only: Lettuce's watchdog then reconnects the same connection object. */
    private static void disconnect(StatefulConnection<String, String> connection) {
        if (!(connection instanceof io.lettuce.core.RedisChannelHandler)) {
            return;
        }
        Object writer = ((io.lettuce.core.RedisChannelHandler<?, ?>) connection).getChannelWriter();
        for (int depth = 0; writer != null && !(writer instanceof io.lettuce.core.protocol.DefaultEndpoint)
                && depth < 8; depth++) {
            writer = delegateOf(writer);
        }
        if (writer instanceof io.lettuce.core.protocol.DefaultEndpoint) {
            ((io.lettuce.core.protocol.DefaultEndpoint) writer).disconnect();
        } else {
            log.debug("cannot drop a connection whose writer is {}", writer);
        }
    }

    /**
     * The writer a Lettuce channel writer wraps (its command-expiry or listener writer), through its public
     * {@code getDelegate()}; null when it wraps none. Found by reflection: Lettuce 7 declares that method in its
     * {@code io.lettuce.core.Delegating} interface, which Lettuce 6 (the version Spring Boot 4.0's dependency
     * management gives an application) does not have, so naming that interface here failed with
     * NoClassDefFoundError there, on the thread that was reconnecting (a worker's fetch loop, which died).
     */
    private static Object delegateOf(Object writer) {
        try {
            java.lang.reflect.Method getDelegate = writer.getClass().getMethod("getDelegate");
            return io.lettuce.core.RedisChannelWriter.class.isAssignableFrom(getDelegate.getReturnType())
                    || getDelegate.getReturnType() == Object.class ? getDelegate.invoke(writer) : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Whether a connection Lettuce reports is one this link opened: the shared one, a dedicated one, or on a Cluster
     * client of our own any node connection (those sit behind the cluster connections, which report nothing).
     */
    private boolean isOwnConnection(io.lettuce.core.RedisChannelHandler<?, ?> connection) {
        if (closed) {
            return false;
        }
        if (connection == shared) {
            return true;
        }
        for (DedicatedConnection d : dedicated) {
            if (d.connection() == connection) {
                return true;
            }
        }
        return ownsClient && isCluster();
    }

    void forget(DedicatedConnection d) {
        dedicated.remove(d);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        // a close on an interrupted thread still waits for its connections and releases the client's threads
        boolean interrupted = Thread.interrupted();
        try {
            closeConnections();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void closeConnections() {
        // every connection is closed once, and the client shut down only after they are: its shutdown closes
        // the connections it still tracks, and closing one twice makes Lettuce log a warning
        List<CompletableFuture<Void>> closing = new ArrayList<>();
        for (DedicatedConnection d : dedicated) {
            closing.add(d.closeAsync());
        }
        closing.add(shared.closeAsync());
        if (sentinelWatch != null) {
            closing.addAll(sentinelWatch.closeAsync());
        }
        try {
            CompletableFuture.allOf(closing.toArray(new CompletableFuture[0])).get(CLOSE_WAIT.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("connections not closed within {}; the client shutdown closes them", CLOSE_WAIT, e);
        }
        InFlightOnDisconnect.remove(client, inFlightOnDisconnect); // a caller's client outlives this link
        shutdownOwnClient();
    }

    /**
     * Shuts the client and its threads down; never throws (Lettuce throws its own exception for a shutdown that is
     * interrupted or fails), and the threads go in any case.
     */
    private void shutdownOwnClient() {
        if (ownsClient && released.compareAndSet(false, true)) { // a second release would take another link's share
            try {
                client.shutdown(Duration.ZERO, CLOSE_WAIT);
            } catch (RuntimeException e) {
                log.debug("Redis client shutdown did not complete", e);
            } finally {
                SharedResources.release(ownResources, CLOSE_WAIT);
            }
        }
    }
}
