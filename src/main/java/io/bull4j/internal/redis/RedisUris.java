package io.bull4j.internal.redis;

import io.bull4j.ValidationException;
import io.lettuce.core.RedisURI;

import java.util.List;

/**
 * Checks a Redis URI before Lettuce parses it, so that a mistake is refused with a {@link ValidationException} naming
 * the bad part instead of reaching a connection attempt: Lettuce's {@link RedisURI#create} takes
 * {@code redis://localhost:notaport} as the host {@code localhost:notaport} on port 6379, and a port of 0 as none.
 * The messages never repeat the URI itself, which may carry a password.
 */
public final class RedisUris {
    /** The schemes Lettuce knows for one server (host and port). */
    private static final List<String> HOST_SCHEMES = List.of("redis", "rediss", "redis+ssl", "redis+tls");
    /** Unix domain socket schemes: a path, no host. */
    private static final List<String> SOCKET_SCHEMES = List.of("redis-socket", "redis+socket");
    /** Sentinel schemes: one or more comma-separated hosts, and the master's id as the fragment. */
    private static final List<String> SENTINEL_SCHEMES = List.of("redis-sentinel", "rediss-sentinel");

    private RedisUris() {
    }

    /**
     * Parses {@code uri} for a connection, refusing what Lettuce would accept but could never connect with.
     *
     * @param field the name of the caller's parameter, for the exception
     * @throws ValidationException naming {@code field} and the bad part
     */
    public static RedisURI parse(String field, String uri) {
        ValidationException.check(uri != null && !uri.isBlank(), field, "must not be blank");
        int sep = uri.indexOf("://");
        ValidationException.check(sep > 0, field, "has no scheme: expected redis://host[:port][/db], rediss://, "
                + "redis-socket:// or redis-sentinel://");
        String scheme = uri.substring(0, sep); // case-sensitive, as Lettuce reads it
        String rest = uri.substring(sep + 3);
        if (SOCKET_SCHEMES.contains(scheme)) {
            ValidationException.check(!rest.isEmpty() && !rest.startsWith("?"), field,
                    "scheme " + scheme + " needs a socket path");
        } else if (HOST_SCHEMES.contains(scheme) || SENTINEL_SCHEMES.contains(scheme)) {
            try {
                checkAuthority(field, scheme, rest);
            } catch (ValidationException e) {
                // a password with an unencoded '/', '?' or '#' ends the authority early, and what this names as
                // the host or port is then part of it
                throw rest.indexOf('@', authorityEnd(rest)) >= 0 ? withCredentials(field) : e;
            }
        } else {
            throw new ValidationException(field, "unknown scheme '" + printable(scheme) + "': expected one of "
                    + String.join(", ", HOST_SCHEMES) + ", " + String.join(", ", SOCKET_SCHEMES) + ", "
                    + String.join(", ", SENTINEL_SCHEMES));
        }
        try {
            return RedisURI.create(uri);
        } catch (IllegalArgumentException e) {
            // NumberFormatException included; java.net.URI's messages repeat the whole URI, password included
            throw rest.indexOf('@') >= 0 ? withCredentials(field)
                    : new ValidationException(field, "cannot be parsed: " + e.getMessage());
        }
    }

    /** For a URI with credentials that cannot be read: nothing of it is repeated. */
    private static ValidationException withCredentials(String field) {
        return new ValidationException(field, "cannot be parsed (not repeated here: it holds credentials); "
                + "percent-encode the user name and password (a '/', '?', '#', '%', '@' or space in them as %2F, "
                + "%3F, %23, %25, %40, %20), and check the host, port and database");
    }

    /** The hosts, ports and database of a host or sentinel URI ({@code rest} is what follows {@code ://}). */
    private static void checkAuthority(String field, String scheme, String rest) {
        int end = authorityEnd(rest);
        String authority = rest.substring(0, end);
        int at = authority.lastIndexOf('@');
        String hosts = at >= 0 ? authority.substring(at + 1) : authority;
        boolean sentinel = SENTINEL_SCHEMES.contains(scheme);
        for (String hostPort : sentinel ? hosts.split(",", -1) : new String[] {hosts}) {
            checkHostPort(field, hostPort);
        }
        if (end < rest.length() && rest.charAt(end) == '/') {
            int pathEnd = rest.length();
            for (char c : new char[] {'?', '#'}) {
                int i = rest.indexOf(c, end);
                if (i >= 0 && i < pathEnd) {
                    pathEnd = i;
                }
            }
            String db = rest.substring(end + 1, pathEnd);
            if (!db.isEmpty()) {
                ValidationException.check(db.chars().allMatch(ch -> ch >= '0' && ch <= '9') && db.length() <= 9,
                        field, "database '" + printable(db) + "' is not a number from 0");
            }
        }
    }

    /** Where the authority of {@code rest} (what follows {@code ://}) ends: its first '/', '?' or '#'. */
    private static int authorityEnd(String rest) {
        int end = rest.length();
        for (char c : new char[] {'/', '?', '#'}) {
            int i = rest.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        return end;
    }

    private static void checkHostPort(String field, String hostPort) {
        String host;
        String port;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            ValidationException.check(close > 1, field, "host '" + printable(hostPort)
                    + "' opens an IPv6 address with '[' and does not close it");
            host = hostPort.substring(0, close + 1);
            String after = hostPort.substring(close + 1);
            ValidationException.check(after.isEmpty() || after.startsWith(":"), field, "host '"
                    + printable(hostPort) + "' has something other than ':port' after its IPv6 address");
            port = after.isEmpty() ? "" : after.substring(1);
        } else {
            int colon = hostPort.indexOf(':');
            host = colon >= 0 ? hostPort.substring(0, colon) : hostPort;
            port = colon >= 0 ? hostPort.substring(colon + 1) : "";
        }
        ValidationException.check(!host.isEmpty(), field, "has no host");
        if (!port.isEmpty()) {
            boolean digits = port.chars().allMatch(ch -> ch >= '0' && ch <= '9');
            ValidationException.check(digits, field, "port '" + printable(port) + "' of host '" + printable(host)
                    + "' is not a number (IPv6 addresses are written in brackets: [::1]:6379)");
            boolean inRange = port.length() <= 5 && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535;
            ValidationException.check(inRange, field, "port " + printable(port) + " of host '" + printable(host)
                    + "' is out of range (1 - 65535)");
        }
    }

    /** At most 64 characters of user input, for a message. */
    private static String printable(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
