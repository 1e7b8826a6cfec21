package io.junction.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's Java API snippet, run: it must join the click to its show and pad the unclicked show. */
class QuickStartTest
{
    private static String runMain()
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream original = System.out;
        try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8))
        {
            System.setOut(capture);
            QuickStart.main(new String[0]);
        }
        finally
        {
            System.setOut(original);
        }
        final String output = bytes.toString(StandardCharsets.UTF_8);
        original.print(output);
        return output;
    }

    private static long sum(final String output, final String counter)
    {
        final Matcher matcher = Pattern.compile("\\b" + counter + "=(\\d+)").matcher(output);
        long total = 0;
        int partitions = 0;
        while (matcher.find())
        {
            total += Long.parseLong(matcher.group(1));
            partitions++;
        }
        assertEquals(2, partitions, "one metrics line per partition in:\n" + output);
        return total;
    }

    @Test
    void shouldEmitOnePairAndOnePaddedShowAndPrintTheMetrics()
    {
        final String output = runMain();

        assertTrue(output.contains("results 2, p99 ns "), "a pair (id-1) and a padded show (id-2):\n" + output);
        assertEquals(3, sum(output, "rowsIn"), "three rows published, none lost:\n" + output);
        assertEquals(2, sum(output, "rowsOut"), output);
        assertEquals(0, sum(output, "late"), output);
    }
}
