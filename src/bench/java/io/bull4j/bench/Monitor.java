package io.bull4j.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A MONITOR feed on a plain socket (Lettuce has no MONITOR), counting the commands seen between the ECHO
 * sentinels {@code __bench_begin__} and {@code __bench_end__}, split into those sent by clients and those run
 * inside Lua ({@code [0 lua]} in the feed). Used for the untimed calibration pass of the cost mode only:
 * MONITOR itself slows Redis down.
 */
final class Monitor implements AutoCloseable {
    static final String BEGIN = "__bench_begin__";
    static final String END = "__bench_end__";
    private static final Set<String> WITH_SUBCOMMAND = Set.of("client", "config", "script", "object", "memory");

    final Map<String, Long> client = new TreeMap<>();
    final Map<String, Long> lua = new TreeMap<>();
    private final Socket socket;
    private final Thread reader;
    private final CountDownLatch subscribed = new CountDownLatch(1);
    private final CountDownLatch ended = new CountDownLatch(1);
    private volatile boolean inside;

    Monitor(String host, int port) throws IOException, InterruptedException {
        socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.ISO_8859_1), 1 << 16);
        reader = new Thread(() -> read(in), "bench-monitor");
        reader.setDaemon(true);
        reader.start();
        if (!subscribed.await(5, TimeUnit.SECONDS)) {
            close();
            throw new IOException("MONITOR was not acknowledged");
        }
    }

    private void read(BufferedReader in) {
        try {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.equals("+OK")) {
                    subscribed.countDown();
                } else if (line.startsWith("+")) {
                    onCommand(line);
                }
            }
        } catch (IOException e) {
            // the socket was closed by close()
        }
    }

    /** One feed line: {@code +<time> [<db> <addr>|lua] "cmd" "arg" ...}. */
    private void onCommand(String line) {
        int open = line.indexOf('[');
        int close = line.indexOf("] ", open);
        if (open < 0 || close < 0) {
            return;
        }
        boolean fromLua = line.substring(open + 1, close).endsWith(" lua");
        List<String> args = quoted(line, close + 2);
        if (args.isEmpty()) {
            return;
        }
        String name = args.get(0).toLowerCase();
        if (name.equals("echo") && args.size() > 1 && args.get(1).equals(BEGIN)) {
            inside = true;
            return;
        }
        if (name.equals("echo") && args.size() > 1 && args.get(1).equals(END)) {
            inside = false;
            ended.countDown();
            return;
        }
        if (!inside) {
            return;
        }
        String full = WITH_SUBCOMMAND.contains(name) && args.size() > 1 ? name + "|" + args.get(1).toLowerCase() : name;
        if (!fromLua && RedisAdmin.HARNESS_CMDS.contains(full)) {
            return;
        }
        (fromLua ? lua : client).merge(full, 1L, Long::sum);
    }

    /** The double-quoted, backslash-escaped arguments Redis writes (sdscatrepr); escapes are kept as text. */
    static List<String> quoted(String s, int from) {
        List<String> out = new ArrayList<>();
        int i = from;
        while (i < s.length()) {
            if (s.charAt(i) != '"') {
                i++;
                continue;
            }
            StringBuilder b = new StringBuilder();
            i++;
            while (i < s.length() && s.charAt(i) != '"') {
                if (s.charAt(i) == '\\' && i + 1 < s.length()) {
                    b.append(s.charAt(i + 1));
                    i += 2;
                } else {
                    b.append(s.charAt(i++));
                }
            }
            out.add(b.toString());
            i++;
        }
        return out;
    }

    /** Waits (at most 5 s) for the end sentinel to come through, then closes the feed. */
    void awaitEnd() throws InterruptedException {
        ended.await(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        try {
            socket.close();
            reader.join(2000);
        } catch (IOException e) {
            // closing anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
