package io.junction.boundary;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Holds the engine's import direction (docs/ARCHITECTURE.md, "Layering"): every reference from one of the
 * engine's packages to another, by import or by an inline qualified name, is checked against the rules below.
 * A rule that the code breaks is listed edge by edge in {@link #KNOWN}: a new breaking edge fails the test,
 * and so does a known one that has gone, so the list only shrinks.
 * <ul>
 *   <li>{@code api} imports nothing of ours;</li>
 *   <li>{@code internal.memory} (stored references, the write barrier) and {@code internal.io} (owner-only
 *       files) import nothing of ours: every internal package may import them;</li>
 *   <li>operators ({@code join}) never import {@code runtime};</li>
 *   <li>{@code internal.state} and {@code internal.time} never import {@code join}, {@code api} or
 *       {@code runtime}; {@code internal.time} never imports {@code internal.state} or {@code internal.durable}
 *       (the heap image's parts it implements are {@code internal.memory.HeapPart});
 *       {@code internal.state} never imports {@code internal.durable};</li>
 *   <li>{@code internal.cut} (the dirty-chunk tracking and the staged cut) imports of ours only
 *       {@code internal.state}, {@code internal.memory} and {@code internal.io}, never {@code internal.durable}
 *       (the on-disk formats, which may import {@code internal.cut} and {@code internal.state});
 *       {@code internal.time} imports neither {@code internal.durable} nor {@code internal.cut};
 *       {@code join} and {@code runtime} may import {@code internal.cut} (the cut handle);</li>
 *   <li>{@code internal.*} never imports {@code join} or {@code runtime};</li>
 *   <li>the engine never imports the tools, the Kafka runner, the JSON formats or the Micrometer binding.</li>
 * </ul>
 */
final class LayeringTest
{
    private static final Path SOURCES = Paths.get("src/main/java/io/junction");
    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.junction\\.((?:[a-z]+\\.)*)[A-Z]");

    /** Edges that break a rule today, as {@code file -> package}: none. */
    private static final Set<String> KNOWN = Set.of();

    @Test
    void everyReferenceBetweenPackagesFollowsTheLayering() throws IOException
    {
        final TreeSet<String> breaking = new TreeSet<>();
        int files = 0;
        try (Stream<Path> walk = Files.walk(SOURCES))
        {
            for (final Path file : (Iterable<Path>)walk.filter(p -> p.toString().endsWith(".java"))::iterator)
            {
                files++;
                final String relative = SOURCES.relativize(file).toString().replace('\\', '/');
                final String from = packageOf(relative);
                for (final String to : references(file))
                {
                    if (!to.equals(from) && forbidden(from, to))
                    {
                        breaking.add(relative + " -> " + to);
                    }
                }
            }
        }
        assertTrue(files > 100, "read the engine's sources from " + SOURCES.toAbsolutePath() + ": " + files);
        final TreeSet<String> added = new TreeSet<>(breaking);
        added.removeAll(KNOWN);
        final TreeSet<String> gone = new TreeSet<>(KNOWN);
        gone.removeAll(breaking);
        assertEquals(List.of(), new ArrayList<>(added), "references that break the layering (docs/ARCHITECTURE.md)");
        assertEquals(List.of(), new ArrayList<>(gone), "known breaking references that are gone: remove them from KNOWN");
    }

    @Test
    void theRulesCatchTheEdgesTheyName()
    {
        assertTrue(forbidden("api", "internal.row"));
        assertTrue(forbidden("join", "runtime"));
        assertTrue(forbidden("internal.state", "join"));
        assertTrue(forbidden("internal.time", "internal.state"));
        assertTrue(forbidden("internal.time", "internal.durable"));
        assertTrue(forbidden("runtime", "tools.replay"));
        assertTrue(forbidden("join", "kafka"));
        assertTrue(!forbidden("join", "internal.state"));
        assertTrue(!forbidden("runtime", "join"));
        assertTrue(!forbidden("internal.row", "api"));
        assertTrue(forbidden("api", "internal.memory"));
        assertTrue(forbidden("internal.state", "api"));
        assertTrue(forbidden("internal.time", "api"));
        assertTrue(forbidden("internal.state", "internal.durable"));
        assertTrue(forbidden("internal.memory", "internal.state"));
        assertTrue(forbidden("internal.io", "internal.durable"));
        assertTrue(!forbidden("internal.time", "internal.memory"));
        assertTrue(!forbidden("internal.state", "internal.io"));
        assertTrue(!forbidden("internal.durable", "internal.state"));
        assertTrue(forbidden("internal.cut", "internal.durable"));
        assertTrue(forbidden("internal.cut", "internal.time"));
        assertTrue(forbidden("internal.cut", "api"));
        assertTrue(!forbidden("internal.cut", "internal.state"));
        assertTrue(!forbidden("internal.cut", "internal.memory"));
        assertTrue(!forbidden("internal.cut", "internal.io"));
        assertTrue(!forbidden("internal.durable", "internal.cut"));
        assertTrue(forbidden("internal.time", "internal.durable"));
        assertTrue(forbidden("internal.time", "internal.cut"));
        assertTrue(!forbidden("join", "internal.cut"));
        assertTrue(!forbidden("runtime", "internal.cut"));
    }

    /** @return whether package {@code from} (relative to io.junction) may not refer to package {@code to}. */
    static boolean forbidden(final String from, final String to)
    {
        if (to.startsWith("tools") || to.startsWith("kafka") || to.startsWith("json") || to.startsWith("micrometer"))
        {
            return true;
        }
        if (from.equals("api") || from.equals("internal.memory") || from.equals("internal.io"))
        {
            return true;
        }
        if (from.equals("join"))
        {
            return to.equals("runtime");
        }
        if (from.startsWith("internal."))
        {
            if (to.equals("join") || to.equals("runtime"))
            {
                return true;
            }
            if (from.equals("internal.state"))
            {
                return to.equals("api") || to.equals("internal.durable");
            }
            if (from.equals("internal.time"))
            {
                return to.equals("api") || to.equals("internal.state") || to.equals("internal.durable") ||
                    to.equals("internal.cut");
            }
            if (from.equals("internal.cut"))
            {
                return !(to.equals("internal.state") || to.equals("internal.memory") || to.equals("internal.io"));
            }
        }
        return false;
    }

    private static String packageOf(final String relative)
    {
        final int slash = relative.lastIndexOf('/');
        return slash < 0 ? "" : relative.substring(0, slash).replace('/', '.');
    }

    /** @return the io.junction packages the file refers to, by import or inline qualified name, comments excluded. */
    private static Set<String> references(final Path file) throws IOException
    {
        final String source = stripComments(Files.readString(file, StandardCharsets.UTF_8));
        final TreeSet<String> packages = new TreeSet<>();
        final Matcher m = REFERENCE.matcher(source);
        while (m.find())
        {
            final String pkg = m.group(1);
            if (!pkg.isEmpty())
            {
                packages.add(pkg.substring(0, pkg.length() - 1));
            }
        }
        return packages;
    }

    private static String stripComments(final String source)
    {
        return source.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\\n]*", " ");
    }
}
