package io.bull4j.bench;

import io.bull4j.internal.script.LuaScript;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The fastest any client could run a worker's concurrency-1 work, or sequential adds, with bull4j's scripts: one
 * thread on a plain blocking socket, each call sent the moment the previous reply is read, nothing else. Mode
 * {@code finish}: no processor, listener or lock renewal; each job finished by the worker's own finish call
 * (moveManyToFinished with one job, taking the next job), on {@code process/c1-keep}'s jobs (data {@code {"i":n}},
 * kept). Mode {@code add}: {@code add/sequential}'s adds, one addJob call each. It is the bound for issue 15's c=1
 * and sequential-add targets: bull4j can be no faster than this loop with the same scripts, so its jobs/s against
 * BullMQ's, on the same Redis, says how far a target is reachable at all. Its calls pass no deadline (live calls
 * pass one, which costs Redis a TIME per call), so the bound is a little generous. Usage, from the repository:
 * {@code java -cp target/test-classes:target/classes:$(cat target/bench-classpath.txt) io.bull4j.bench.IdealLoop
 * PORT [JOBS] [ROUNDS] [finish|add]}; prints one JSON line per round (jobs/s and Redis's script µs per job).
 */
public final class IdealLoop {
    private static final String BASE = "bull:ideal-loop:";
    private static final String[] FETCH_KEYS = {"wait", "active", "prioritized", "pc", "delayed", "marker", "meta",
        "events", "failed"};
    private static final String[] FINISH_KEYS = {"active", "completed", "events", "stalled", "meta", "wait",
        "prioritized", "pc", "delayed", "marker", "failed"};
    private static final String LOCK_MS = "30000";

    private final OutputStream out;
    private final InputStream in;

    private IdealLoop(Socket socket) throws IOException {
        this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    }

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        int jobs = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        String mode = args.length > 3 ? args[3] : "finish";
        if (!mode.equals("finish") && !mode.equals("add")) {
            throw new IllegalArgumentException("mode is finish or add, not " + mode);
        }
        boolean adds = mode.equals("add");
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setTcpNoDelay(true);
            IdealLoop loop = new IdealLoop(socket);
            // the JIT's warm-up: a round of the same size, not reported
            if (adds) {
                loop.adds(jobs);
            } else {
                loop.round(jobs);
            }
            for (int r = 0; r < rounds; r++) {
                System.out.println(adds ? loop.adds(jobs) : loop.round(jobs));
            }
        }
    }

    private String round(int jobs) throws IOException {
        LuaScript fetch = LuaScript.load("moveToActive");
        LuaScript finish = LuaScript.load("moveManyToFinished");
        call("FLUSHALL", "SYNC");
        call("SCRIPT", "LOAD", fetch.source());
        call("SCRIPT", "LOAD", finish.source());
        String now = Long.toString(System.currentTimeMillis());
        for (int from = 1; from <= jobs; from += 1000) {
            int to = Math.min(from + 999, jobs);
            for (int i = from; i <= to; i++) {
                send("HSET", BASE + i, "name", "bench", "data", "{\"i\":" + i + "}", "opts", "{\"attempts\":1}",
                        "timestamp", now, "delay", "0", "priority", "0");
                send("LPUSH", BASE + "wait", Integer.toString(i));
            }
            out.flush();
            for (int i = from; i <= to; i++) {
                read();
                read();
            }
        }
        int tokens = 0;
        String token = "t" + ++tokens;
        List<String> first = new ArrayList<>(List.of("EVALSHA", fetch.sha(), Integer.toString(FETCH_KEYS.length)));
        for (String k : FETCH_KEYS) {
            first.add(BASE + k);
        }
        first.addAll(List.of(BASE, now, token, LOCK_MS, "", "", "", "0"));
        Object id = ((List<?>) call(first.toArray(String[]::new))).get(1);
        call("CONFIG", "RESETSTAT");
        long t0 = System.nanoTime();
        int finished = 0;
        String[] argv = new String[3 + FINISH_KEYS.length + 7 + 12 + 1];
        argv[0] = "EVALSHA";
        argv[1] = finish.sha();
        argv[2] = Integer.toString(FINISH_KEYS.length);
        for (int i = 0; i < FINISH_KEYS.length; i++) {
            argv[3 + i] = BASE + FINISH_KEYS[i];
        }
        int common = 3 + FINISH_KEYS.length;
        String[] shared = {BASE, LOCK_MS, "", "", "", "", "ideal-loop"};
        System.arraycopy(shared, 0, argv, common, shared.length);
        int job = common + shared.length;
        while (id instanceof String jobId) {
            String next = "t" + ++tokens;
            String[] perJob = {jobId, token, Long.toString(System.currentTimeMillis()), "completed", "null", "", "-1",
                "-1", "1", "1", next, ""};
            System.arraycopy(perJob, 0, argv, job, perJob.length);
            argv[argv.length - 1] = "0"; // no deadline
            List<?> replies = (List<?>) call(argv);
            finished++;
            id = ((List<?>) replies.get(0)).get(1);
            token = next;
        }
        return report("bull4j ideal loop", finished, jobs, t0);
    }

    /** {@code jobs} adds, one after the other, each waiting for its reply. */
    private String adds(int jobs) throws IOException {
        LuaScript add = LuaScript.load("addJob");
        call("FLUSHALL", "SYNC");
        call("SCRIPT", "LOAD", add.source());
        String[] argv = {"EVALSHA", add.sha(), "9", BASE + "meta", BASE + "id", BASE + "wait", BASE + "prioritized",
            BASE + "pc", BASE + "delayed", BASE + "marker", BASE + "events", BASE + "active", BASE, "", "bench", "",
            "", "{\"attempts\":0,\"delay\":0}", "0", "0", "0", "0"};
        call("CONFIG", "RESETSTAT");
        long t0 = System.nanoTime();
        for (int i = 0; i < jobs; i++) {
            argv[15] = Long.toString(System.currentTimeMillis());
            argv[16] = "{\"i\":" + i + "}";
            call(argv);
        }
        long waiting = (Long) call("LLEN", BASE + "wait");
        return report("bull4j ideal add loop", (int) waiting, jobs, t0);
    }

    private String report(String impl, int finished, int jobs, long t0) throws IOException {
        double wallS = (System.nanoTime() - t0) / 1e9;
        String stats = (String) call("INFO", "commandstats");
        long usec = 0;
        long calls = 0;
        for (String line : stats.split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                calls = Long.parseLong(line.replaceAll("^cmdstat_evalsha:calls=(\\d+),.*", "$1"));
                usec = Long.parseLong(line.replaceAll("^[^,]*,usec=(\\d+),.*", "$1"));
            }
        }
        if (finished != jobs || calls != finished) {
            throw new IllegalStateException("finished " + finished + " of " + jobs + " jobs in " + calls + " calls");
        }
        return String.format("{\"impl\":\"%s\",\"jobs\":%d,\"jobs_per_s\":%d,\"evalsha_usec_per_job\":%.2f}",
                impl, finished, Math.round(finished / wallS), (double) usec / finished);
    }

    private Object call(String... args) throws IOException {
        send(args);
        out.flush();
        return read();
    }

    private void send(String... args) throws IOException {
        out.write(('*' + Integer.toString(args.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.UTF_8);
            out.write(('$' + Integer.toString(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(b);
            out.write('\r');
            out.write('\n');
        }
    }

    /** One RESP2 reply: a String, a Long, null, or a List of these; an error reply is thrown. */
    private Object read() throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IOException("Redis: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] b = in.readNBytes(n + 2);
                return new String(b, 0, n, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type " + type);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c; (c = in.read()) != '\r'; ) {
            if (c < 0) {
                throw new EOFException("Redis closed the connection");
            }
            b.write(c);
        }
        in.read(); // '\n'
        return b.toString(StandardCharsets.US_ASCII);
    }
}
