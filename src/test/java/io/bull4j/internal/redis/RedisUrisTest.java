package io.bull4j.internal.redis;

import io.bull4j.ValidationException;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@link RedisUris} refuses before Lettuce sees a URI (Lettuce took {@code redis://localhost:notaport} as the
 * host {@code localhost:notaport} on port 6379), and that every form Lettuce accepted and could connect with still
 * parses to the same thing. No Redis: parsing only (ConnectionTest, TlsTest and LogSecrecyTest connect with such
 * URIs).
 */
class RedisUrisTest {
    private static ValidationException refused(String uri) {
        ValidationException e = assertThrows(ValidationException.class, () -> RedisUris.parse("uri", uri), uri);
        assertEquals("uri", e.field());
        return e;
    }

    @Test
    void aPortThatIsNotANumberIsRefusedNamingIt() {
        assertTrue(refused("redis://localhost:notaport").getMessage().contains("'notaport'"));
        assertTrue(refused("redis://localhost:-1").getMessage().contains("'-1'"));
        assertTrue(refused("redis://localhost:+6379").getMessage().contains("'+6379'"));
        assertTrue(refused("redis://localhost:6379:7").getMessage().contains("'6379:7'"));
        assertTrue(refused("redis://[::1]x").getMessage().contains("[::1]x"));
    }

    @Test
    void aPortOutOfRangeIsRefusedNamingIt() {
        assertTrue(refused("redis://localhost:70000").getMessage().contains("70000"));
        assertTrue(refused("redis://localhost:0").getMessage().contains("port 0"));
        assertTrue(refused("redis://localhost:99999999999").getMessage().contains("99999999999"));
        assertTrue(refused("rediss://[::1]:65536").getMessage().contains("65536"));
        assertTrue(refused("redis-sentinel://h1:26379,h2:x/0#m").getMessage().contains("'x'"));
    }

    @Test
    void anUnknownOrMissingSchemeIsRefusedNamingIt() {
        assertTrue(refused("http://localhost:6379").getMessage().contains("'http'"));
        assertTrue(refused("localhost:6379").getMessage().contains("no scheme"));
        assertTrue(refused("REDIS://localhost:6379").getMessage().contains("'REDIS'"));
        assertTrue(refused("redis:localhost").getMessage().contains("no scheme"));
    }

    @Test
    void aMissingHostIsRefused() {
        assertTrue(refused("redis://").getMessage().contains("no host"));
        assertTrue(refused("redis://:6379").getMessage().contains("no host"));
        assertTrue(refused("redis://user:pw@/0").getMessage().contains("no host"));
        assertTrue(refused("redis:///0").getMessage().contains("no host"));
        assertTrue(refused("redis-sentinel://h1:26379,/0#m").getMessage().contains("no host"));
        assertTrue(refused("redis-socket://").getMessage().contains("socket path"));
    }

    @Test
    void aDatabaseThatIsNotANumberIsRefusedNamingIt() {
        assertTrue(refused("redis://localhost:6379/abc").getMessage().contains("'abc'"));
        assertTrue(refused("redis://localhost:6379/-1").getMessage().contains("'-1'"));
    }

    @Test
    void messagesNeverCarryThePassword() {
        ValidationException e = refused("redis://app:hunter2@localhost:notaport/0");
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
        // a password with characters a URI must escape: java.net.URI's message repeats the URI, and an unescaped
        // '/' or '#' ends the authority inside the password
        for (String uri : List.of("redis://app:S3cr%t!pw@localhost:6379", "redis://app:pa ss@localhost:6379",
                "redis://app:qq/zzsecret@localhost:6379", "redis://app:qq#zzsecret@localhost:6379/0",
                "redis://app:qq?zzsecret@localhost:6379")) {
            String m = refused(uri).getMessage();
            assertFalse(m.contains("S3cr") || m.contains("pa ss") || m.contains("qq") || m.contains("zzsecret"),
                    uri + " -> " + m);
            assertTrue(m.contains("percent-encode"), m);
        }
    }

    @Test
    void whatLettuceAcceptedStillParsesTheSame() {
        for (String uri : List.of("redis://localhost", "redis://localhost:6380", "redis://localhost:6379/0",
                "redis://localhost:", "redis://user:pw@localhost:6380/2", "redis://:pw@localhost/15",
                "redis://u:p%40ss@h:1/3?timeout=5s", "rediss://localhost:6380", "redis+ssl://localhost",
                "redis+tls://localhost:6390", "redis://[::1]:6379", "redis://[::1]",
                "redis-socket:///tmp/redis.sock", "redis-socket:///tmp/redis.sock?database=2",
                "redis-sentinel://localhost:26379/0#mymaster",
                "redis-sentinel://:pw@h1:26379,h2:26380,h3/1#mymaster", "rediss-sentinel://localhost:26379#m")) {
            RedisURI ours = RedisUris.parse("uri", uri);
            RedisURI theirs = RedisURI.create(uri);
            assertEquals(theirs.toString(), ours.toString(), uri);
            assertEquals(theirs.getHost(), ours.getHost(), uri);
            assertEquals(theirs.getPort(), ours.getPort(), uri);
            assertEquals(theirs.getDatabase(), ours.getDatabase(), uri);
            assertEquals(theirs.getSentinels().toString(), ours.getSentinels().toString(), uri);
        }
        RedisURI r = RedisUris.parse("uri", "redis://user:pw@localhost:6380/2");
        assertEquals("localhost", r.getHost());
        assertEquals(6380, r.getPort());
        assertEquals(2, r.getDatabase());
        // Lettuce 7 keeps credentials behind a provider (RedisURI.getUsername() is gone)
        assertEquals("user", r.getCredentialsProvider().resolveCredentials().block().getUsername());
        assertTrue(RedisUris.parse("uri", "rediss://localhost:6380").isSsl());
        assertEquals("/tmp/redis.sock", RedisUris.parse("uri", "redis-socket:///tmp/redis.sock").getSocket());
        assertNull(RedisUris.parse("uri", "redis-sentinel://h1:26379,h2/0#mymaster").getHost());
        assertEquals(2, RedisUris.parse("uri", "redis-sentinel://h1:26379,h2/0#mymaster").getSentinels().size());
    }
}
