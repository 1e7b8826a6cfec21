package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import io.junction.tools.JunctionCli;
import io.junction.tools.replay.ReplayComparison;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code junction replay} of a multi-way join (SEMANTICS 10): the worked case through the command line, and a rejected spec. */
class MultiJoinCliTest
{
    @TempDir
    Path tmp;

    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private static Path cases()
    {
        final String configured = System.getProperty("junction.cases.dir");
        return configured != null ? Paths.get(configured) : Paths.get("..", "conformance", "cases");
    }

    @Test
    void theWorkedCaseReplaysThroughTheCommandLine() throws IOException
    {
        final String name = "multi_orders_payments_shipments";
        final Path out = tmp.resolve("out.jsonl");
        final Path dead = tmp.resolve("dead.jsonl");
        assertEquals(ReplayCommand.EXIT_OK, run("replay", cases().resolve(name + ".join.json").toString(),
            cases().resolve(name + ".events.jsonl").toString(), "--partitions", "3", "--out", out.toString(),
            "--dead-letter", dead.toString()), err.toString());
        final ReplayComparison output = ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.MULTI,
            Files.readAllLines(cases().resolve(name + ".expected.jsonl"), StandardCharsets.UTF_8),
            Files.readAllLines(out, StandardCharsets.UTF_8));
        assertTrue(output.matches(), output.describe());
        final ReplayComparison deadLetters = ReplayComparison.deadLetters(
            Files.readAllLines(cases().resolve(name + ".deadletter.jsonl"), StandardCharsets.UTF_8),
            Files.readAllLines(dead, StandardCharsets.UTF_8));
        assertTrue(deadLetters.matches(), deadLetters.describe());
    }

    @Test
    void aRejectedMultiSpecExitsTwoNamingTheField() throws IOException
    {
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), "");
        final Path spec = Files.writeString(tmp.resolve("bad.join.json"), "{\"join\":\"multi\",\"inputs\":[" +
            "{\"name\":\"a\",\"key\":[\"k\"]},{\"name\":\"b\",\"key\":[\"k\"],\"type\":\"left\",\"colour\":1}]}");
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", spec.toString(), events.toString()));
        assertTrue(err.toString().contains("inputs[1].colour"), err.toString());
    }
}
