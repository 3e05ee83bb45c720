package io.bull4j.internal.redis;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Warns once per Redis server (per JVM) when its {@code maxmemory-policy} is not {@code noeviction}: under any
 * other policy Redis may evict a queue's keys when memory runs short, and jobs vanish without an error. BullMQ
 * warns likewise. The policy is read from {@code INFO memory}, as BullMQ does, which managed services that refuse
 * {@code CONFIG} still answer; a server that refuses it too is left unchecked, quietly.
 */
final class EvictionPolicyCheck {
    private static final Logger log = LoggerFactory.getLogger(EvictionPolicyCheck.class);
    /** Servers checked by this JVM, by run_id: each is checked, and warned about, once. */
    private static final Set<String> CHECKED = ConcurrentHashMap.newKeySet();

    private EvictionPolicyCheck() {
    }

    static void run(RedisLink link) {
        if (!CHECKED.add(link.serverId())) {
            return;
        }
        String policy;
        try {
            policy = field(Await.result(link.commands().info("memory"), link.commandTimeout(), "INFO memory"),
                    "maxmemory_policy");
        } catch (RuntimeException e) {
            log.debug("maxmemory-policy not checked: INFO memory failed ({})", e.toString());
            return;
        }
        if (policy != null && !policy.equals("noeviction")) {
            log.warn("Redis maxmemory-policy is {}; bull4j (like BullMQ) needs noeviction, or Redis may evict queue "
                    + "keys under memory pressure and jobs are lost without an error. Set maxmemory-policy "
                    + "noeviction (docs/operations.md), or turn this check off with checkEvictionPolicy(false) on "
                    + "QueueOptions and WorkerOptions.", policy);
        }
    }

    /** A field of an INFO reply, or null. */
    static String field(String info, String name) {
        String prefix = name + ":";
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
        }
        return null;
    }
}
