package io.junction.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * docs/KAFKA.md's Java block under "Running Junction as a Kafka consumer group" is {@link KafkaJoinExample}'s marked
 * region, line for line (dedented), so the docs show code the tests run. When this fails, paste the region
 * into the block.
 */
final class KafkaReadmeExampleTest
{
    private static final String HEADING = "## Running Junction as a Kafka consumer group";
    private static final String BEGIN = "// --- the README block starts here";
    private static final String END = "// --- the README block ends here";

    @Test
    void readmeBlockIsTheExamplesRegion() throws IOException
    {
        final List<String> readme = Files.readAllLines(
            Path.of(System.getProperty("junction.kafka.doc", "../docs/KAFKA.md")), StandardCharsets.UTF_8);
        final int heading = readme.indexOf(HEADING);
        assertTrue(heading >= 0, "docs/KAFKA.md has the section '" + HEADING + "'");
        int line = heading + 1;
        while (line < readme.size() && !readme.get(line).equals("```java"))
        {
            assertTrue(!readme.get(line).startsWith("## "), "a ```java block under '" + HEADING + "'");
            line++;
        }
        final List<String> block = new ArrayList<>();
        for (line++; line < readme.size() && !readme.get(line).equals("```"); line++)
        {
            block.add(readme.get(line));
        }
        final List<String> source = Files.readAllLines(
            Path.of("src/test/java/io/junction/kafka/KafkaJoinExample.java"), StandardCharsets.UTF_8);
        final List<String> region = new ArrayList<>();
        boolean inside = false;
        for (final String s : source)
        {
            if (s.trim().equals(END))
            {
                break;
            }
            if (inside)
            {
                region.add(s.startsWith("        ") ? s.substring(8) : s.strip());
            }
            if (s.trim().equals(BEGIN))
            {
                inside = true;
            }
        }
        assertTrue(!region.isEmpty(), "KafkaJoinExample has its README region");
        assertEquals(String.join("\n", region), String.join("\n", block),
            "docs/KAFKA.md's Kafka block differs from KafkaJoinExample's region: paste the region into the block");
    }
}
