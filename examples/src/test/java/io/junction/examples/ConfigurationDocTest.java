package io.junction.examples;

import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** docs/CONFIGURATION.md's property table names exactly the properties the engine reads. */
class ConfigurationDocTest
{
    @Test
    void shouldDocumentEveryPropertyAndNoOther() throws IOException
    {
        final String readme = System.getProperty("junction.readme");
        assertNotNull(readme, "junction.readme is set by the examples module's Surefire configuration");
        final Path doc = Path.of(readme).toAbsolutePath().getParent().resolve("docs/CONFIGURATION.md");
        final Set<String> documented = new TreeSet<>();
        final Pattern name = Pattern.compile("`(junction\\.[A-Za-z.]+)`");
        for (final String line : Files.readAllLines(doc, StandardCharsets.UTF_8))
        {
            if (line.startsWith("| `junction."))
            {
                final String firstCell = line.substring(1, line.indexOf('|', 1));
                final Matcher m = name.matcher(firstCell);
                while (m.find())
                {
                    documented.add(m.group(1));
                }
            }
        }
        final Set<String> known = new TreeSet<>(EngineConfig.PROPERTY_NAMES);
        known.addAll(StateConfig.PROPERTY_NAMES);
        assertEquals(known, documented, "the property table of docs/CONFIGURATION.md against EngineConfig.PROPERTY_NAMES " +
            "and StateConfig.PROPERTY_NAMES");
    }
}
