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

    /** Which children {@link Queue#getDependencies(String, Kind, long, long)} pages through. */
    public enum Kind {
        /** The completed children, with their return values (the parent's {@code :processed} hash). */
        PROCESSED,
        /** The children still pending (the parent's {@code :dependencies} set). */
        PENDING
    }

    /**
     * One page of a parent's children, as {@link Queue#getDependencies(String, Kind, long, long)} read it
     * (BullMQ's {@code queue.getDependencies}: {@code items}, {@code jobs} and {@code total} in one).
     *
     * <pre>{@code
     * JobDependencies.Page page = queue.getDependencies(parentId, JobDependencies.Kind.PROCESSED, 0, 99);
     * page.total();                      // how many completed children the parent has
     * page.items().get(0).value();       // the first one's return value (JSON)
     * }</pre>
     *
     * <p>Immutable.
     */
    public static final class Page {
        private final List<Item> items;
        private final long total;

        Page(List<Item> items, long total) {
            this.items = Collections.unmodifiableList(items);
            this.total = total;
        }

        /** {@return the children of the page, in the order Redis scanned them} */
        public List<Item> items() {
            return items;
        }

        /** {@return how many children of that kind the parent has (all pages)} */
        public long total() {
            return total;
        }

        @Override
        public String toString() {
            return "Page{total=" + total + ", items=" + items + "}";
        }
    }

    /** One child of a {@link Page}. Immutable. */
    public static final class Item {
        private final String key;
        private final String value;
        private final Job job;

        Item(String key, String value, Job job) {
            this.key = key;
            this.value = value;
            this.job = job;
        }

        /** {@return the child's job key, {@code prefix:queue:id} (BullMQ's item {@code id})} */
        public String key() {
            return key;
        }

        /** {@return the child's return value as JSON for a completed child; null for a pending one} */
        public String value() {
            return value;
        }

        /** {@return the child job as stored when the page was read, or null when it no longer exists} */
        public Job job() {
            return job;
        }

        @Override
        public String toString() {
            return key + (value == null ? "" : "=" + value);
        }
    }
}
