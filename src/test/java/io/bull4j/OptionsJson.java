package io.bull4j;

/** For tests in other packages: job options as bull4j writes them to a job's {@code opts} field. */
public final class OptionsJson {
    private OptionsJson() {
    }

    /**
     * The {@code opts} JSON of these options.
     *
     * @param options the options
     * @return their JSON, as a Queue stores it
     */
    public static String write(JobOptions options) {
        return OptionsCodec.write(options);
    }
}
