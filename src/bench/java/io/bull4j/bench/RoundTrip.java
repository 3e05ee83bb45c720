package io.bull4j.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * What Lettuce's threads add to one round trip: PINGs sent one at a time from one thread, through a Lettuce
 * connection (the write handed to its event loop, the reply handed back) and through a plain blocking socket (the
 * calling thread writes and reads itself), alternating in rounds. At concurrency 1 a worker pays that difference on
 * every job (issue 15's c=1 target). Usage, from the repository, with the class path run-bench.sh builds:
 * {@code java -cp target/test-classes:$(cat target/bench-classpath.txt) io.bull4j.bench.RoundTrip PORT [CALLS]
 * [ROUNDS]}
 */
public final class RoundTrip {
    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

    private RoundTrip() {
    }

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisConnection<String, String> lettuce = client.connect();
             Socket socket = new Socket("127.0.0.1", port)) {
            socket.setTcpNoDelay(true);
            RedisCommands<String, String> sync = lettuce.sync();
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    sync.ping();
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < calls; i++) {
                    out.write(PING);
                    out.flush();
                    skipLine(in); // "+PONG"
                }
                long t2 = System.nanoTime();
                System.out.printf("round %d: lettuce %.1f µs, blocking socket %.1f µs per PING%n", r + 1,
                        (t1 - t0) / 1e3 / calls, (t2 - t1) / 1e3 / calls);
            }
        } finally {
            client.shutdown();
        }
    }

    private static void skipLine(InputStream in) throws IOException {
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new EOFException("Redis closed the connection");
            }
        }
    }
}
