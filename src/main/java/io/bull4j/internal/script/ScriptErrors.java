package io.bull4j.internal.script;

import io.bull4j.JobException;
import io.bull4j.JobException.Reason;

/** Translates the negative codes our scripts return (BullMQ's numbering) into exceptions, in one place. */
public final class ScriptErrors {
    private ScriptErrors() {
    }

    public static void check(long code, String queue, String jobId, String command) {
        if (code >= 0) {
            return;
        }
        throw error(code, queue, jobId, command);
    }

    /** As {@link #check(long, String, String, String)}, naming {@code state} as the one the job had to be in. */
    public static void check(long code, String queue, String jobId, String command, String state) {
        if (code >= 0) {
            return;
        }
        throw error(code, queue, jobId, command, state);
    }

    public static JobException error(long code, String queue, String jobId, String command) {
        return error(code, queue, jobId, command, expectedState(command));
    }

    /** The state a command needs its job in, for its refusal's message (as BullMQ's names it); null if unknown. */
    private static String expectedState(String command) {
        switch (command) {
            case "promote":
            case "changeDelay":
                return "delayed";
            case "moveToFinished":
            case "moveToDelayed":
            case "retryJob":
            case "moveToWait":
            case "moveJobFromActiveToWait":
            case "moveToWaitingChildren":
                return "active";
            default:
                return null;
        }
    }

    private static JobException error(long code, String queue, String jobId, String command, String state) {
        switch ((int) code) {
            case -1: return new JobException(queue, jobId, Reason.JOB_NOT_FOUND,
                    "Missing key for job " + jobId + ". " + command);
            case -2: return new JobException(queue, jobId, Reason.LOCK_MISSING,
                    "Missing lock for job " + jobId + ". " + command);
            case -3: return new JobException(queue, jobId, Reason.NOT_IN_STATE,
                    "Job " + jobId + " is not in the " + (state == null ? "expected" : state) + " state. "
                    + command);
            case -4: return new JobException(queue, jobId, Reason.PENDING_CHILDREN,
                    "Job " + jobId + " has pending dependencies. " + command);
            case -9: return new JobException(queue, jobId, Reason.FAILED_CHILDREN,
                    "Cannot complete job " + jobId + " because it has at least one failed child. " + command);
            case -6: return new JobException(queue, jobId, Reason.LOCK_MISMATCH,
                    "Lock mismatch for job " + jobId + ". " + (state == null ? command
                            : "Cmd " + command + " from " + state)); // as bullmq words it
            case -8: return new JobException(queue, jobId, Reason.JOB_LOCKED,
                    "Job " + jobId + " is locked by a worker. " + command);
            case -20: return new JobException(queue, jobId, Reason.BAD_DATA,
                    "Job " + jobId + " has a damaged hash; it was moved to failed with the damage as its reason. "
                    + command);
            case -21: return new JobException(queue, jobId, Reason.BAD_DATA,
                    "The key of job " + jobId + " holds another Redis type than a hash; nothing was changed. "
                    + command);
            default: return new JobException(queue, jobId, Reason.OTHER,
                    "Unknown code " + code + " for job " + jobId + ". " + command);
        }
    }
}
