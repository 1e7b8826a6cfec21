package io.junction.tools.replay;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The worked cases of {@code conformance/cases} (see {@code conformance/README.md}): where they are and how to read them.
 * Surefire sets {@value #CASES_DIR_PROP_NAME}; a run from an IDE in the tools module falls back to
 * {@code ../conformance/cases}.
 */
final class Cases
{
    /** System property naming the cases directory. */
    static final String CASES_DIR_PROP_NAME = "junction.cases.dir";

    private Cases()
    {
    }

    /** @return the cases directory */
    static Path dir()
    {
        final String configured = System.getProperty(CASES_DIR_PROP_NAME);
        return configured != null ? Paths.get(configured) : Paths.get("..", "conformance", "cases");
    }

    /** @return every case name (the files' common prefix), sorted */
    static List<String> names()
    {
        try (Stream<Path> files = Files.list(dir()))
        {
            return files.map(p -> p.getFileName().toString())
                .filter(n -> n.endsWith(".join.json"))
                .map(n -> n.substring(0, n.length() - ".join.json".length()))
                .sorted()
                .collect(Collectors.toList());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot list the cases in " + dir().toAbsolutePath() +
                " (set -D" + CASES_DIR_PROP_NAME + ")", e);
        }
    }

    /**
     * @param name   a case
     * @param suffix {@code join.json}, {@code events.jsonl}, {@code expected.jsonl}, {@code deadletter.jsonl} or {@code mode}
     * @return the file
     */
    static Path file(final String name, final String suffix)
    {
        return dir().resolve(name + "." + suffix);
    }

    /** @return a case file's lines; an absent dead-letter file reads as no lines */
    static List<String> lines(final String name, final String suffix)
    {
        final Path file = file(name, suffix);
        try
        {
            if (!Files.exists(file) && "deadletter.jsonl".equals(suffix))
            {
                return List.of();
            }
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }
}
