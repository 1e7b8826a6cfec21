package io.junction.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's code blocks are the examples' marked regions, line for line, so the README only ever
 * shows code that compiles and runs (the examples' tests run them): the "Java API" block is QuickStart's
 * region between {@code // README:begin} and {@code // README:end}; the first java block under a
 * feature's heading is the region between {@code // README:begin NAME} and {@code // README:end NAME}
 * of that feature's example. When this fails, paste the region into the README's block.
 */
class ReadmeSnippetTest
{
    private static final String SECTION = "## The Java API";
    private static final String BEGIN = "// README:begin";
    private static final String END = "// README:end";

    private static Path path(final String property)
    {
        final String value = System.getProperty(property);
        assertNotNull(value, property + " is set by the examples module's Surefire configuration");
        return Path.of(value);
    }

    /** @return the lines of the first java code block under the README's Java API heading. */
    static List<String> readmeBlock(final List<String> readme)
    {
        return readmeBlock(readme, SECTION);
    }

    /** @return the lines of the first java code block under the README heading that starts with {@code heading}. */
    static List<String> readmeBlock(final List<String> readme, final String heading)
    {
        int line = 0;
        while (line < readme.size() && !readme.get(line).startsWith(heading))
        {
            line++;
        }
        if (line == readme.size())
        {
            fail("the README has no section starting with '" + heading + "'");
        }
        final String level = heading.substring(0, heading.indexOf(' ') + 1);
        // the block must sit in this section: stop at the next heading of the same or a higher level
        for (line++; line < readme.size() && !isHeadingUpTo(readme.get(line), level.length() - 1); line++)
        {
            if (readme.get(line).trim().equals("```java"))
            {
                final List<String> block = new ArrayList<>();
                for (line++; line < readme.size() && !readme.get(line).trim().equals("```"); line++)
                {
                    block.add(readme.get(line));
                }
                if (line == readme.size())
                {
                    fail("the README's Java API code block is not closed");
                }
                return block;
            }
        }
        return fail("the README's Java API section has no ```java block");
    }

    private static boolean isHeadingUpTo(final String line, final int level)
    {
        int hashes = 0;
        while (hashes < line.length() && line.charAt(hashes) == '#')
        {
            hashes++;
        }
        return hashes > 0 && hashes <= level && line.length() > hashes && line.charAt(hashes) == ' ';
    }

    /** @return the lines between the begin and end markers. */
    static List<String> markedRegion(final List<String> source)
    {
        return markedRegion(source, BEGIN, END);
    }

    /** @return the lines between the begin and end markers of the region named {@code name}. */
    static List<String> markedRegion(final List<String> source, final String name)
    {
        return markedRegion(source, BEGIN + " " + name, END + " " + name);
    }

    private static List<String> markedRegion(final List<String> source, final String beginMarker, final String endMarker)
    {
        final int begin = indexOfMarker(source, beginMarker);
        final int end = indexOfMarker(source, endMarker);
        assertTrue(begin < end, "README:begin comes before README:end");
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

    @Test
    void shouldShowQuickStartsMarkedRegionAsTheReadmeJavaApiBlock() throws IOException
    {
        final List<String> readme = Files.readAllLines(path("junction.readme"), StandardCharsets.UTF_8);
        final List<String> quickStart = Files.readAllLines(
            path("junction.examples.dir").resolve("src/main/java/io/junction/examples/QuickStart.java"),
            StandardCharsets.UTF_8);

        final List<String> expected = dedent(markedRegion(quickStart));
        final List<String> actual = dedent(readmeBlock(readme));
        assertTrue(expected.size() > 20, "the marked region holds the whole example: " + expected.size() + " lines");
        assertEquals(String.join("\n", expected), String.join("\n", actual),
            "README.md's Java API block differs from QuickStart.java's README region: paste the region into the README");
    }

    @ParameterizedTest
    @CsvSource({
        "'### Temporal and lookup joins', TemporalJoinExample, temporal",
        "'### Window coGroup', CoGroupExample, cogroup",
        "'## Durable state, checkpoints and recovery', DurableExample, durable",
    })
    void shouldShowEachFeatureExamplesMarkedRegionUnderItsHeading(final String heading, final String example, final String name)
        throws IOException
    {
        final List<String> readme = Files.readAllLines(path("junction.readme"), StandardCharsets.UTF_8);
        final List<String> source = Files.readAllLines(
            path("junction.examples.dir").resolve("src/main/java/io/junction/examples/" + example + ".java"), StandardCharsets.UTF_8);

        final List<String> expected = dedent(markedRegion(source, name));
        final List<String> actual = dedent(readmeBlock(readme, heading));
        assertTrue(expected.size() > 10, "the marked region holds the whole example: " + expected.size() + " lines");
        assertEquals(String.join("\n", expected), String.join("\n", actual),
            "README.md's block under '" + heading + "' differs from " + example + ".java's region '" + name + "': paste the region into the README");
    }

    @Test
    void shouldStopAtTheNextHeadingOfTheSameLevel()
    {
        final List<String> readme = List.of("### A", "text", "### B", "```java", "b", "```");
        assertThrows(AssertionError.class, () -> readmeBlock(readme, "### A"));
        assertEquals(List.of("b"), readmeBlock(readme, "### B"));
    }

    @Test
    void shouldDedentByTheCommonIndentationOnly()
    {
        assertEquals(List.of("a", "", "  b"), dedent(List.of("    a  ", "", "      b")));
    }

    @Test
    void shouldFindTheBlockUnderTheJavaApiHeading()
    {
        final List<String> readme = List.of(
            "# Title", "```java", "not this", "```",
            "## The Java API in 30 lines", "", "```java", "    int x = 1;", "```", "## Next", "```java", "nor this", "```");
        assertEquals(List.of("    int x = 1;"), readmeBlock(readme));
    }
}
