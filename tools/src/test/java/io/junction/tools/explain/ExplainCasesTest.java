package io.junction.tools.explain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The worked examples of {@code conformance/cases/explain} (its README.md gives the format): each case's
 * {@code .query} run through {@code junction explain} at 1 and 3 partitions, every line of its {@code .expect}
 * checked against the output.
 */
class ExplainCasesTest
{
    static Path dir()
    {
        final String configured = System.getProperty("junction.cases.dir");
        return (configured != null ? Paths.get(configured) : Paths.get("..", "conformance", "cases")).resolve("explain");
    }

    static Stream<Arguments> cases() throws IOException
    {
        final List<String> names;
        try (Stream<Path> files = Files.list(dir()))
        {
            names = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".query"))
                .map(n -> n.substring(0, n.length() - ".query".length())).sorted().collect(Collectors.toList());
        }
        assertFalse(names.isEmpty(), "no explain cases in " + dir().toAbsolutePath());
        final List<Arguments> args = new ArrayList<>();
        for (final String name : names)
        {
            args.add(Arguments.of(name, 1));
            args.add(Arguments.of(name, 3));
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} at {1} partition(s)")
    @MethodSource("cases")
    void everyExpectedLineHolds(final String name, final int partitions) throws IOException
    {
        final List<String> args = new ArrayList<>(List.of("explain", file(name, "join.json"), file(name, "events.jsonl")));
        for (final String word : Files.readString(dir().resolve(name + ".query"), StandardCharsets.UTF_8).trim().split("\\s+"))
        {
            args.add(word);
        }
        args.add("--partitions");
        args.add(Integer.toString(partitions));
        final ExplainRun run = ExplainRun.cli(args.toArray(new String[0]));
        assertEquals(0, run.exit(), run.err());
        final long step = run.fate().path("step").asLong();
        for (final String expect : Files.readAllLines(dir().resolve(name + ".expect"), StandardCharsets.UTF_8))
        {
            final String[] words = expect.trim().split("\\s+");
            if (words.length == 0 || words[0].isEmpty())
            {
                continue;
            }
            switch (words[0])
            {
                case "pair":
                    final String code = pairCode(run, words);
                    assertTrue(code != null && ("*".equals(words[2]) || words[2].equals(code)),
                        name + ": expected " + expect + ", got " + run.out());
                    break;
                case "made":
                    assertEquals(words[1], run.fate().path("made").toString(), name + ": " + run.out());
                    break;
                case "fate":
                    assertEquals(words[1], run.fate().path("fate").asText(), name + ": " + run.out());
                    break;
                case "padded":
                    assertEquals("none".equals(words[1]) ? "null" : words[1], run.fate().path("padded").toString(),
                        name + ": " + run.out());
                    break;
                default:
                    throw new UncheckedIOException(new IOException(name + ".expect: unknown statement '" + expect + "'"));
            }
        }
        assertEquals(step, run.fate().path("step").asLong());
    }

    /** {@code pair M CODE [made K] [withMade J]}: the code of that pair line (any line with step M without made or withMade). */
    private static String pairCode(final ExplainRun run, final String[] words)
    {
        final long with = Long.parseLong(words[1]);
        if (words.length == 3)
        {
            return run.pairCode(with);
        }
        int made = -1;
        int withMade = -1;
        for (int i = 3; i + 1 < words.length; i += 2)
        {
            switch (words[i])
            {
                case "made":
                    made = Integer.parseInt(words[i + 1]);
                    break;
                case "withMade":
                    withMade = Integer.parseInt(words[i + 1]);
                    break;
                default:
                    throw new UncheckedIOException(new IOException("unknown pair option '" + words[i] + "'"));
            }
        }
        final JsonNode pair = run.pair(with, made, withMade);
        return pair == null ? null : pair.get("code").asText();
    }

    private static String file(final String name, final String suffix)
    {
        return dir().resolve(name + "." + suffix).toString();
    }
}
