package io.bull4j;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A parent's children by outcome, as {@link Job#getDependencies()} read them. Children are named by their job keys
 * ({@code prefix:queue:id}), as in BullMQ.
 *
 * <pre>{@code
 * JobDependencies d = parent.getDependencies();
 * d.processed();    // {"bull:images:7f3c...": "{\"url\":\"...\"}"}, the completed children's return values (JSON)
 * d.unprocessed();  // the children still pending
 * }</pre>
 *
 * <p>Immutable, a snapshot of when it was read.
 */
public final class JobDependencies {
    private final Map<String, String> processed;
    private final List<String> unprocessed;
    private final Map<String, String> ignored;
    private final List<String> failed;

    JobDependencies(Map<String, String> processed, List<String> unprocessed, Map<String, String> ignored,
                    List<String> failed) {
        this.processed = Collections.unmodifiableMap(processed);
        this.unprocessed = Collections.unmodifiableList(unprocessed);
        this.ignored = Collections.unmodifiableMap(ignored);
        this.failed = Collections.unmodifiableList(failed);
    }

    /** {@return the completed children: child key to its return value as JSON} */
    public Map<String, String> processed() {
        return processed;
    }

    /** {@return the children still pending (BullMQ's {@code :dependencies} set)} */
    public List<String> unprocessed() {
        return unprocessed;
    }

    /**
     * {@return the children that failed with ignoreDependencyOnFailure or continueParentOnFailure: child key to its
     * failed reason}
     */
    public Map<String, String> ignored() {
        return ignored;
    }

    /** {@return the children that failed with failParentOnFailure} */
    public List<String> failed() {
        return failed;
    }

    @Override
    public String toString() {
        return "JobDependencies{processed=" + processed.keySet() + ", unprocessed=" + unprocessed + ", ignored="
                + ignored.keySet() + ", failed=" + failed + "}";
    }

    /**
     * How many children a parent has of each kind, as {@link Job#getDependenciesCount()} read them.
     *
     * <pre>{@code parent.getDependenciesCount().unprocessed(); // 2 children still pending}</pre>
     *
     * <p>Immutable.
     */
    public static final class Counts {
        private final long processed;
        private final long unprocessed;
        private final long ignored;
        private final long failed;

        Counts(long processed, long unprocessed, long ignored, long failed) {
            this.processed = processed;
            this.unprocessed = unprocessed;
            this.ignored = ignored;
            this.failed = failed;
        }

        /** {@return how many children completed} */
        public long processed() {
            return processed;
        }

        /** {@return how many children are pending} */
        public long unprocessed() {
            return unprocessed;
        }

        /** {@return how many children failed and were ignored (ignoreDependencyOnFailure, continueParentOnFailure)} */
        public long ignored() {
            return ignored;
        }

        /** {@return how many children failed with failParentOnFailure} */
        public long failed() {
            return failed;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Counts)) return false;
            Counts c = (Counts) o;
            return processed == c.processed && unprocessed == c.unprocessed && ignored == c.ignored
                    && failed == c.failed;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(processed, unprocessed, ignored, failed);
        }

        @Override
        public String toString() {
            return "Counts{processed=" + processed + ", unprocessed=" + unprocessed + ", ignored=" + ignored
                    + ", failed=" + failed + "}";
        }
    }
}
