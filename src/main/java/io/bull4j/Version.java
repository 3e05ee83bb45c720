package io.bull4j;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * bull4j's version, written to the queue's meta hash as {@code bull4j:<version>}. It comes from the build (the
 * pom's version, filtered into {@code version.properties}), so it can never drift from the artifact's.
 */
final class Version {
    static final String VALUE = read();

    private Version() {
    }

    private static String read() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String v = p.getProperty("version");
                if (v != null && !v.isBlank() && !v.startsWith("${")) {
                    return v.trim();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read io/bull4j/version.properties", e);
        }
        // a repackaged jar without the resource: the manifest's version, if it kept one
        String fromManifest = Version.class.getPackage().getImplementationVersion();
        return fromManifest != null ? fromManifest : "unknown";
    }
}
