package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import io.junction.tools.JunctionCli;
import io.junction.tools.perf.LatencyReport;
import io.junction.tools.replay.ReplayComparison;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line in-process: help, replay's exit codes and files, and the demo's mechanics. */
class JunctionCliTest
{
    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private static Path cases()
    {
        final String configured = System.getProperty("junction.cases.dir");
        return configured != null ? Paths.get(configured) : Paths.get("..", "conformance", "cases");
    }

    @Test
    void helpListsTheCommands()
    {
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("replay"), out.toString());
        assertTrue(out.toString().contains("demo"), out.toString());
        assertEquals(0, run("replay", "--help"));
        assertTrue(out.toString().contains("--dead-letter"), out.toString());
    }

    @Test
    void loadgenRefusesAUniqueKeyOnAnIntervalJoinBeforeGenerating()
    {
        assertEquals(2, run("loadgen", "--workload", "W1", "--unique-key", "--no-floor", "--quiet"));
        assertTrue(err.toString().contains("--unique-key is for the regular joins"), err.toString());
        assertEquals(0, run("loadgen", "--help"));
        assertTrue(out.toString().contains("--[no-]unique-key"), out.toString());
    }

    @Test
    void replaysACaseIntoFiles() throws IOException
    {
        final String name = "show_click_regular_left";
        final Path results = tmp.resolve("out.jsonl");
        final Path deadLetters = tmp.resolve("dead.jsonl");
        assertEquals(0, run("replay", cases().resolve(name + ".join.json").toString(),
            cases().resolve(name + ".events.jsonl").toString(), "--partitions", "2",
            "--out", results.toString(), "--dead-letter", deadLetters.toString()), err.toString());
        final ReplayComparison c = ReplayComparison.outputs(ReplayComparison.Mode.STEP, JoinKind.REGULAR,
            Files.readAllLines(cases().resolve(name + ".expected.jsonl"), StandardCharsets.UTF_8),
            Files.readAllLines(results, StandardCharsets.UTF_8));
        assertTrue(c.matches(), c.describe());
        assertEquals(List.of(), Files.readAllLines(deadLetters, StandardCharsets.UTF_8));
    }

    @Test
    void writesToStdoutAndStderrByDefault() throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"),
            "{\"side\":\"left\",\"row\":{\"k\":1}}\nnot json\n{\"side\":\"right\",\"row\":{\"k\":1}}\n");
        assertEquals(0, run("replay", spec.toString(), events.toString(), "--partitions", "1", "--wait-strategy", "blocking"));
        assertEquals("{\"step\":2,\"op\":\"+I\",\"left\":{\"k\":1},\"right\":{\"k\":1}}\n", out.toString());
        assertTrue(err.toString().contains("\"step\":1") && err.toString().contains("\"line\":\"not json\""), err.toString());
    }

    @Test
    void replayStatsPrintsEachPartitionsCountersAndHotKeysToStderr() throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final StringBuilder events = new StringBuilder();
        for (int i = 0; i < 10; i++)
        {
            events.append("{\"side\":\"left\",\"row\":{\"k\":\"hot\",\"v\":").append(i).append("}}\n");
        }
        events.append("{\"side\":\"left\",\"row\":{\"k\":\"cold\"}}\n");
        for (int i = 0; i < 3; i++)
        {
            events.append("{\"side\":\"right\",\"row\":{\"k\":\"hot\",\"w\":").append(i).append("}}\n");
        }
        final Path log = Files.writeString(tmp.resolve("e.events.jsonl"), events.toString());
        assertEquals(0, run("replay", spec.toString(), log.toString(), "--partitions", "1", "--stats",
            "--out", tmp.resolve("out.jsonl").toString()), err.toString());
        final String stats = err.toString();
        assertTrue(stats.contains("partition 0: rowsIn=14 rowsOut=30 "), stats);
        assertTrue(stats.contains("partition 0, by rows visited:\n   1  key=\"hot\" visited=30 stored=13 live=13 error=0 "), stats);
        assertTrue(stats.contains("   2  key=\"cold\" visited=0 stored=1 live=1 error=0 "), stats);
        assertEquals(0, run("replay", spec.toString(), log.toString(), "--partitions", "1",
            "--out", tmp.resolve("out2.jsonl").toString()));
        assertFalse(err.toString().substring(stats.length()).contains("hot keys"), "only with --stats");
    }

    @Test
    void exitCodesSayWhatWentWrong() throws IOException
    {
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), "");
        final Path badSpec = Files.writeString(tmp.resolve("bad.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\",\"j\"]}");
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", badSpec.toString(), events.toString()));
        assertTrue(err.toString().contains("rightKey"), err.toString());
        assertEquals(ReplayCommand.EXIT_IO, run("replay", tmp.resolve("missing.join.json").toString(), events.toString()));
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        assertEquals(ReplayCommand.EXIT_IO, run("replay", spec.toString(), tmp.resolve("missing.events.jsonl").toString()));
        assertEquals(2, run("replay", spec.toString(), events.toString(), "--wait-strategy", "lazy"), "usage error");
        assertEquals(ReplayCommand.EXIT_OK, run("replay", spec.toString(), events.toString()));
        final Path emptyIn = Files.writeString(tmp.resolve("in.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"leftFilter\":[{\"field\":\"s\",\"op\":\"in\",\"value\":[]}]}");
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", emptyIn.toString(), events.toString()));
        assertTrue(err.toString().contains("leftFilter[0].value"), err.toString());
    }

    @Test
    void refusesOutAndDeadLetterNamingOneFile() throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), "{\"side\":\"left\",\"row\":{\"k\":1}}\n");
        final Path same = tmp.resolve("both.jsonl");
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", spec.toString(), events.toString(),
            "--out", same.toString(), "--dead-letter", same.toString()));
        assertTrue(err.toString().contains("same file"), err.toString());
        assertFalse(Files.exists(same), "nothing ran, nothing was written");
        Files.createDirectories(tmp.resolve("sub"));
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", spec.toString(), events.toString(),
            "--out", same.toString(), "--dead-letter", tmp.resolve("sub").resolve("..").resolve("both.jsonl").toString()),
            "another spelling of the same path");
        Files.writeString(same, "keep");
        final Path link = Files.createSymbolicLink(tmp.resolve("link.jsonl"), same);
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", spec.toString(), events.toString(),
            "--out", link.toString(), "--dead-letter", same.toString()), "a link to it");
        assertEquals("keep", Files.readString(same));
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", spec.toString(), events.toString(),
            "--out", events.toString()), "an output over an input");
        assertEquals(ReplayCommand.EXIT_OK, run("replay", spec.toString(), events.toString(),
            "--out", tmp.resolve("o.jsonl").toString(), "--dead-letter", tmp.resolve("d.jsonl").toString()), err.toString());
    }

    @Test
    void rejectsHostileSpecsAndOptionsWithExitTwoAndNoStackTrace() throws IOException
    {
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), "");
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final Path nested = Files.writeString(tmp.resolve("nested.join.json"), "[".repeat(10_000) + "]".repeat(10_000));
        final StringBuilder filters = new StringBuilder(
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"leftFilter\":[");
        for (int i = 0; i < 5_000; i++)
        {
            filters.append(i == 0 ? "" : ",").append("{\"field\":\"f").append(i).append("\",\"op\":\"==\",\"value\":1}");
        }
        final Path wide = Files.writeString(tmp.resolve("wide.join.json"), filters.append("]}"));
        final String[][] runs = {
            {"replay", nested.toString(), events.toString()},
            {"replay", wide.toString(), events.toString()},
            {"replay", spec.toString(), events.toString(), "--max-keys", "1e12"},
            {"replay", spec.toString(), events.toString(), "--max-keys", "1000000000000"},
            {"replay", spec.toString(), events.toString(), "--max-keys", "0"},
            {"replay", spec.toString(), events.toString(), "--max-keys", "16777216", "--partitions", "2"},
            {"replay", spec.toString(), events.toString(), "--partitions", "100000"},
            {"replay", spec.toString(), events.toString(), "--slot-capacity", "1000000"},
        };
        for (final String[] args : runs)
        {
            err.getBuffer().setLength(0);
            assertEquals(ReplayCommand.EXIT_SPEC, run(args), String.join(" ", args) + "\n" + err);
            assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
            assertFalse(err.toString().isBlank(), "a message says why");
        }
    }

    @Test
    void demoRunsTheRegularJoinVariant()
    {
        final Path dir = tmp.resolve("regular");
        assertEquals(0, run("demo", "--join", "regular", "--impressions", "5000", "--partitions", "2", "--out", dir.toString()),
            out + "\n" + err);
        final String report = out.toString();
        assertTrue(report.contains("every impression exactly once") && report.contains("(OK)"), report);
        assertTrue(report.contains("p99.9"), report);
        assertTrue(Files.isRegularFile(dir.resolve("latency.svg")), report);
    }

    @Test
    void demoRunsTheIntervalJoinInTwoPhasesAndWritesItsPlot() throws IOException
    {
        final Path dir = tmp.resolve("demo");
        assertEquals(0, run("demo", "--impressions", "5000", "--partitions", "2", "--out", dir.toString(), "--rate", "50000"),
            out + "\n" + err);
        final String report = out.toString();
        assertTrue(report.contains("(OK)"), report);
        assertTrue(report.contains("output rows: 5,000"), "append-only: one row per impression\n" + report);
        assertTrue(report.contains("phase 2, latency") && report.contains("fixed 50,000 events/s"), report);
        assertTrue(report.contains("floor (bare Disruptor hand-off)"), report);
        assertTrue(report.contains("engine ready in"), report);
        final String lastLine = report.strip().substring(report.strip().lastIndexOf('\n') + 1);
        assertTrue(lastLine.startsWith("summary: ") && lastLine.contains(dir.resolve("latency.svg").toString()), lastLine);

        // the engine's log holds the measured results; the floor's log and the plot name both lines
        final Histogram engine = LatencyReport.readLog(dir.resolve("latency.hlog"));
        assertTrue(engine.getTotalCount() > 0, "results in " + dir.resolve("latency.hlog"));
        assertTrue(LatencyReport.readLog(dir.resolve("floor.hlog")).getTotalCount() > 0);
        final String svg = Files.readString(dir.resolve("latency.svg"));
        assertTrue(svg.startsWith("<svg") && svg.contains("floor: bare Disruptor hand-off") && svg.contains("50,000 ev/s"), svg);
    }

    @Test
    void demoRefusesANonPositiveLatencyPhase()
    {
        assertEquals(2, run("demo", "--latency-seconds", "0"));
        assertTrue(err.toString().contains("latency seconds"), err.toString());
    }
}
