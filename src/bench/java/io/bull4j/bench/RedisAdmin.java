package io.bull4j.bench;

import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The harness's own Redis connection (not bull4j's): FLUSHALL, INFO sections, CONFIG RESETSTAT, the MONITOR
 * sentinels and MEMORY USAGE. Its commands are left out of every per-job count ({@link #HARNESS_CMDS}).
 */
final class RedisAdmin implements AutoCloseable {
    /** Commands the harness itself sends inside a measured window, as INFO commandstats names them. */
    static final Set<String> HARNESS_CMDS = Set.of("info", "config|resetstat", "echo", "flushall", "monitor",
            "config|get");
    static final Set<String> SCRIPT_CMDS = Set.of("eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro");

    private final StatefulRedisConnection<String, String> conn;
    final RedisCommands<String, String> sync;
    final long redisPid;
    final boolean redisLocal;
    final String redisVersion;
    final int redisHz;

    RedisAdmin(RedisClient client) {
        this.conn = client.connect(StringCodec.UTF8);
        this.sync = conn.sync();
        Map<String, String> server = info("server");
        this.redisVersion = server.get("redis_version");
        this.redisPid = Long.parseLong(server.get("process_id"));
        this.redisLocal = Double.isFinite(Cpu.procCpuSec(redisPid));
        this.redisHz = Integer.parseInt(sync.configGet("hz").get("hz"));
    }

    Map<String, String> info(String section) {
        Map<String, String> o = new HashMap<>();
        for (String line : sync.info(section).split("\r?\n")) {
            int i = line.indexOf(':');
            if (!line.isEmpty() && !line.startsWith("#") && i > 0) {
                o.put(line.substring(0, i), line.substring(i + 1));
            }
        }
        return o;
    }

    /** Redis's CPU seconds (user + sys) as INFO cpu reports them. */
    double redisCpuSec() {
        Map<String, String> cpu = info("cpu");
        return Double.parseDouble(cpu.get("used_cpu_user")) + Double.parseDouble(cpu.get("used_cpu_sys"));
    }

    /** Per command (subcommands as {@code config|get}): {calls, usec}. */
    Map<String, long[]> commandStats() {
        Map<String, long[]> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : info("commandstats").entrySet()) {
            if (!e.getKey().startsWith("cmdstat_")) {
                continue;
            }
            long calls = 0;
            long usec = 0;
            for (String kv : e.getValue().split(",")) {
                String[] p = kv.split("=");
                if (p[0].equals("calls")) {
                    calls = Long.parseLong(p[1]);
                } else if (p[0].equals("usec")) {
                    usec = Long.parseLong(p[1]);
                }
            }
            out.put(e.getKey().substring(8), new long[] {calls, usec});
        }
        return out;
    }

    /** FLUSHALL SYNC, then a short pause as the Node side takes, so that the freeing is over. */
    void flush() {
        sync.flushall(FlushMode.SYNC);
        Sleep.ms(50);
    }

    long usedMemory() {
        return Long.parseLong(info("memory").get("used_memory"));
    }

    /** MEMORY USAGE key SAMPLES 0 (every element counted); 0 when the key is missing. */
    long keyBytes(String key) {
        Long v = sync.dispatch(CommandType.MEMORY, new IntegerOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(key).add("SAMPLES").add(0));
        return v == null ? 0 : v;
    }

    void resetStats() {
        sync.configResetstat();
    }

    void echo(String text) {
        sync.echo(text);
    }

    @Override
    public void close() {
        conn.close();
    }
}
