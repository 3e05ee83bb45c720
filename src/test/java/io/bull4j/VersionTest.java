package io.bull4j;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import java.nio.file.Path;

import static io.bull4j.TestSupport.*;
import static org.junit.jupiter.api.Assertions.*;

/** The version bull4j reports comes from the build: the pom's, never a second copy in the code. */
class VersionTest {
    @Test
    void versionIsThePomsAndQueuesWriteIt() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        String pomVersion = XPathFactory.newInstance().newXPath().evaluate("/project/version", pom).trim();
        assertFalse(pomVersion.isEmpty());
        assertEquals(pomVersion, Version.VALUE);

        String q = queueName("version");
        try (Queue ignored = new Queue(q, queueOptions())) {
            assertEquals("bull4j:" + pomVersion, redis().hget("bull:" + q + ":meta", "version"));
        }
    }
}
