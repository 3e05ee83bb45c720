package io.bull4j.internal.script;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lua script from the classpath folder {@code lua/}. A line {@code --@include name} is replaced by the file
 * {@code lua/include/name.lua}, so transitions can share helpers (Redis has no script-to-script calls); a line
 * {@code --@lazy name} puts it inside {@code lib_name()}, which defines its functions on first use.
 * The header declares the keys as lines {@code -- KEYS[n] ...}; {@link #keyCount()} counts them. Every script
 * takes one more ARGV than its header lists, its deadline, which {@link ScriptRunner} appends.
 */
public final class LuaScript {
    private static final Pattern INCLUDE = Pattern.compile("(?m)^--@(include|lazy) (\\S+)\\s*$");
    private static final Pattern TOP_FUNCTION = Pattern.compile("(?m)^local function (\\w+)");
    private static final Pattern KEY_DECL = Pattern.compile("(?m)^--\\s+KEYS\\[(\\d+)]");
    private static final ConcurrentHashMap<String, LuaScript> CACHE = new ConcurrentHashMap<>();

    private final String name;
    private final String source;
    private final String sha;
    /** See {@link #reportsUnknownAtOnce()}. */
    private final boolean reportsUnknownAtOnce;
    private final int keyCount;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
        this.reportsUnknownAtOnce = WORKER_TRANSITIONS.contains(name);
        int max = 0;
        Matcher m = KEY_DECL.matcher(source);
        while (m.find()) {
            max = Math.max(max, Integer.parseInt(m.group(1)));
        }
        this.keyCount = max;
    }

    /** Loads {@code lua/<name>.lua} once per JVM, behind the deadline guard ({@code lua/include/deadline.lua}). */
    public static LuaScript load(String name) {
        return CACHE.computeIfAbsent(name, n -> new LuaScript(n,
                expand(read("lua/include/deadline.lua") + read("lua/" + n + ".lua"))));
    }

    private static String expand(String text) {
        Matcher m = INCLUDE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(2);
            String included = expand(read("lua/include/" + name + ".lua"));
            m.appendReplacement(out, Matcher.quoteReplacement(m.group(1).equals("lazy") ? lazy(name, included)
                    : included));
        }
        m.appendTail(out);
        return out.toString();
    }

    /**
     * {@code --@lazy name}: the include's functions are defined on first use, by {@code lib_name()}, which returns
     * them in a table ({@code lib_name().f(...)}). A script runs its whole text on every call, and defining a
     * function that captures other helpers costs Redis about 0.5 µs: an include that only rare paths need (flows,
     * deduplication, dead letters, metrics, job schedulers in the finish and fetch scripts) costs nothing when
     * lazy until one of them runs.
     */
    private static String lazy(String name, String included) {
        StringBuilder exports = new StringBuilder();
        Matcher f = TOP_FUNCTION.matcher(included);
        while (f.find()) {
            exports.append(exports.isEmpty() ? "" : ", ").append(f.group(1)).append(" = ").append(f.group(1));
        }
        return "local lazy_" + name + "\nlocal function lib_" + name + "()\n  if not lazy_" + name + " then\n"
                + included + "\n    lazy_" + name + " = {" + exports + "}\n  end\n  return lazy_" + name + "\nend\n";
    }

    private static String read(String path) {
        // through the class, not its loader: in module io.bull4j the loader does not see the module's own resources
        try (InputStream in = LuaScript.class.getResourceAsStream("/" + path)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + path, e);
        }
    }

    private static String sha1(String text) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public String name() {
        return name;
    }

    /**
     * The worker's own transitions, each guarded by a lock token or idempotent, whose tries the worker checks
     * against Redis after an unknown outcome (a finish recognises its applied try, a lost fetch is looked for, a
     * renewal or stalled check is simply made again): a late arrival of an earlier try is refused or harmless, so
     * their failures are reported at once, not held to the deadline as a caller's writes are (see
     * {@code Await.within}); a finish held there would leave the job it fetched unrun for a whole command timeout.
     */
    private static final java.util.Set<String> WORKER_TRANSITIONS = java.util.Set.of("moveToFinished",
            "moveManyToFinished", "retryJob", "moveToDelayed", "moveLimitedToWait", "moveToActive",
            "moveManyToActive", "extendLock", "extendLocks", "takeLock", "releaseLock", "moveStalledJobsToWait",
            "sweepStalledJobs");

    /** Whether a failure of this script with an unknown outcome may be reported before its deadline. */
    public boolean reportsUnknownAtOnce() {
        return reportsUnknownAtOnce;
    }

    public String source() {
        return source;
    }

    public String sha() {
        return sha;
    }

    /** The number of KEYS the header declares; the runner checks every call against it. */
    public int keyCount() {
        return keyCount;
    }
}
