package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.tools.JunctionCli;
import io.junction.json.RowJson;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import io.junction.api.JoinSpec;

/**
 * No silent wrong result from a misspelt field in replay (point 2): a spec field no row carries
 * ends the run with a warning naming it and exit status 5; {@code --strict} refuses up front;
 * {@code --fields} declares the rows (typed); every run ends with a one-line summary; dead-letter lines
 * carry a machine-readable {@code "code"} beside the free-text {@code "reason"}.
 */
class ReplayFieldsTest
{
    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private static final String EVENTS = String.join("\n",
        "{\"side\":\"left\",\"op\":\"+I\",\"ts\":1,\"row\":{\"log_id\":\"a\",\"v\":1}}",
        "{\"side\":\"right\",\"op\":\"+I\",\"ts\":2,\"row\":{\"log_id\":\"a\",\"w\":2}}",
        "{\"side\":\"left\",\"op\":\"+I\",\"ts\":3,\"row\":{\"log_id\":\"b\",\"v\":\"x\"}}",
        "not json",
        "{\"watermark\":10}") + "\n";

    private int run(final String... args)
    {
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private String[] files(final String leftKey) throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("s.join.json"),
            "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"" + leftKey + "\"],\"rightKey\":[\"log_id\"]}");
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), EVENTS);
        return new String[] {spec.toString(), events.toString()};
    }

    private List<String> errLines()
    {
        return List.of(err.toString().split("\n"));
    }

    private static String lastLine(final List<String> lines)
    {
        return lines.get(lines.size() - 1);
    }

    @Test
    void shouldWarnAndExit5WhenNoRowCarriesASpecField() throws IOException
    {
        final String[] files = files("logid");
        assertEquals(ReplayCommand.EXIT_FIELDS_NOT_CARRIED, run("replay", files[0], files[1], "--partitions", "1"), err.toString());
        final String warning = lastLine(errLines());
        assertTrue(warning.startsWith("junction replay: warning: ") && warning.contains("[logid]"), warning);
        // the output is still written (padded: what the misspelt name gives)
        assertEquals(2, out.toString().lines().count(), out.toString());
    }

    @Test
    void shouldRefuseUpFrontWithStrict() throws IOException
    {
        final String[] files = files("logid");
        assertEquals(ReplayCommand.EXIT_FIELDS_NOT_CARRIED, run("replay", files[0], files[1], "--strict"));
        assertTrue(err.toString().contains("refused (--strict)") && err.toString().contains("[logid]"), err.toString());
        assertEquals("", out.toString(), "nothing ran");
    }

    @Test
    void shouldExit0AndPrintTheSummaryWhenEveryFieldIsCarried() throws IOException
    {
        final String[] files = files("log_id");
        assertEquals(0, run("replay", files[0], files[1], "--strict"), err.toString());
        final List<String> lines = errLines();
        assertEquals("junction replay: 5 events, 4 outputs, 1 dead letter (bad_input 1)", lastLine(lines));
        final JsonNode deadLetter = RowJson.mapper().readTree(lines.get(0));
        assertEquals("bad_input", deadLetter.get("code").textValue(), deadLetter.toString());
        assertTrue(deadLetter.get("reason").textValue().startsWith("line 4:"), deadLetter.toString());
    }

    @Test
    void shouldDeclareTypedRowsWithFields() throws IOException
    {
        final String[] files = files("log_id");
        final Path dead = tmp.resolve("dead.jsonl");
        assertEquals(0, run("replay", files[0], files[1], "--fields", "log_id:string!,v:long,w", "--dead-letter", dead.toString()),
            err.toString());
        final List<String> codes = new ArrayList<>();
        for (final String line : Files.readAllLines(dead))
        {
            codes.add(RowJson.mapper().readTree(line).get("code").textValue());
        }
        assertEquals(List.of("schema_mismatch", "bad_input"), codes, "the string v of step 2 is refused, never joined");
        assertEquals("junction replay: 5 events, 3 outputs, 2 dead letters (bad_input 1, schema_mismatch 1)", lastLine(errLines()));
        final String reason = RowJson.mapper().readTree(Files.readAllLines(dead).get(0)).get("reason").textValue();
        assertTrue(reason.endsWith(": field 'v' is declared long but the row has a string"), "names the field and why: " + reason);
        assertEquals(3, out.toString().lines().count(), "a padded, then retracted and joined; b never: " + out);
    }

    @Test
    void shouldRejectASpecFieldThatFieldsDoesNotDeclare() throws IOException
    {
        final String[] files = files("logid");
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", files[0], files[1], "--fields", "log_id,v,w"));
        assertTrue(err.toString().contains("logid"), err.toString());
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", files[0], files[1], "--fields", "log_id:int"));
        assertTrue(err.toString().contains("must be long, double, boolean or string"), err.toString());
        assertFalse(err.toString().contains("Exception"), err.toString());
    }

    @Test
    void shouldCodeARowFieldThatFieldsDoesNotDeclareAsASchemaMismatch() throws IOException
    {
        final String[] files = files("log_id");
        final Path dead = tmp.resolve("dead.jsonl");
        assertEquals(0, run("replay", files[0], files[1], "--fields", "log_id,v", "--dead-letter", dead.toString()), err.toString());
        final JsonNode first = RowJson.mapper().readTree(Files.readAllLines(dead).get(0));
        assertEquals("schema_mismatch", first.get("code").textValue(), first.toString());
        assertEquals(1, first.get("step").asLong());
    }

    @Test
    void shouldPrintWhatTheReadmesReplayExampleSays() throws IOException
    {
        final Path root = Path.of("..");
        final List<String> readme = Files.readAllLines(root.resolve("README.md"));
        final String command = "$ tools/bin/junction replay examples/replay/shows.join.json examples/replay/shows.events.jsonl";
        int line = readme.indexOf(command);
        assertTrue(line >= 0, "the README shows the command " + command);
        final List<String> stdout = new ArrayList<>();
        String summary = null;
        for (line++; !readme.get(line).equals("```"); line++)
        {
            if (readme.get(line).startsWith("junction replay: "))
            {
                summary = readme.get(line);
            }
            else
            {
                stdout.add(readme.get(line));
            }
        }
        assertEquals(0, run("replay", root.resolve("examples/replay/shows.join.json").toString(),
            root.resolve("examples/replay/shows.events.jsonl").toString()), err.toString());
        assertEquals(stdout, out.toString().lines().toList(), "the README's output lines");
        assertEquals(summary, lastLine(errLines()), "the README's summary line");
    }

    private String[] filesWithSchema(final String leftKey, final String schema) throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("typed.join.json"),
            "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"" + leftKey + "\"],\"rightKey\":[\"log_id\"],"
                + "\"schema\":" + schema + "}");
        final Path events = Files.writeString(tmp.resolve("e.events.jsonl"), EVENTS);
        return new String[] {spec.toString(), events.toString()};
    }

    @Test
    void shouldDeclareTypedRowsWithTheSpecsSchema() throws IOException
    {
        final String[] files = filesWithSchema("log_id",
            "[{\"name\":\"log_id\",\"type\":\"string\",\"required\":true},{\"name\":\"v\",\"type\":\"long\"},{\"name\":\"w\"}]");
        final Path dead = tmp.resolve("dead.jsonl");
        assertEquals(0, run("replay", files[0], files[1], "--dead-letter", dead.toString()), err.toString());
        final List<String> codes = new ArrayList<>();
        for (final String line : Files.readAllLines(dead))
        {
            codes.add(RowJson.mapper().readTree(line).get("code").textValue());
        }
        assertEquals(List.of("schema_mismatch", "bad_input"), codes, "the string v of step 2 is refused, as with --fields");
        assertEquals("junction replay: 5 events, 3 outputs, 2 dead letters (bad_input 1, schema_mismatch 1)", lastLine(errLines()));
        assertEquals(3, out.toString().lines().count(), out.toString());
    }

    @Test
    void shouldCodeAMissingRequiredFieldAsASchemaMismatch() throws IOException
    {
        final String[] files = filesWithSchema("log_id",
            "[{\"name\":\"log_id\"},{\"name\":\"v\",\"required\":true},{\"name\":\"w\"}]");
        final Path dead = tmp.resolve("dead.jsonl");
        assertEquals(0, run("replay", files[0], files[1], "--dead-letter", dead.toString()), err.toString());
        final JsonNode first = RowJson.mapper().readTree(Files.readAllLines(dead).get(0));
        assertEquals("schema_mismatch", first.get("code").textValue(), first.toString());
        assertEquals("right", first.get("side").textValue(), "the right row of step 1 lacks the required v: " + first);
        assertTrue(first.get("reason").textValue().endsWith(": required field 'v' is missing"), first.toString());
    }

    @Test
    void shouldRejectASpecFieldThatTheSpecsSchemaLacks() throws IOException
    {
        final String[] files = filesWithSchema("logid", "[{\"name\":\"log_id\"},{\"name\":\"v\"},{\"name\":\"w\"}]");
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", files[0], files[1]));
        assertTrue(err.toString().contains("schema: does not declare the spec's field 'logid'"), err.toString());
        assertEquals("", out.toString(), "nothing ran");
        assertFalse(err.toString().contains("Exception"), err.toString());
    }

    @Test
    void shouldRefuseFieldsOrStrictBesideTheSpecsSchema() throws IOException
    {
        final String[] files = filesWithSchema("log_id", "[{\"name\":\"log_id\"}]");
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", files[0], files[1], "--fields", "log_id"));
        assertTrue(err.toString().contains("--fields: the spec's \"schema\" declares the rows already"), err.toString());
        assertEquals(ReplayCommand.EXIT_SPEC, run("replay", files[0], files[1], "--strict"));
        assertEquals("", out.toString(), "nothing ran");
    }

    @Test
    void theKafkaRunnerTakesTheSpecsSchemaToo() throws IOException
    {
        final String[] files = filesWithSchema("log_id", "[{\"name\":\"log_id\",\"type\":\"string\"},{\"name\":\"v\"}]");
        final JoinSpec spec = KafkaCommand.spec(Path.of(files[0]), List.of());
        assertEquals("Schema[log_id:string, v]", spec.leftSchema().toString());
        assertEquals(null, KafkaCommand.spec(Path.of(files[0]), List.of("w")), "--fields beside the spec's schema is refused");
    }
}
