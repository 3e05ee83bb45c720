package io.bull4j.internal.keys;

import io.bull4j.ValidationException;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.*;

/** The key builder's Redis Cluster rules: one slot per tagged queue, refusal of untagged keys. */
class QueueKeysTest {
    private static final List<String> JOB_IDS = List.of("1", "42", "custom-id", "repeat:abc:1700000000000",
            "{x}", "ünïcødé", "a}b{c");
    private static final List<String> STATES = List.of("wait", "waiting", "active", "paused", "prioritized",
            "delayed", "completed", "failed", "waiting-children");

    /** Every key the builder can make for a queue, found by reflection so that a new key method is covered. */
    private static List<String> allKeys(QueueKeys k) throws Exception {
        List<String> keys = new ArrayList<>();
        int noArg = 0;
        for (Method m : QueueKeys.class.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || Modifier.isStatic(m.getModifiers())
                    || m.getReturnType() != String.class || Set.of("toString", "hashTag", "prefix", "name")
                    .contains(m.getName())) {
                continue;
            }
            if (m.getParameterCount() == 0) {
                keys.add((String) m.invoke(k));
                noArg++;
            } else if (m.getName().equals("state")) {
                for (String s : STATES) {
                    keys.add(k.state(s));
                }
            } else {
                for (String id : JOB_IDS) {
                    keys.add((String) m.invoke(k, id));
                }
            }
        }
        assertTrue(noArg >= 17, "found only " + noArg + " key methods: " + keys);
        for (String suffix : List.of("repeat", "de:dedup-1", "metrics:completed", "1:dependencies")) {
            keys.add(k.base() + suffix); // keys the scripts build from the base
        }
        return keys;
    }

    private static Set<Integer> slots(List<String> keys) {
        Set<Integer> slots = new TreeSet<>();
        keys.forEach(key -> slots.add(KeySlot.of(key)));
        return slots;
    }

    @Test
    void everyKeyOfAQueueWithATaggedPrefixFallsInOneSlot() throws Exception {
        QueueKeys k = new QueueKeys("{bull}", "emails");
        assertEquals("bull", k.hashTag());
        List<String> keys = allKeys(k);
        assertEquals(Set.of(KeySlot.of("bull")), slots(keys), keys.toString());
        assertEquals(KeySlot.of("bull"), k.slot());
        assertEquals(k.slot(), KeySlot.of(new QueueKeys("{bull}", "other").waitList()), "the tag is shared");
    }

    @Test
    void everyKeyOfAQueueWithATaggedNameFallsInOneSlot() throws Exception {
        for (QueueKeys k : List.of(new QueueKeys("bull", "{emails}"), new QueueKeys("bull", "mail{emails}x"),
                new QueueKeys("app-bull", "{emails}"), new QueueKeys("{a", "b}"))) {
            assertNotNull(k.hashTag(), k.toString());
            List<String> keys = allKeys(k);
            assertEquals(Set.of(k.slot()), slots(keys), k + ": " + keys);
            k.requireSingleSlot();
        }
        assertEquals("emails", new QueueKeys("bull", "{emails}").hashTag());
        assertEquals("a:b", new QueueKeys("{a", "b}").hashTag());
    }

    @Test
    void untaggedKeysSpreadOverSlotsAndAreRefused() throws Exception {
        for (QueueKeys k : List.of(new QueueKeys("bull", "emails"), new QueueKeys("{}", "emails"),
                new QueueKeys("bull", "{}emails"), new QueueKeys("bull{", "emails"))) {
            assertNull(k.hashTag(), k.toString());
            assertTrue(slots(allKeys(k)).size() > 1, k + " should spread over slots");
            ValidationException e = assertThrows(ValidationException.class, k::requireSingleSlot);
            assertEquals("prefix", e.field());
        }
        ValidationException e = assertThrows(ValidationException.class,
                new QueueKeys("bull", "emails")::requireSingleSlot);
        assertTrue(e.getMessage().contains("prefix(\"{bull}\")"), e.getMessage());
        assertTrue(e.getMessage().contains("\"{emails}\""), e.getMessage());
    }

    @Test
    void slotsMatchRedisClusterReferenceValues() {
        // CRC-16/XMODEM check value of "123456789" is 0x31C3; Redis Cluster's spec uses it as its test vector
        assertEquals(0x31C3, KeySlot.crc16("123456789".getBytes(), 0, 9));
        assertEquals(0x31C3 % 16384, KeySlot.of("123456789"));
        assertEquals(KeySlot.of("user1000"), KeySlot.of("{user1000}.following"));
        assertEquals(KeySlot.of("{}x"), SlotHash.getSlot("{}x"));
        for (String key : List.of("", "bull:emails:wait", "{bull}:emails:1:lock", "a{b}c{d}", "{", "}{", "x{}{y}",
                "ünïcødé:{ñ}:1", "bull:{emails}:events")) {
            assertEquals(SlotHash.getSlot(key), KeySlot.of(key), key);
        }
    }

    @Test
    void tagMustLieInsideTheGivenStart() {
        assertEquals("bull", KeySlot.tagWithin("{bull}:q:"));
        assertNull(KeySlot.tagWithin("bull:q:"));
        assertNull(KeySlot.tagWithin("{bull:q:"), "a '}' in a suffix or job id would end the tag");
        assertNull(KeySlot.tagWithin("{}:{q}:"), "Redis hashes the whole key after an empty tag");
        assertEquals("q", KeySlot.tagWithin("b}:{q}:"));
    }
}
