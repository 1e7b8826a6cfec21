package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.json.RowJson;
import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * docs/SEMANTICS.md's replay examples are run, as ReadmeSnippetTest keeps the Java blocks compiled: each
 * fenced block right after an {@code <!-- replay-example NAME spec|events|output -->} comment is that
 * example's spec file, event log or expected output lines. Every example is replayed with 1 and 3
 * partitions and its output must be the block's lines: in step order, and within a step as a multiset of
 * JSON objects (SEMANTICS 1.3: the order within a step is not defined; field order does not matter).
 */
class SemanticsExamplesTest
{
    private static final Pattern MARKER = Pattern.compile("<!-- replay-example (\\S+) (spec|events|output) -->");
    /** The examples the manual must keep (a marker lost in an edit fails here rather than testing less). */
    private static final List<String> EXPECTED = List.of("expand", "intro", "multi", "upsert");

    @TempDir
    Path tmp;

    static Map<String, Map<String, List<String>>> examples(final List<String> lines)
    {
        final Map<String, Map<String, List<String>>> examples = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++)
        {
            final Matcher m = MARKER.matcher(lines.get(i).trim());
            if (!m.matches())
            {
                continue;
            }
            int open = i + 1;
            while (open < lines.size() && lines.get(open).isBlank())
            {
                open++;
            }
            if (open == lines.size() || !lines.get(open).startsWith("```"))
            {
                fail("SEMANTICS.md:" + (i + 1) + ": " + m.group() + " is not followed by a fenced block");
            }
            final List<String> block = new ArrayList<>();
            int line = open + 1;
            for (; line < lines.size() && !lines.get(line).startsWith("```"); line++)
            {
                block.add(lines.get(line));
            }
            examples.computeIfAbsent(m.group(1), k -> new TreeMap<>()).put(m.group(2), block);
            i = line;
        }
        return examples;
    }

    @Test
    void everyReplayExampleOfTheManualPrintsWhatTheManualShows() throws IOException
    {
        final List<String> manual = Files.readAllLines(Path.of("..", "docs", "SEMANTICS.md"), StandardCharsets.UTF_8);
        final Map<String, Map<String, List<String>>> examples = examples(manual);
        assertEquals(EXPECTED, new ArrayList<>(examples.keySet()), "the manual's replay examples");
        for (final Map.Entry<String, Map<String, List<String>>> example : examples.entrySet())
        {
            final String name = example.getKey();
            final Map<String, List<String>> parts = example.getValue();
            assertEquals(List.of("events", "output", "spec"), new ArrayList<>(parts.keySet()), name + ": spec, events and output");
            final Path spec = Files.write(tmp.resolve(name + ".join.json"), parts.get("spec"), StandardCharsets.UTF_8);
            final Path events = Files.write(tmp.resolve(name + ".events.jsonl"), parts.get("events"), StandardCharsets.UTF_8);
            for (final String partitions : new String[] {"1", "3"})
            {
                final StringWriter out = new StringWriter();
                final StringWriter err = new StringWriter();
                final CommandLine cli = JunctionCli.commandLine();
                cli.setOut(new PrintWriter(out, true));
                cli.setErr(new PrintWriter(err, true));
                assertEquals(0, cli.execute("replay", spec.toString(), events.toString(), "--partitions", partitions),
                    name + ": " + err);
                assertTrue(err.toString().contains(" 0 dead letters"), name + ": no dead letters: " + err);
                assertSameOutput(name + " (" + partitions + " partitions)", parts.get("output"), out.toString().lines().toList());
            }
        }
    }

    private static void assertSameOutput(final String what, final List<String> shown, final List<String> actual) throws IOException
    {
        final List<JsonNode> expected = parse(shown);
        final List<JsonNode> got = parse(actual);
        final String message = what + ": the manual shows\n" + String.join("\n", shown) + "\nthe replay printed\n"
            + String.join("\n", actual);
        assertEquals(expected.size(), got.size(), message);
        int from = 0;
        while (from < expected.size())
        {
            final long step = expected.get(from).get("step").asLong();
            int to = from;
            while (to < expected.size() && expected.get(to).get("step").asLong() == step)
            {
                to++;
            }
            final List<JsonNode> remaining = new ArrayList<>(got.subList(from, to));
            for (final JsonNode line : expected.subList(from, to))
            {
                assertTrue(remaining.remove(line), message);
            }
            from = to;
        }
    }

    private static List<JsonNode> parse(final List<String> lines) throws IOException
    {
        final List<JsonNode> nodes = new ArrayList<>();
        for (final String line : lines)
        {
            if (!line.isBlank())
            {
                nodes.add(RowJson.mapper().readTree(line));
            }
        }
        return nodes;
    }
}
