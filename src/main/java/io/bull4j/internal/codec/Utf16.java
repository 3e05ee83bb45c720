package io.bull4j.internal.codec;

/**
 * Lone UTF-16 surrogates in text that bull4j writes, handled as BullMQ's Node client handles them: JSON escapes
 * them ({@link #jsonLikeNode}), and a plain string argument (a log line, a failed reason) carries U+FFFD in their
 * place ({@link #replaceLoneSurrogates}), as Node's UTF-8 encoder does for every string it sends to Redis.
 */
public final class Utf16 {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private Utf16() {
    }

    /** Index of the first lone surrogate at or after {@code from}, or -1. */
    static int loneSurrogate(CharSequence s, int from) {
        for (int i = from, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** {@code s} with each lone surrogate replaced by U+FFFD; {@code s} itself when it has none. */
    public static String replaceLoneSurrogates(String s) {
        if (s == null || loneSurrogate(s, 0) < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder(s);
        for (int i = loneSurrogate(s, 0); i >= 0; i = loneSurrogate(s, i + 1)) {
            out.setCharAt(i, '\uFFFD');
        }
        return out.toString();
    }

    /**
     * JSON text as {@code JSON.stringify} writes the same value: a lone surrogate (which Jackson writes raw, and
     * UTF-8 cannot carry) becomes an escape such as <code>&#92;ud800</code>, and escapes use lower-case hex
     * digits. Outside string literals JSON has no such characters, so a plain scan that skips existing escapes is
     * enough. Returns {@code json} itself when nothing changes.
     */
    public static String jsonLikeNode(String json) {
        int first = firstChange(json);
        if (first < 0) {
            return json;
        }
        StringBuilder out = new StringBuilder(json.length() + 16);
        out.append(json, 0, first);
        int n = json.length();
        for (int i = first; i < n; i++) {
            char c = json.charAt(i);
            if (c == '\\' && i + 1 < n) {
                char e = json.charAt(i + 1);
                out.append(c).append(e);
                i++;
                if (e == 'u' && i + 4 < n) {
                    for (int k = 1; k <= 4; k++) {
                        out.append(Character.toLowerCase(json.charAt(i + k)));
                    }
                    i += 4;
                }
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(json.charAt(i + 1))) {
                out.append(c).append(json.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xF]).append(HEX[(c >> 4) & 0xF])
                        .append(HEX[c & 0xF]);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** The first index where {@link #jsonLikeNode} changes something, or -1. */
    private static int firstChange(String json) {
        int n = json.length();
        for (int i = 0; i < n; i++) {
            char c = json.charAt(i);
            if (c == '\\' && i + 1 < n) {
                if (json.charAt(i + 1) == 'u' && hasUpperHex(json, i + 2)) {
                    return i;
                }
                i += json.charAt(i + 1) == 'u' ? 5 : 1;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(json.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean hasUpperHex(String s, int from) {
        for (int k = from; k < from + 4 && k < s.length(); k++) {
            char h = s.charAt(k);
            if (h >= 'A' && h <= 'F') {
                return true;
            }
        }
        return false;
    }
    /**
     * JSON text with each surrogate escape (<code>&#92;ud800</code> to <code>&#92;udfff</code>) replaced by the raw
     * char it stands for, which is what parsing it yields anyway. {@code JSON.stringify} escapes a lone surrogate;
     * Jackson (2.23; 2.21.3 did not) refuses such an escape inside an object key but read the raw char, so readers pass the
     * text through this first. Returns {@code json} itself when it has no such escape (the common case: one scan).
     */
    public static String rawSurrogateEscapes(String json) {
        int first = surrogateEscape(json, 0);
        if (first < 0) {
            return json;
        }
        StringBuilder out = new StringBuilder(json.length());
        int copied = 0;
        for (int i = first; i >= 0; i = surrogateEscape(json, i + 6)) {
            out.append(json, copied, i).append((char) Integer.parseInt(json, i + 2, i + 6, 16));
            copied = i + 6;
        }
        return out.append(json, copied, json.length()).toString();
    }

    /** Index of the next surrogate escape at or after {@code from} (a backslash that is not itself escaped), or -1. */
    private static int surrogateEscape(String json, int from) {
        int n = json.length();
        for (int i = json.indexOf('\\', from); i >= 0 && i + 1 < n; i = json.indexOf('\\', i)) {
            if (json.charAt(i + 1) == 'u' && i + 5 < n && isSurrogateHex(json, i + 2)) {
                return i;
            }
            i += 2; // the escaped char (a second backslash too) is never the start of an escape
        }
        return -1;
    }

    private static boolean isSurrogateHex(String s, int at) {
        char a = s.charAt(at);
        char b = s.charAt(at + 1);
        if ((a != 'd' && a != 'D') || !(b >= '8' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F')) {
            return false;
        }
        for (int k = at + 2; k < at + 4; k++) {
            if (Character.digit(s.charAt(k), 16) < 0) {
                return false;
            }
        }
        return true;
    }
}
