package io.bull4j.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bull4j.support.NodeBullmq;
import io.bull4j.support.NodeProcess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A running bull-board (src/test/node/board.mjs) over some queues, and a client for its JSON API. The routes
 * are bull-board's own (node_modules/@bull-board/api/dist/routes.js). Close it to kill the Node process.
 */
final class BoardClient implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final NodeProcess node;
    private final String base;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    private BoardClient(NodeProcess node, int port) {
        this.node = node;
        this.base = "http://127.0.0.1:" + port;
    }

    /** Starts the board on a free loopback port and waits until it listens. */
    static BoardClient start(String redisUri, String... queueNames) {
        List<String> args = new ArrayList<>(List.of("board.mjs", redisUri));
        args.addAll(List.of(queueNames));
        NodeProcess node = NodeBullmq.start(args.toArray(String[]::new));
        try {
            int port = node.awaitLine(TIMEOUT).get("port").asInt();
            return new BoardClient(node, port);
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * {@code GET /api/queues?activeQueue=..&status=..}: the board's view of one queue (its counts, paused flag and
     * the jobs of {@code status}, first page of 50).
     */
    JsonNode queue(String name, String status) {
        JsonNode body = get("/api/queues?activeQueue=" + enc(name) + "&status=" + enc(status)
                + "&page=1&jobsPerPage=50");
        for (JsonNode q : body.get("queues")) {
            if (q.get("name").asText().equals(name)) {
                return q;
            }
        }
        throw new AssertionError("board does not list queue " + name + ": " + body);
    }

    /** {@code GET /api/queues/:queue/:jobId}: {@code {job, status}}. */
    JsonNode job(String queue, String jobId) {
        return get("/api/queues/" + enc(queue) + "/" + enc(jobId));
    }

    /** {@code GET /api/queues/:queue/:jobId/logs}: the job's log lines. */
    JsonNode logs(String queue, String jobId) {
        return get("/api/queues/" + enc(queue) + "/" + enc(jobId) + "/logs");
    }

    /** A board action ({@code PUT}, no body); returns the HTTP status. */
    int put(String path) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + path))
                .PUT(HttpRequest.BodyPublishers.noBody()));
        return r.statusCode();
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private JsonNode get(String path) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(base + path)).GET());
        if (r.statusCode() != 200) {
            // a 500 with RESPONSE_SCHEMA_MISMATCH means a job or queue field is not in the shape BullMQ stores
            throw new AssertionError("GET " + path + " -> " + r.statusCode() + ": " + r.body()
                    + "\nboard stderr:\n" + node.stderr());
        }
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException("board answered non-JSON to " + path + ": " + r.body(), e);
        }
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("board request failed; stderr:\n" + node.stderr(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted calling the board", e);
        }
    }

    /** Kills the Node process (idempotent). */
    @Override
    public void close() {
        node.close();
    }
}
