package io.bull4j.chaos;

import io.bull4j.support.NodeBullmq;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The worker processes of one run, in numbered slots (w1, w2, ...). A slot's successive processes are its
 * incarnations (w1.0, w1.1, ...), each with its own history file {@code <name>.jsonl} and log {@code <name>.log}.
 * Every spawn and exit is written to the faults history, so that the checkers know when each process lived.
 */
final class WorkerFleet implements AutoCloseable {
    private final Engine engine;
    private final WorkerSettings settings;
    private final String redisUri;
    private final String queue;
    private final Path runDir;
    private final History faults;
    private final ChaosProcess[] slots;
    private final int[] incarnations;
    private final boolean[] ready;

    WorkerFleet(Engine engine, WorkerSettings settings, String redisUri, String queue, int size, Path runDir,
                History faults) {
        this.engine = engine;
        this.settings = settings;
        this.redisUri = redisUri;
        this.queue = queue;
        this.runDir = runDir;
        this.faults = faults;
        this.slots = new ChaosProcess[size];
        this.incarnations = new int[size];
        this.ready = new boolean[size];
    }

    int size() {
        return slots.length;
    }

    synchronized void startAll() {
        for (int i = 0; i < slots.length; i++) {
            spawn(i);
        }
    }

    synchronized ChaosProcess process(int slot) {
        return slots[slot];
    }

    /**
     * True once the slot's current process is alive and has written READY (its worker is taking jobs), so that a
     * nemesis can aim at processes that run jobs rather than at JVMs still starting.
     */
    synchronized boolean isReady(int slot) {
        if (!ready[slot] && slots[slot] != null && slots[slot].isAlive()) {
            try {
                ready[slot] = Files.readString(history(slots[slot].name())).contains("\"ev\":\"READY\"");
            } catch (IOException e) {
                ready[slot] = false; // not written yet
            }
        }
        return ready[slot] && slots[slot].isAlive();
    }

    /**
     * A random slot whose process is ready, while another one is ready too (so that a worker is left to recover the
     * jobs of the one hit), or -1 when fewer than two are: on a loaded machine a restarted process can take longer
     * to get ready than the nemesis's period, and hitting the last live worker would measure start-up time.
     */
    synchronized int randomReadySlot(Random random) {
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < slots.length; i++) {
            if (isReady(i)) {
                live.add(i);
            }
        }
        return live.size() < 2 ? -1 : live.get(random.nextInt(live.size()));
    }

    /** Polls until every slot's process is ready, at most {@code limit}; returns whether they all are. */
    boolean awaitAllReady(java.time.Duration limit) {
        long until = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < until) {
            boolean all = true;
            for (int i = 0; i < slots.length; i++) {
                all &= isReady(i);
            }
            if (all) {
                return true;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(100_000_000L); // polls the histories for READY
        }
        return false;
    }

    private Path history(String name) {
        return runDir.resolve(name + ".jsonl");
    }

    /** kill -9 of the slot's process; it stays down until {@link #spawn}. */
    synchronized void kill9(int slot) {
        ChaosProcess p = slots[slot];
        faults.append("KILL9", "proc", p.name());
        p.kill9();
        faults.append("EXIT", "proc", p.name());
    }

    /** SIGTERM and a wait for the graceful close; a process that does not exit in time is killed (and says so). */
    synchronized boolean terminate(int slot, long graceSeconds) {
        ChaosProcess p = slots[slot];
        faults.append("SIGTERM", "proc", p.name());
        boolean exited = p.terminate(graceSeconds);
        if (!exited) {
            faults.append("KILL9", "proc", p.name(), "why", "no exit within " + graceSeconds + " s of SIGTERM");
            p.kill9();
        }
        faults.append("EXIT", "proc", p.name());
        return exited;
    }

    synchronized void sigstop(int slot) {
        faults.append("SIGSTOP", "proc", slots[slot].name());
        slots[slot].sigstop();
    }

    synchronized void sigcont(int slot) {
        slots[slot].sigcont();
        faults.append("SIGCONT", "proc", slots[slot].name());
    }

    /** Starts the slot's next incarnation. */
    synchronized void spawn(int slot) {
        String name = "w" + (slot + 1) + "." + incarnations[slot]++;
        Path history = history(name);
        ready[slot] = false;
        List<String> args = List.of(redisUri, queue, String.valueOf(settings.concurrency()),
                String.valueOf(settings.lockMs()), String.valueOf(settings.stalledMs()),
                String.valueOf(settings.maxStalledCount()), history.toString(), name, settings.work());
        List<String> cmd = new ArrayList<>();
        Path workDir;
        if (engine == Engine.BULL4J) {
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            // small heaps: several worker JVMs share two cores with the rest of the machine
            cmd.addAll(List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"), ChaosWorkerMain.class.getName()));
            workDir = runDir;
        } else {
            NodeBullmq.ensureInstalled();
            workDir = NodeBullmq.nodeDir();
            cmd.addAll(List.of("node", "chaos-worker.mjs"));
        }
        cmd.addAll(args);
        faults.append("SPAWN", "proc", name);
        slots[slot] = ChaosProcess.start(name, cmd, workDir, runDir.resolve(name + ".log"));
    }

    /** Graceful stop of every live process (the end of a run). */
    @Override
    public synchronized void close() {
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null && slots[i].isAlive()) {
                terminate(i, 30);
            }
        }
    }
}
