package io.junction.tools.explain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * docs/OPERATIONS.md's explain walk-through is what the command prints: each fenced block after an
 * {@code <!-- explain-example NAME spec|events|query|output -->} comment is that example's spec, event log,
 * command line (its options after the two files are run) and output, line for line as JSON.
 */
class ExplainDocTest
{
    private static final Pattern MARKER = Pattern.compile("<!-- explain-example (\\S+) (spec|events|query|output) -->");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void theOperationsWalkThroughPrintsWhatItShows(final int partitions) throws IOException
    {
        final List<String> lines = Files.readAllLines(Path.of("..", "docs", "OPERATIONS.md"), StandardCharsets.UTF_8);
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
                fail("OPERATIONS.md:" + (i + 1) + ": " + m.group() + " is not followed by a fenced block");
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
        assertEquals(List.of("showclick"), new ArrayList<>(examples.keySet()), "the walk-through's examples");
        for (final Map.Entry<String, Map<String, List<String>>> example : examples.entrySet())
        {
            final Map<String, List<String>> parts = example.getValue();
            final Path spec = Files.write(tmp.resolve(example.getKey() + ".join.json"), parts.get("spec"));
            final Path events = Files.write(tmp.resolve(example.getKey() + ".events.jsonl"), parts.get("events"));
            final String[] command = String.join(" ", parts.get("query")).trim().split("\\s+");
            assertTrue(command.length > 3 && command[1].equals("explain"), "the query block runs explain: " + parts.get("query"));
            final List<String> args = new ArrayList<>(List.of("explain", spec.toString(), events.toString()));
            for (int i = 4; i < command.length; i++)
            {
                args.add(command[i]);
            }
            args.add("--partitions");
            args.add(Integer.toString(partitions));
            final ExplainRun run = ExplainRun.cli(args.toArray(new String[0]));
            assertEquals(0, run.exit(), run.err());
            final List<JsonNode> expected = new ArrayList<>();
            for (final String line : parts.get("output"))
            {
                expected.add(MAPPER.readTree(line));
            }
            assertEquals(expected, run.lines(), "docs/OPERATIONS.md shows another output than the command prints: " + run.out());
        }
    }
}
