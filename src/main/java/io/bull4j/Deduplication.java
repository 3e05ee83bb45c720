package io.bull4j;

import java.time.Duration;
import java.util.Objects;

/**
 * BullMQ's {@code deduplication} job option: while a job owns the id, adds with the same id create no job (the
 * owner's id is returned and a {@code deduplicated} event is emitted). Immutable; build with {@link #of(String)}
 * or {@link #builder(String)}.
 *
 * <table>
 * <caption>Modes</caption>
 * <tr><td>no ttl</td><td>the owner keeps the id until it completes or finally fails (or is removed)</td></tr>
 * <tr><td>{@code ttl}</td><td>the owner keeps the id for the ttl (throttle), even after it finished</td></tr>
 * <tr><td>{@code extend}</td><td>with a ttl: each duplicate add restarts the ttl</td></tr>
 * <tr><td>{@code replace}</td><td>a duplicate add replaces an owner still delayed (debounce, usually with a delay)</td></tr>
 * <tr><td>{@code reschedule}</td><td>a duplicate add moves an owner still delayed to the new add's delay</td></tr>
 * <tr><td>{@code keepLastIfActive}</td><td>a duplicate add while the owner is active is kept (the latest wins) and
 * created when the owner finishes; the ttl is then ignored</td></tr>
 * </table>
 */
public final class Deduplication {
    private final String id;
    private final Duration ttl;
    private final boolean extend;
    private final boolean replace;
    private final boolean reschedule;
    private final boolean keepLastIfActive;

    private Deduplication(Builder b) {
        id = b.id;
        ttl = b.ttl;
        extend = b.extend;
        replace = b.replace;
        reschedule = b.reschedule;
        keepLastIfActive = b.keepLastIfActive;
    }

    /**
     * Simple mode: no ttl; the owner keeps the id until it finishes.
     *
     * @param id the deduplication id, not empty
     * @return the options
     */
    public static Deduplication of(String id) {
        return builder(id).build();
    }

    /**
     * A builder for the other modes.
     *
     * @param id the deduplication id, not empty
     * @return a builder with no option set
     */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /** {@return the deduplication id} */
    public String id() { return id; }
    /** {@return how long the owner keeps the id, or null: until it finishes} */
    public Duration ttl() { return ttl; }
    /** {@return whether a duplicate add restarts the ttl} */
    public boolean extend() { return extend; }
    /** {@return whether a duplicate add replaces an owner that is still delayed} */
    public boolean replace() { return replace; }
    /** {@return whether a duplicate add moves an owner that is still delayed to its own delay} */
    public boolean reschedule() { return reschedule; }
    /** {@return whether a duplicate add while the owner is active is kept and created when the owner finishes} */
    public boolean keepLastIfActive() { return keepLastIfActive; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Deduplication)) return false;
        Deduplication x = (Deduplication) o;
        return id.equals(x.id) && Objects.equals(ttl, x.ttl) && extend == x.extend && replace == x.replace
                && reschedule == x.reschedule && keepLastIfActive == x.keepLastIfActive;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, ttl, extend, replace, reschedule, keepLastIfActive);
    }

    @Override
    public String toString() {
        return "Deduplication{id=" + id + (ttl != null ? ", ttl=" + ttl : "") + (extend ? ", extend" : "")
                + (replace ? ", replace" : "") + (reschedule ? ", reschedule" : "")
                + (keepLastIfActive ? ", keepLastIfActive" : "") + "}";
    }

    /** A builder of {@link Deduplication}; each setter checks its value at once. Not thread-safe. */
    public static final class Builder {
        private final String id;
        private Duration ttl;
        private boolean extend;
        private boolean replace;
        private boolean reschedule;
        private boolean keepLastIfActive;

        private Builder(String id) {
            ValidationException.check(id != null && !id.isEmpty(), "deduplication.id", "must not be empty");
            this.id = id;
        }

        /**
         * How long the owner keeps the id, even after it finished (throttle).
         *
         * @param ttl whole milliseconds, at least 1
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            ValidationException.checkDuration(ttl, "deduplication.ttl");
            ValidationException.checkExpiry(ttl, "deduplication.ttl");
            ValidationException.check(ttl != null && ttl.toMillis() >= 1, "deduplication.ttl",
                    "must be at least 1 ms (was " + ttl + ")");
            ValidationException.check(ttl.getNano() % 1_000_000 == 0, "deduplication.ttl",
                    "must be whole milliseconds (was " + ttl + ")");
            this.ttl = ttl;
            return this;
        }

        /**
         * With a ttl: each duplicate add restarts the ttl.
         *
         * @param extend true to turn it on
         * @return this builder
         */
        public Builder extend(boolean extend) {
            this.extend = extend;
            return this;
        }

        /**
         * A duplicate add replaces an owner that is still delayed (debounce).
         *
         * @param replace true to turn it on
         * @return this builder
         */
        public Builder replace(boolean replace) {
            this.replace = replace;
            return this;
        }

        /**
         * A duplicate add moves an owner that is still delayed to the new add's delay.
         *
         * @param reschedule true to turn it on
         * @return this builder
         */
        public Builder reschedule(boolean reschedule) {
            this.reschedule = reschedule;
            return this;
        }

        /**
         * A duplicate add while the owner is active is kept (the latest wins) and created when the owner
         * completes or finally fails; the ttl is then ignored.
         *
         * @param keepLastIfActive true to turn it on
         * @return this builder
         */
        public Builder keepLastIfActive(boolean keepLastIfActive) {
            this.keepLastIfActive = keepLastIfActive;
            return this;
        }

        /** {@return the options} */
        public Deduplication build() {
            return new Deduplication(this);
        }
    }
}
