package io.bull4j;

import org.junit.jupiter.api.Test;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The processor forms a user writes compile without casts, and each stores what it should: a value-returning lambda
 * or method reference stores its value, a block without {@code return} ({@link VoidProcessor}) stores JSON null.
 * That this class compiles is half the test; the rest checks the stored return values in Redis.
 */
class ProcessorFormsTest {
    private final ConcurrentLinkedQueue<String> sent = new ConcurrentLinkedQueue<>();

    private void send(Job job) {
        sent.add(job.id());
    }

    private static int compute(Job job) {
        return 7;
    }

    @Test
    void eachFormStoresWhatItReturns() throws Exception {
        assertEquals("42", returnValue((q, o) -> new Worker(q, job -> 42, o)));
        assertEquals("null", returnValue((q, o) -> new Worker(q, job -> { send(job); }, o)));
        assertEquals("null", returnValue((q, o) -> new Worker(q, job -> {
            send(job);
            send(job);
        }, o, new WorkerListener[0])));
        assertEquals("\"block\"", returnValue((q, o) -> new Worker(q, job -> { return "block"; }, o)));
        // a single call fits both forms: it resolves to Processor, so its value is kept
        assertEquals("7", returnValue((q, o) -> new Worker(q, job -> compute(job), o)));
        assertEquals("7", returnValue((q, o) -> new Worker(q, ProcessorFormsTest::compute, o)));
        assertEquals("{\"k\":1}", returnValue((q, o) -> new Worker(q, job -> Map.of("k", 1), o)));
        assertEquals(3, sent.size(), "the void blocks ran their sends (1 + 2)");
    }

    /**
     * A processor that returns a future (an asynchronous client's call) completes the job with the future's value,
     * once it has one, as BullMQ awaits a processor's Promise; before, the future itself was stored, as a bean of its
     * flags ({"done":false,...}), and the job completed at once.
     */
    @Test
    void aReturnedFutureCompletesTheJobWithItsValue() throws Exception {
        CompletableFuture<Object> gate = new CompletableFuture<>();
        String q = queueName("forms-async");
        CompletableFuture<Object> completed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> gate.thenApply(v -> Map.of("got", v)), workerOptions().build())) {
            worker.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    completed.complete(result);
                }
            });
            String id = queue.add("f", Map.of()).id();
            eventually(java.time.Duration.ofSeconds(5), () -> redis().llen("bull:" + q + ":active") == 1,
                    "the job is active");
            assertFalse(completed.isDone(), "completed before its future");
            gate.complete("late");
            assertEquals(Map.of("got", "late"), await(completed));
            assertEquals("{\"got\":\"late\"}", redis().hget("bull:" + q + ":" + id, "returnvalue"));
        }
        assertEquals("[1,2]", returnValue((qq, o) -> new Worker(qq, job -> CompletableFuture.completedFuture(
                List.of(1, 2)), o)));
        assertEquals("null", returnValue((qq, o) -> new Worker(qq, job -> CompletableFuture.runAsync(() -> { }),
                o)));
    }

    /** A future that fails fails the attempt with its cause, as a rejected Promise does in BullMQ. */
    @Test
    void aReturnedFutureThatFailsFailsTheAttemptWithItsCause() throws Exception {
        String q = queueName("forms-async-fail");
        CompletableFuture<Throwable> failed = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = new Worker(q, job -> CompletableFuture.supplyAsync(() -> {
                 throw new IllegalStateException("async boom");
             }), workerOptions().build())) {
            worker.addListener(new WorkerListener() {
                @Override
                public void onFailed(Job job, Throwable error) {
                    failed.complete(error);
                }
            });
            String id = queue.add("f", Map.of()).id();
            Throwable error = await(failed);
            assertInstanceOf(IllegalStateException.class, error, "the future's cause, unwrapped");
            eventually(java.time.Duration.ofSeconds(5), () -> "async boom".equals(
                    redis().hget("bull:" + q + ":" + id, "failedReason")), "failedReason is the cause's message");
            assertNull(redis().hget("bull:" + q + ":" + id, "returnvalue"));
        }
    }

    @Test
    void processorTypedVariablesStillWorkAsVoidProcessors() throws Exception {
        Processor p = job -> "p";
        VoidProcessor v = p;
        assertEquals("\"p\"", returnValue((q, o) -> new Worker(q, v, o)),
                "a Processor passed as a VoidProcessor keeps its value");
    }

    @Test
    void voidProcessorRefusesNull() {
        VoidProcessor none = null;
        ValidationException e = assertThrows(ValidationException.class, () -> new Worker("q", none));
        assertTrue(e.getMessage().contains("processor"), e.getMessage());
    }

    /**
     * A single call to a void method written without braces is refused by the compiler: were it accepted, the same
     * shape with a value-returning method would have to be accepted as a VoidProcessor too, dropping its value.
     */
    @Test
    void compilerRefusesVoidCallWithoutBracesAndResolvesValueCallToProcessor() throws Exception {
        List<Diagnostic<? extends JavaFileObject>> refused = compile(
                "new io.bull4j.Worker(\"q\", job -> send(job));");
        assertFalse(refused.isEmpty(), "job -> send(job) compiled");
        assertTrue(refused.get(0).getMessage(null).contains("void"), refused.get(0).getMessage(null));
        assertEquals(List.of(), compile("new io.bull4j.Worker(\"q\", job -> compute(job));"));
        assertEquals(List.of(), compile("new io.bull4j.Worker(\"q\", job -> { send(job); });"));
        assertEquals(List.of(), compile("new io.bull4j.Worker(\"q\", job -> 42);"));
    }

    private static List<Diagnostic<? extends JavaFileObject>> compile(String statement) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests run on a JDK");
        String source = "class Forms { static void send(io.bull4j.Job j) {} static int compute(io.bull4j.Job j) "
                + "{ return 1; } void m() { " + statement + " } }";
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Forms.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        Path out = Files.createTempDirectory("bull4j-forms-");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        javac.getTask(null, null, diagnostics, List.of("-classpath", System.getProperty("java.class.path"),
                "-d", out.toString(), "-proc:none"), null, List.of(file)).call();
        return diagnostics.getDiagnostics().stream().filter(d -> d.getKind() == Diagnostic.Kind.ERROR).toList();
    }

    /** Runs one job through the worker the factory builds and returns the stored {@code returnvalue}. */
    private static String returnValue(WorkerFactory factory) throws Exception {
        String q = queueName("forms");
        CompletableFuture<String> done = new CompletableFuture<>();
        try (Queue queue = new Queue(q, queueOptions());
             Worker worker = factory.create(q, workerOptions().build())) {
            worker.addListener(new WorkerListener() {
                @Override
                public void onCompleted(Job job, Object result) {
                    done.complete(job.id());
                }

                @Override
                public void onFailed(Job job, Throwable error) {
                    done.completeExceptionally(error);
                }
            });
            String id = queue.add("f", Map.of()).id();
            assertEquals(id, await(done));
            return redis().hget("bull:" + q + ":" + id, "returnvalue");
        }
    }

    @FunctionalInterface
    private interface WorkerFactory {
        Worker create(String queue, WorkerOptions options);
    }
}
