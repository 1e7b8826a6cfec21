package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The replay honours a spec's {@code "maxFanOut"} (docs/SEMANTICS.md 1.5): a row past it is a {@code fanout_exceeded}
 * dead letter and emits nothing; without the field the same log emits every line.
 */
class ReplayFanOutTest
{
    @TempDir
    Path tmp;

    private static final String MULTI = "{\"join\":\"multi\",\"inputs\":[{\"name\":\"a\",\"key\":[\"k\"]}," +
        "{\"name\":\"b\",\"key\":[\"k\"],\"type\":\"inner\"},{\"name\":\"c\",\"key\":[\"k\"],\"type\":\"inner\"}]";

    /** Two rows of key 1 in b and in c, then one in a: it joins 2 x 2 = 4 combinations. */
    private static final String EVENTS = String.join("\n",
        "{\"side\":\"b\",\"op\":\"+I\",\"ts\":1,\"row\":{\"k\":1,\"id\":1}}",
        "{\"side\":\"b\",\"op\":\"+I\",\"ts\":1,\"row\":{\"k\":1,\"id\":2}}",
        "{\"side\":\"c\",\"op\":\"+I\",\"ts\":1,\"row\":{\"k\":1,\"id\":3}}",
        "{\"side\":\"c\",\"op\":\"+I\",\"ts\":1,\"row\":{\"k\":1,\"id\":4}}",
        "{\"side\":\"a\",\"op\":\"+I\",\"ts\":1,\"row\":{\"k\":1,\"id\":5}}") + "\n";

    private String[] replay(final String spec) throws IOException
    {
        final Path specFile = Files.writeString(tmp.resolve("s.join.json"), spec);
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), EVENTS);
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        assertEquals(0, cli.execute("replay", specFile.toString(), events.toString(), "--partitions", "1"), err.toString());
        return new String[] {out.toString(), err.toString()};
    }

    @Test
    void aRowPastTheSpecsBudgetIsAFanOutDeadLetter() throws IOException
    {
        final String[] unbounded = replay(MULTI + "}");
        assertEquals(4, unbounded[0].lines().count(), unbounded[0]);
        final String[] atBudget = replay(MULTI + ",\"maxFanOut\":4}");
        assertEquals(unbounded[0], atBudget[0], "at the budget the output is the same");
        final String[] bounded = replay(MULTI + ",\"maxFanOut\":3}");
        assertEquals("", bounded[0], "the refused row emitted nothing");
        assertTrue(bounded[1].contains("\"code\":\"fanout_exceeded\""), bounded[1]);
        assertTrue(bounded[1].contains("\"step\":4,"), bounded[1]);
        assertTrue(bounded[1].contains("1 dead letter (fanout_exceeded 1)"), bounded[1]);
    }
}
