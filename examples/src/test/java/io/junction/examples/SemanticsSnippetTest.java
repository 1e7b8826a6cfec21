package io.junction.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

/**
 * docs/SEMANTICS.md's Java blocks are the examples' marked regions, line for line, as the README's are
 * ({@link ReadmeSnippetTest}), so the manual only shows code that compiles and runs: the block under
 * "### 10.6 A Java example" is {@link AsofJoinExample}'s region {@code asof}, which {@link #theAsofExamplePrintsWhatItsSectionSays}
 * runs.
 */
class SemanticsSnippetTest
{
    private static Path examplesDir()
    {
        final String value = System.getProperty("junction.examples.dir");
        assertNotNull(value, "junction.examples.dir is set by the examples module's Surefire configuration");
        return Path.of(value);
    }

    @Test
    void theAsofExamplePrintsWhatItsSectionSays()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream original = System.out;
        try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8))
        {
            System.setOut(capture);
            AsofJoinExample.main(new String[0]);
        }
        finally
        {
            System.setOut(original);
        }
        // The partitions' results arrive in any order across keys; one key's arrive in order.
        assertEquals(List.of("+I trade 1 bid 100", "-U trade 1 bid 100", "+U trade 1 bid 101", "+I trade 2 bid null"),
            bytes.toString(StandardCharsets.UTF_8).lines().toList());
    }
}
