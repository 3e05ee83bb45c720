package io.bull4j.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a real Redis that can lose a reply: armed with a byte string (a script's SHA, say), the
 * first connection whose client sends it stops passing Redis's replies back from that moment on (the command
 * still reaches Redis and runs); {@link #cut()} then resets that connection. The client has sent a command that
 * Redis applied and never gets the answer: the "outcome unknown" case, made deterministic, since the test sees in
 * Redis that the command ran before it cuts. Or {@link #release()} delivers the replies held back, late: the test
 * acts between a command and the client's reading of its answer. Every other connection, and every connection
 * made after, passes bytes both ways untouched.
 *
 * <p>It also stands for a name that a failover moves, as a cloud provider's primary endpoint in DNS: after
 * {@link #pointTo(int)} new connections reach another server, and the open ones stay with the old one.
 */
public final class ReplyCuttingProxy implements AutoCloseable {
    private final String upstreamHost;
    private volatile int upstreamPort;
    private final ServerSocket server;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private volatile byte[] trigger;
    private volatile Link held;

    /** One client connection and its connection to Redis. */
    private final class Link {
        final Socket client;
        final Socket upstream;
        volatile boolean holding;
        /** The replies held back, for {@link #release()}; guarded by the link. */
        final java.io.ByteArrayOutputStream kept = new java.io.ByteArrayOutputStream();

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void close() {
            try {
                client.setSoLinger(true, 0); // a reset, as when a connection is killed
            } catch (IOException ignored) {
                // already closed
            }
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }

    public ReplyCuttingProxy(String upstreamHost, int upstreamPort) throws IOException {
        this.upstreamHost = upstreamHost;
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Connections made from now on go to {@code port} on the same host; the open ones stay where they are. */
    public void pointTo(int port) {
        upstreamPort = port;
    }

    /** The first connection whose client sends {@code bytes} from now on holds back every reply after them. */
    public void armOn(String bytes) {
        held = null;
        trigger = bytes.getBytes(StandardCharsets.US_ASCII);
    }

    /** Whether a connection has sent the trigger (and holds its replies back). */
    public boolean triggered() {
        return held != null;
    }

    /** Delivers the replies held back so far, in order, and passes the later ones on as they come. */
    public void release() throws IOException {
        Link link = held;
        if (link == null) {
            throw new IllegalStateException("no connection has sent the trigger");
        }
        synchronized (link) {
            OutputStream out = link.client.getOutputStream();
            out.write(link.kept.toByteArray());
            out.flush();
            link.kept.reset();
            link.holding = false;
        }
    }

    /** Resets the connection that sent the trigger; the replies it held back are never delivered. */
    public void cut() {
        Link link = held;
        if (link == null) {
            throw new IllegalStateException("no connection has sent the trigger");
        }
        link.close();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(upstreamHost, upstreamPort);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                Link link = new Link(client, upstream);
                links.add(link);
                pump("proxy-up", link, client, upstream, true);
                pump("proxy-down", link, upstream, client, false);
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    private void pump(String name, Link link, Socket from, Socket to, boolean toRedis) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            byte[] tail = new byte[0]; // the end of the last read, so a trigger split over two reads is seen
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) > 0; ) {
                    if (toRedis) {
                        byte[] armed = trigger;
                        if (armed != null) {
                            byte[] seen = concat(tail, buf, n);
                            if (indexOf(seen, armed) >= 0) {
                                synchronized (this) {
                                    if (trigger == armed) { // only the first connection that sends it
                                        trigger = null;
                                        link.holding = true; // before the command can reach Redis
                                        held = link;
                                    }
                                }
                            }
                            tail = Arrays.copyOfRange(seen, Math.max(0, seen.length - armed.length), seen.length);
                        }
                    } else if (link.holding) {
                        synchronized (link) {
                            if (link.holding) { // a reply to the trigger, or to what came after it: held back
                                link.kept.write(buf, 0, n);
                                continue;
                            }
                        }
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: close the other
            } finally {
                link.close();
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }

    private static byte[] concat(byte[] a, byte[] b, int n) {
        byte[] out = Arrays.copyOf(a, a.length + n);
        System.arraycopy(b, 0, out, a.length, n);
        return out;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closeQuietly2(server);
        links.forEach(Link::close);
    }

    private static void closeQuietly2(ServerSocket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
