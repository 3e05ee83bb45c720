package io.bull4j;

import io.bull4j.support.RedisTestServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code rediss://} end to end: a CA and a server certificate made at test time with {@code openssl}, a redis-server
 * serving TLS only with them, and bull4j adding and processing a job over it with the CA trusted, both ways a user
 * can trust it (the JVM's {@code javax.net.ssl.trustStore}, or Lettuce's {@code SslOptions} on their own client).
 * A server whose certificate another CA signed is refused at connect with a typed exception.
 */
class TlsTest {
    private static final String PASSWORD = "changeit";
    private static Path dir;
    private static Process redis;
    private static int tlsPort;
    private static Path trustStore;
    private static Path otherTrustStore;

    @BeforeAll
    static void startTlsRedis() throws Exception {
        RedisTestServer.assumeOnPath("The TLS tests", "openssl", "redis-server");
        dir = Files.createTempDirectory("bull4j-tls-");
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
                "-days", "2", "-subj", "/CN=bull4j test CA");
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.crt",
                "-days", "2", "-subj", "/CN=some other CA");
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
                "-subj", "/CN=127.0.0.1");
        Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.crt", "-days", "2", "-extfile", "san.ext");
        trustStore = trustStore("ca.crt", "trust.p12");
        otherTrustStore = trustStore("other.crt", "other.p12");

        tlsPort = freePort();
        redis = new ProcessBuilder("redis-server", "--port", "0", "--tls-port", String.valueOf(tlsPort),
                "--bind", "127.0.0.1", "--tls-cert-file", "server.crt", "--tls-key-file", "server.key",
                "--tls-ca-cert-file", "ca.crt", "--tls-auth-clients", "no", "--save", "", "--appendonly", "no",
                "--dir", dir.toString())
                .directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        awaitListening();
    }

    @AfterAll
    static void stop() throws Exception {
        if (redis != null) {
            redis.destroy();
            redis.waitFor(10, TimeUnit.SECONDS);
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    private String uri() {
        return "rediss://127.0.0.1:" + tlsPort;
    }

    @Test
    void addAndProcessOverTlsWithTheCaInTheJvmTrustStore() throws Exception {
        withTrustStore(trustStore, () -> {
            try (Bull4jConnection redis = Bull4jConnection.create(uri())) {
                addAndProcess(redis);
            }
        });
    }

    @Test
    void addAndProcessOverTlsWithTheCaInLettuceSslOptions() throws Exception {
        RedisClient client = RedisClient.create(uri());
        client.setOptions(ClientOptions.builder()
                .sslOptions(SslOptions.builder().jdkSslProvider().truststore(trustStore.toFile(), PASSWORD).build())
                .build());
        try (Bull4jConnection redis = Bull4jConnection.using(client)) {
            addAndProcess(redis);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @Test
    void aServerCertificateFromAnotherCaIsRefusedAtConnect() throws Exception {
        withTrustStore(otherTrustStore, () -> {
            RedisNotAppliedException e = assertThrows(RedisNotAppliedException.class,
                    () -> Bull4jConnection.create(uri(), Duration.ofSeconds(5)).close());
            assertTrue(hasCause(e, javax.net.ssl.SSLHandshakeException.class), "an SSL handshake failure: " + e);
            assertTrue(e.getMessage().contains("TLS handshake failed") && e.getMessage().contains("certification path"),
                    "the message says why: " + e.getMessage());
        });
    }

    private static void addAndProcess(Bull4jConnection redis) throws Exception {
        String q = TestSupport.queueName("tls");
        CompletableFuture<Object> done = new CompletableFuture<>();
        try (Queue queue = new Queue(q, QueueOptions.builder().connection(redis).build());
             Worker worker = new Worker(q, job -> {
                 done.complete(job.data());
                 return "done over TLS";
             }, WorkerOptions.builder().connection(redis).drainDelay(Duration.ofSeconds(1)).build())) {
            String id = queue.add("secure", Map.of("over", "tls")).id();
            assertEquals(Map.of("over", "tls"), done.get(30, TimeUnit.SECONDS));
            TestSupport.eventually(Duration.ofSeconds(20),
                    () -> queue.getJob(id).getState() == JobState.COMPLETED, "job " + id + " completed");
            assertEquals("done over TLS", queue.getJob(id).returnValue(String.class));
        }
    }

    interface Body {
        void run() throws Exception;
    }

    /** The JVM-wide trust store for one body (nothing else in the suite uses TLS), then the previous one again. */
    private static synchronized void withTrustStore(Path store, Body body) throws Exception {
        String oldStore = System.getProperty("javax.net.ssl.trustStore");
        String oldPassword = System.getProperty("javax.net.ssl.trustStorePassword");
        String oldType = System.getProperty("javax.net.ssl.trustStoreType");
        System.setProperty("javax.net.ssl.trustStore", store.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", PASSWORD);
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
        try {
            body.run();
        } finally {
            restore("javax.net.ssl.trustStore", oldStore);
            restore("javax.net.ssl.trustStorePassword", oldPassword);
            restore("javax.net.ssl.trustStoreType", oldType);
        }
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static void openssl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0,
                "openssl " + String.join(" ", args) + ": " + Files.readString(dir.resolve("openssl.log")));
    }

    private static Path trustStore(String certFile, String storeFile) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(dir.resolve(certFile))) {
            store.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        Path path = dir.resolve(storeFile);
        try (OutputStream out = Files.newOutputStream(path)) {
            store.store(out, PASSWORD.toCharArray());
        }
        return path;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    /** Waits until the TLS port accepts connections (a TCP connect; the handshake is the tests' business). */
    private static void awaitListening() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            try (Socket s = new Socket("127.0.0.1", tlsPort)) {
                return;
            } catch (IOException notYet) {
                if (redis.waitFor(50, TimeUnit.MILLISECONDS)) {
                    fail("redis-server exited: " + Files.readString(dir.resolve("redis.log"), StandardCharsets.UTF_8));
                }
            }
        }
        fail("redis-server did not listen on " + tlsPort + ": " + Files.readString(dir.resolve("redis.log")));
    }
}
