package io.bull4j.chaos;

/** The faults of one scenario, injected while the producer adds jobs; it returns when its time is up. */
@FunctionalInterface
interface Nemesis {
    void run(ChaosRun.Faults faults) throws Exception;
}
