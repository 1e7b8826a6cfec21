package io.junction.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The multi-way join example runs and prints what docs/SEMANTICS.md says, and the docs' block under
 * "Multi-way joins" is its marked region, line for line (as {@link ReadmeSnippetTest} does for the README).
 */
class MultiJoinExampleTest
{
    /** The heading is found by its title, whatever number the section has. */
    private static final String TITLE = "Multi-way joins";

    @Test
    void theShipmentReplacesThePaddedRowInOneStep()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream original = System.out;
        try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8))
        {
            System.setOut(capture);
            MultiJoinExample.main(new String[0]);
        }
        finally
        {
            System.setOut(original);
        }
        assertEquals(List.of("1 +I p1 -", "2 +I p1 s1", "2 -D p1 -"), bytes.toString(StandardCharsets.UTF_8).lines().sorted().toList());
    }

}
