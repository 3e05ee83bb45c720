package io.bull4j.support;

import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The least-privilege Redis user bull4j needs, exactly as {@code docs/operations.md} documents it: the harness reads
 * the {@code ACL SETUSER bull4j ...} line from that page, so the documented rule is the one the suite runs under.
 * On when {@code -Dbull4j.test.acl=true} or {@code BULL4J_TEST_ACL=1}: bull4j's own connections then log in as
 * this user, while the harness's admin connection (FLUSHALL, CONFIG, DEBUG, CLIENT KILL, state reads) and the
 * Node BullMQ processes keep the default user.
 */
public final class AclUser {
    /** The user name of the documented rule. */
    public static final String NAME = "bull4j";
    /** The placeholder password of the documented rule, replaced by a random one here. */
    private static final String PLACEHOLDER = ">CHANGE-ME";
    /**
     * The same in every JVM: a child JVM given the shared server's URL (BULL4J_TEST_REDIS_URL) sets the user up
     * again, and a password of its own would lock the parent's connections out.
     */
    public static final String PASSWORD = "bull4j-test-acl-password";

    private AclUser() {
    }

    /** True when the suite runs bull4j as the restricted user. */
    public static boolean enabled() {
        return Boolean.getBoolean("bull4j.test.acl") || "1".equals(System.getenv("BULL4J_TEST_ACL"));
    }

    /** The documented rule's words, for the default prefix {@code bull}, with this run's password. */
    public static List<String> rule() {
        Path doc = Path.of("docs", "operations.md");
        try {
            for (String line : Files.readAllLines(doc)) {
                if (line.startsWith("ACL SETUSER " + NAME + " ")) {
                    List<String> words = Arrays.asList(line.trim().split("\\s+"));
                    if (!words.contains(PLACEHOLDER)) {
                        throw new IllegalStateException(doc + ": the ACL line has no " + PLACEHOLDER + " password");
                    }
                    return words.stream().map(w -> w.equals(PLACEHOLDER) ? ">" + PASSWORD : w).toList();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException(doc + " has no line starting 'ACL SETUSER " + NAME + " '");
    }

    /** Creates (or resets) the user on a server through an admin connection. */
    public static void create(RedisCommands<String, String> admin) {
        List<String> words = rule();
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8);
        for (String w : words.subList(1, words.size())) { // words[0] is "ACL"
            args.add(w);
        }
        String ok = admin.dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args);
        if (!"OK".equals(ok)) {
            throw new IllegalStateException("ACL SETUSER answered " + ok);
        }
    }

    /** {@code uri} (redis://host:port[/db]) with this user's credentials. */
    public static String withCredentials(String uri) {
        int scheme = uri.indexOf("://");
        if (scheme < 0 || uri.indexOf('@') >= 0) {
            throw new IllegalArgumentException("cannot add the ACL user to " + uri);
        }
        return uri.substring(0, scheme + 3) + NAME + ":" + PASSWORD + "@" + uri.substring(scheme + 3);
    }
}
