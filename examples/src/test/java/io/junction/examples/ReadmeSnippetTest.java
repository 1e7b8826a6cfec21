package io.junction.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every Java code block in README.md and docs/*.md is a marked region of code the build compiles (and
 * the examples' tests run), line for line after dedenting, so the docs only ever show code that
 * compiles. The regions: each example's lines between {@code // README:begin NAME} and
 * {@code // README:end NAME} (examples/src/main/java, and examples/src/test/java for a block that is a test;
 * QuickStart's markers have no name), and the Kafka
 * runner's example between {@code // --- the README block starts here} and
 * {@code // --- the README block ends here} (kafka/src/test/java/.../KafkaJoinExample.java). Every region
 * must also appear in the docs. When this fails, paste the region into the block.
 */
class ReadmeSnippetTest
{
    private static final String BEGIN = "// README:begin";
    private static final String END = "// README:end";
    private static final String KAFKA_BEGIN = "// --- the README block starts here";
    private static final String KAFKA_END = "// --- the README block ends here";

    private static Path root()
    {
        final String readme = System.getProperty("junction.readme");
        assertNotNull(readme, "junction.readme is set by the examples module's Surefire configuration");
        return Path.of(readme).toAbsolutePath().getParent();
    }

    /** @return README.md and every docs/*.md, in name order. */
    static List<Path> docs(final Path root) throws IOException
    {
        final List<Path> docs = new ArrayList<>();
        docs.add(root.resolve("README.md"));
        try (Stream<Path> files = Files.list(root.resolve("docs")))
        {
            files.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    /** @return the java code blocks of a markdown text, each keyed by "file:line" of its opening fence. */
    static Map<String, List<String>> javaBlocks(final String file, final List<String> lines)
    {
        final Map<String, List<String>> blocks = new LinkedHashMap<>();
        for (int line = 0; line < lines.size(); line++)
        {
            if (lines.get(line).trim().equals("```java"))
            {
                final int start = line;
                final List<String> block = new ArrayList<>();
                for (line++; line < lines.size() && !lines.get(line).trim().equals("```"); line++)
                {
                    block.add(lines.get(line));
                }
                if (line == lines.size())
                {
                    fail(file + ":" + (start + 1) + ": a ```java block is not closed");
                }
                blocks.put(file + ":" + (start + 1), dedent(block));
            }
        }
        return blocks;
    }

    /** @return every marked region of the sources (dedented), keyed by "file NAME". */
    static Map<String, List<String>> regions(final Path root) throws IOException
    {
        final Map<String, List<String>> regions = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(root.resolve("examples/src/main/java/io/junction/examples")))
        {
            for (final Path file : (Iterable<Path>)files.filter(p -> p.toString().endsWith(".java")).sorted()::iterator)
            {
                regions.putAll(markedRegions(file.getFileName().toString(), Files.readAllLines(file, StandardCharsets.UTF_8)));
            }
        }
        try (Stream<Path> files = Files.list(root.resolve("examples/src/test/java/io/junction/examples")))
        {
            for (final Path file : (Iterable<Path>)files.filter(p -> p.toString().endsWith(".java")).sorted()::iterator)
            {
                regions.putAll(markedRegions(file.getFileName().toString(), Files.readAllLines(file, StandardCharsets.UTF_8)));
            }
        }
        final Path kafka = root.resolve("kafka/src/test/java/io/junction/kafka/KafkaJoinExample.java");
        regions.put("KafkaJoinExample", dedent(region(Files.readAllLines(kafka, StandardCharsets.UTF_8), KAFKA_BEGIN, KAFKA_END)));
        return regions;
    }

    /** @return the named regions of one source: {@code // README:begin NAME} to {@code // README:end NAME}. */
    static Map<String, List<String>> markedRegions(final String file, final List<String> source)
    {
        final Map<String, List<String>> regions = new LinkedHashMap<>();
        for (final String line : source)
        {
            final String trimmed = line.trim();
            if (trimmed.startsWith(BEGIN))
            {
                final String name = trimmed.substring(BEGIN.length()).trim();
                final String suffix = name.isEmpty() ? "" : " " + name;
                regions.put(file + (name.isEmpty() ? "" : " " + name), dedent(region(source, BEGIN + suffix, END + suffix)));
            }
        }
        return regions;
    }

    private static List<String> region(final List<String> source, final String beginMarker, final String endMarker)
    {
        final int begin = indexOfMarker(source, beginMarker);
        final int end = indexOfMarker(source, endMarker);
        assertTrue(begin < end, beginMarker + " comes before " + endMarker);
        return new ArrayList<>(source.subList(begin + 1, end));
    }

    private static int indexOfMarker(final List<String> source, final String marker)
    {
        int found = -1;
        for (int i = 0; i < source.size(); i++)
        {
            if (source.get(i).trim().equals(marker))
            {
                assertEquals(-1, found, "exactly one '" + marker + "' line");
                found = i;
            }
        }
        assertTrue(found >= 0, "the example has a '" + marker + "' line");
        return found;
    }

    /** @return the lines without trailing blanks and without the indentation they all share. */
    static List<String> dedent(final List<String> lines)
    {
        int common = Integer.MAX_VALUE;
        for (final String line : lines)
        {
            if (!line.isBlank())
            {
                int indent = 0;
                while (line.charAt(indent) == ' ')
                {
                    indent++;
                }
                common = Math.min(common, indent);
            }
        }
        final List<String> out = new ArrayList<>(lines.size());
        for (final String line : lines)
        {
            out.add(line.isBlank() ? "" : line.substring(common).stripTrailing());
        }
        return out;
    }

    private static Map<String, List<String>> allBlocks(final Path root) throws IOException
    {
        final Map<String, List<String>> blocks = new LinkedHashMap<>();
        for (final Path doc : docs(root))
        {
            blocks.putAll(javaBlocks(root.relativize(doc).toString(), Files.readAllLines(doc, StandardCharsets.UTF_8)));
        }
        return blocks;
    }

    @Test
    void shouldShowOnlyCompiledCodeInEveryJavaBlockOfTheReadmeAndTheDocs() throws IOException
    {
        final Path root = root();
        final Map<String, List<String>> regions = regions(root);
        final Map<String, List<String>> blocks = allBlocks(root);
        assertTrue(blocks.size() >= 7, "the README and docs hold the examples' blocks: " + blocks.keySet());
        final List<String> unmatched = new ArrayList<>();
        for (final Map.Entry<String, List<String>> block : blocks.entrySet())
        {
            if (!regions.containsValue(block.getValue()))
            {
                unmatched.add(block.getKey() + " (" + block.getValue().size() + " lines, first: " +
                    (block.getValue().isEmpty() ? "" : block.getValue().get(0)) + ")");
            }
        }
        assertEquals(List.of(), unmatched, "java blocks that are no marked region of a compiled example " +
            "(paste the region into the block, or make the block a region of an example): regions " + regions.keySet());
    }

    @Test
    void shouldShowEveryExamplesRegionSomewhereInTheDocs() throws IOException
    {
        final Path root = root();
        final Map<String, List<String>> blocks = allBlocks(root);
        final List<String> missing = new ArrayList<>();
        for (final Map.Entry<String, List<String>> region : regions(root).entrySet())
        {
            assertTrue(region.getValue().size() > 10, region.getKey() + " holds the whole example: " + region.getValue().size() + " lines");
            if (!blocks.containsValue(region.getValue()))
            {
                missing.add(region.getKey());
            }
        }
        assertEquals(List.of(), missing, "regions no doc shows (or shows differently): paste each into its block");
    }

    @Test
    void shouldPutTheTypedExampleFirstInTheReadme() throws IOException
    {
        final Path root = root();
        final Map<String, List<String>> readme = javaBlocks("README.md",
            Files.readAllLines(root.resolve("README.md"), StandardCharsets.UTF_8));
        assertTrue(readme.size() >= 2, "the README has java blocks");
        final List<List<String>> blocks = new ArrayList<>(readme.values());
        assertEquals(regions(root).get("TypedQuickStart.java typed-imports"), blocks.get(0),
            "the README's first java block is TypedQuickStart's imports");
        final List<String> first = blocks.get(1);
        assertEquals(regions(root).get("TypedQuickStart.java typed"), first, "the README's second java block is TypedQuickStart's");
        assertTrue(first.size() < 25, "the typed example is under 25 lines: " + first.size());
    }

    @Test
    void shouldFindBlocksAndRegions()
    {
        final Map<String, List<String>> blocks = javaBlocks("x.md",
            List.of("# T", "```java", "    int x = 1;", "```", "text", "```", "not java", "```", "```java", "b", "```"));
        assertEquals(List.of("x.md:2", "x.md:9"), new ArrayList<>(blocks.keySet()));
        assertEquals(List.of("int x = 1;"), blocks.get("x.md:2"));
        final Map<String, List<String>> regions = markedRegions("A.java",
            List.of("a", "    // README:begin one", "      x", "    // README:end one", "// README:begin", "y", "// README:end"));
        assertEquals(List.of("x"), regions.get("A.java one"));
        assertEquals(List.of("y"), regions.get("A.java"));
    }

    @Test
    void shouldDedentByTheCommonIndentationOnly()
    {
        assertEquals(List.of("a", "", "  b"), dedent(List.of("    a  ", "", "      b")));
    }
}
