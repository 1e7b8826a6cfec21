package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import com.fasterxml.jackson.databind.JsonNode;
import io.junction.json.RowJson;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line's manners: an option error prints its message and "try --help", not the
 * whole usage; a failed command prints one line without Java exception names or stack traces; a file
 * that is not an .hlog is an error, not a table of zeros; the subcommand list names kafka.
 */
class CliMannersTest
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

    private void assertNoJavaNames()
    {
        final String text = err.toString();
        assertFalse(text.matches("(?s).*\\b(java|javax|picocli|io\\.junction)\\.[a-z.]*[A-Z]\\w*(Exception|Error)\\b.*"), text);
        assertFalse(text.contains("\tat "), "no stack trace: " + text);
        assertFalse(text.contains("Exception"), text);
    }

    @Test
    void shouldPrintTheMessageAndTryHelpForAnOptionError()
    {
        assertEquals(2, run("replay", "--partitions", "x", "a", "b"));
        final String text = err.toString();
        assertTrue(text.startsWith("junction replay: "), text);
        assertTrue(text.contains("--partitions"), text);
        assertTrue(text.strip().endsWith("try 'junction replay --help'"), text);
        assertFalse(text.contains("Usage:"), "not the whole usage: " + text);
        assertTrue(text.lines().count() <= 4, text);
        assertNoJavaNames();
    }

    @Test
    void shouldSuggestForAnUnknownSubcommandOrOption()
    {
        assertEquals(2, run("replya"));
        assertTrue(err.toString().contains("try 'junction --help'"), err.toString());
        assertFalse(err.toString().contains("Usage:"), err.toString());
    }

    @Test
    void shouldReportAMissingHlogWithoutAnExceptionName()
    {
        assertEquals(1, run("report", tmp.resolve("nope.hlog").toString()));
        assertTrue(err.toString().startsWith("junction report: no such file: "), err.toString());
        assertEquals("", out.toString(), "no table");
        assertNoJavaNames();
    }

    @Test
    void shouldRefuseAFileThatIsNotAnHlog() throws IOException
    {
        final Path text = Files.writeString(tmp.resolve("notes.txt"), "these are not latencies\n1 2 3\n");
        assertEquals(1, run("report", text.toString()));
        assertTrue(err.toString().contains("is not an HdrHistogram interval log") ||
            err.toString().contains("holds no latency values"), err.toString());
        assertEquals("", out.toString(), "no table of zeros");
        assertNoJavaNames();
    }

    @Test
    void shouldReportAMissingReplayInputWithoutAnExceptionName() throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        assertEquals(1, run("replay", spec.toString(), tmp.resolve("missing.events.jsonl").toString()));
        assertTrue(err.toString().contains("no such file: "), err.toString());
        assertNoJavaNames();
    }

    @Test
    void shouldListKafkaAmongTheSubcommands()
    {
        assertEquals(2, run());
        assertTrue(err.toString().contains("kafka"), err.toString());
        assertEquals(0, run("--help"));
        assertTrue(out.toString().contains("kafka"), out.toString());
    }

    @Test
    void shouldWriteTheHgrmAndJsonOfAReport() throws IOException
    {
        final Histogram histogram = new Histogram(3);
        for (long v = 1; v <= 1000; v++)
        {
            histogram.recordValue(v * 1000); // 1..1000 us, in ns
        }
        final Path log = tmp.resolve("run.hlog");
        try (PrintStream out = new PrintStream(log.toFile(), StandardCharsets.UTF_8))
        {
            final HistogramLogWriter writer = new HistogramLogWriter(out);
            writer.outputLogFormatVersion();
            writer.outputIntervalHistogram(histogram);
        }
        final Path hgrm = tmp.resolve("run.hgrm");
        final Path json = tmp.resolve("run.json");
        assertEquals(0, run("report", log.toString(), "--hgrm", hgrm.toString(), "--json", json.toString()), err.toString());
        final String distribution = Files.readString(hgrm);
        assertTrue(distribution.startsWith("# run.hlog") && distribution.contains("Value     Percentile"), distribution);
        final JsonNode result = RowJson.mapper().readTree(Files.readString(json));
        assertEquals("us", result.get("unit").textValue());
        final JsonNode series = result.get("series").get(0);
        assertEquals(1000, series.get("count").asLong());
        assertEquals(500, series.get("p50").asDouble(), 1.0);
        assertEquals(1000, series.get("max").asDouble(), 1.0);
    }

    @Test
    void shouldWriteTheHgrmAndJsonOfALoadgenRun() throws IOException
    {
        final Path hgrm = tmp.resolve("load.hgrm");
        final Path json = tmp.resolve("load.json");
        assertEquals(0, run("loadgen", "--workload", "W1", "--events", "5000", "--warmup", "0", "--quiet",
            "--hgrm", hgrm.toString(), "--json", json.toString()), err.toString());
        final String distribution = Files.readString(hgrm);
        assertTrue(distribution.startsWith("# ") && distribution.contains("Value     Percentile"), distribution);
        assertTrue(distribution.contains("# floor: bare hand-off"), "the floor's block too: " + distribution);
        final JsonNode result = RowJson.mapper().readTree(Files.readString(json));
        assertEquals("left", result.get("type").textValue());
        assertTrue(result.get("events").asLong() >= 5000, "the prefix and the end of input: " + result);
        assertTrue(result.get("eventsPerSecond").asDouble() > 0, result.toString());
        assertEquals(result.get("expectedOutputRows").asLong(), result.get("outputRows").asLong(), result.toString());
        assertEquals("us", result.get("unit").textValue());
        assertTrue(result.get("latency").get("count").asLong() > 0, result.toString());
        assertTrue(result.get("latency").get("p99").asDouble() <= result.get("latency").get("max").asDouble(), result.toString());
        assertTrue(result.get("floor").get("count").asLong() > 0, result.toString());
    }
}
