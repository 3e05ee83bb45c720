package io.bull4j.examples;

import io.lettuce.core.RedisURI;
import redis.embedded.RedisServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Finds a Redis for the examples: {@code REDIS_URL}, else {@code redis://localhost:6379}, if it answers within
 * about a second; otherwise it starts the redis-server binary shipped in the {@code embedded-redis} jar on a free
 * port, and says why ({@link #whyEmbedded()}). {@code BULL4J_DEMO_EMBEDDED=1} (environment variable or {@code -D} system property) forces the embedded
 * server. Close it to stop that server. Example plumbing only: an application just passes its Redis URI to
 * {@link io.bull4j.Bull4jConnection#create(String)}.
 */
public final class ExampleRedis implements AutoCloseable {
    private static final String HOST = "127.0.0.1";

    private final String uri;
    private final RedisServer embedded;   // null when an existing Redis is used
    private final String whyEmbedded;     // null when an existing Redis is used

    private ExampleRedis(String uri, RedisServer embedded, String whyEmbedded) {
        this.uri = uri;
        this.embedded = embedded;
        this.whyEmbedded = whyEmbedded;
    }

    /** An existing Redis if one answers, else a new embedded one. */
    public static ExampleRedis start() {
        return start(System.getenv());
    }

    /** As {@link #start()}, reading {@code REDIS_URL} and {@code BULL4J_DEMO_EMBEDDED} from {@code env}. */
    public static ExampleRedis start(Map<String, String> env) {
        String given = env.getOrDefault("REDIS_URL", "");
        String wanted = given.isBlank() ? "redis://localhost:6379" : given;
        if (forceEmbedded(env)) {
            return startEmbedded("BULL4J_DEMO_EMBEDDED is set");
        }
        RedisURI parsed;
        try {
            parsed = RedisURI.create(wanted);
        } catch (IllegalArgumentException e) {
            return startEmbedded("REDIS_URL=" + given + " is not a Redis URI (" + e.getMessage() + ")");
        }
        // why trust TLS URIs: a plain-text PING cannot probe them
        if (parsed.isSsl() || answers(parsed.getHost(), parsed.getPort())) {
            return new ExampleRedis(wanted, null, null);
        }
        String where = parsed.getHost() + ":" + parsed.getPort();
        return startEmbedded(given.isBlank()
                ? "REDIS_URL is unset and no Redis answers at " + where
                : "REDIS_URL points at " + where + ", where no Redis answers");
    }

    public String uri() {
        return uri;
    }

    /** True when this started its own redis-server. */
    public boolean isEmbedded() {
        return embedded != null;
    }

    /** Why the embedded server was started (e.g. "REDIS_URL is unset and no Redis answers at ..."), or null. */
    public String whyEmbedded() {
        return whyEmbedded;
    }

    /** A one-line description for the examples' output. */
    public String describe() {
        return isEmbedded()
                ? "embedded redis-server at " + uri + " (started for this run: " + whyEmbedded + ")"
                : "Redis at " + redacted(uri);
    }

    /** The URI without its password, for output. */
    private static String redacted(String uri) {
        return uri.replaceFirst("//([^:@/]*):[^@/]*@", "//$1:***@");
    }

    @Override
    public void close() {
        if (embedded != null) {
            try {
                embedded.stop();
            } catch (IOException e) {
                throw new UncheckedIOException("could not stop the embedded redis-server", e);
            }
        }
    }

    private static boolean forceEmbedded(Map<String, String> env) {
        String v = System.getProperty("BULL4J_DEMO_EMBEDDED", env.get("BULL4J_DEMO_EMBEDDED"));
        return v != null && (v.equals("1") || v.equalsIgnoreCase("true"));
    }

    private static ExampleRedis startEmbedded(String why) {
        int port = freePort();
        try {
            RedisServer server = RedisServer.newRedisServer()
                    .bind(HOST)
                    .port(port)
                    .setting("save \"\"")          // why: a throwaway server, nothing to persist
                    .setting("appendonly no")
                    .onShutdownForceStop(true)     // why: never leave a redis-server behind if the JVM dies
                    .build();
            server.start();
            return new ExampleRedis("redis://" + HOST + ":" + port, server, why);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(why + ", and the embedded redis-server could not start on this OS/arch; "
                    + "set REDIS_URL=redis://host:port to a running Redis, or install redis-server", e);
        }
    }

    /** A Redis reply of any kind to PING (+PONG, or -NOAUTH from a server that wants a password). */
    private static boolean answers(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 1000);
            s.setSoTimeout(1000);
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            int first = in.read();
            return first == '+' || first == '-';
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
