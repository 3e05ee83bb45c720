package io.bull4j.chaos;

import java.time.Duration;

/** The nemeses of the chaos suite, one per fault kind. Each runs until its fault time is up. */
final class Scenarios {
    private Scenarios() {
    }

    /** kill -9 of a random running worker every {@code every}; its slot is restarted 1 s later. */
    static Nemesis workerKill9(Duration every) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(every.minusSeconds(1));
                int slot = f.fleet.randomReadySlot(f.random);
                if (slot < 0) {
                    continue; // every worker is still starting
                }
                f.fleet.kill9(slot);
                f.hold(Duration.ofSeconds(1));
                f.fleet.spawn(slot);
            }
        };
    }

    /** SIGSTOP of a random worker for {@code pause} (longer than its lock), then SIGCONT; one at a time. */
    static Nemesis workerPause(Duration pause, Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                int slot = f.fleet.randomReadySlot(f.random);
                if (slot < 0) {
                    continue; // every worker is still starting
                }
                f.fleet.sigstop(slot);
                f.hold(pause);
                f.fleet.sigcont(slot);
            }
        };
    }

    /**
     * Each worker in turn: SIGTERM, wait for its graceful close, start its successor and wait until it takes jobs
     * before the next one; a pause between.
     */
    static Nemesis rollingRestart(Duration gap) {
        return f -> {
            int slot = 0;
            while (f.timeLeft()) {
                f.hold(gap);
                f.fleet.terminate(slot, 30);
                f.fleet.spawn(slot);
                f.awaitReady(slot, Duration.ofSeconds(60));
                slot = (slot + 1) % f.fleet.size();
            }
        };
    }

    /** Redis goes down ({@code SHUTDOWN} or {@code kill -9}) for {@code down}, then restarts on the same AOF. */
    static Nemesis redisRestart(boolean kill9, Duration down, Duration gap) {
        String kind = kill9 ? "redis kill -9" : "redis SHUTDOWN";
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                f.redisFault(kind, () -> {
                    if (kill9) {
                        f.redis.kill9();
                    } else {
                        f.redis.shutdown();
                    }
                    f.hold(down);
                    f.redis.restart();
                });
            }
        };
    }

    /** {@code SCRIPT FLUSH} every {@code every}: every worker's next script call meets NOSCRIPT. */
    static Nemesis scriptFlush(Duration every) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(every);
                f.redisFault("SCRIPT FLUSH", () -> require(f.redis.raw("SCRIPT FLUSH"), "+OK"));
            }
        };
    }

    /** {@code CLIENT KILL TYPE <type>} every {@code every}, cycling through the types a worker's connections have. */
    static Nemesis clientKill(Duration every) {
        String[] types = {"normal", "pubsub"};
        return f -> {
            int i = 0;
            while (f.timeLeft()) {
                f.hold(every);
                String type = types[i++ % types.length];
                f.redisFault("CLIENT KILL TYPE " + type, () -> require(f.redis.raw("CLIENT KILL TYPE " + type), ":"));
            }
        };
    }

    /** {@code CLIENT PAUSE <ms> WRITE}: writes wait on the server side for {@code pause}. */
    static Nemesis clientPause(Duration pause, Duration gap) {
        return f -> {
            while (f.timeLeft()) {
                f.hold(gap);
                f.redisFault("CLIENT PAUSE WRITE", () -> {
                    require(f.redis.raw("CLIENT PAUSE " + pause.toMillis() + " WRITE"), "+OK");
                    f.hold(pause);
                });
            }
        };
    }

    private static void require(String reply, String prefix) {
        if (reply == null || !reply.startsWith(prefix)) {
            throw new IllegalStateException("Redis answered " + reply + ", expected " + prefix + "...");
        }
    }
}
