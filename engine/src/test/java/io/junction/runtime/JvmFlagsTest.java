package io.junction.runtime;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JVM flags of each path (docs/CONFIGURATION.md, "JVM flags"; the parent pom's {@code junction.jvm.flags.*}):
 * a child JVM given exactly a path's documented flags runs that path's join, and one given one flag fewer is
 * refused by {@link JoinEngine.Builder#start()} with one line naming the flag, never an
 * {@code IllegalAccessError} from Agrona or Chronicle. The pom's properties are what {@link JvmFlags} checks.
 */
final class JvmFlagsTest
{
    private static List<String> documented(final String path)
    {
        final String flags = System.getProperty("junction.jvm.flags." + path);
        assertNotNull(flags, "junction.jvm.flags." + path + " is set by the parent pom's Surefire configuration");
        return List.of(flags.trim().split("\\s+"));
    }

    private static String[] probeArgs(final String path, final Path dir)
    {
        return path.equals("durable") ? new String[] {path, dir.resolve("state").toString()} : new String[] {path};
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "durable", "chronicle"})
    void thePomDocumentsWhatTheEngineChecks(final String path, @TempDir final Path dir)
    {
        assertEquals(JvmFlags.required(JvmFlagsProbe.config(probeArgs(path, dir))), documented(path));
    }

    @Test
    void theBuildsFlagsAndTheJarManifestsCoverEveryPath(@TempDir final Path dir)
    {
        final EngineConfig everything = JvmFlagsProbe.config("chronicle").withStateRoot(dir);
        assertEquals(JvmFlags.required(everything), documented("all"), "junction.jvm.flags: every path's flags");
        final List<String> manifest = new ArrayList<>();
        for (final String open : System.getProperty("junction.jar.addOpens").trim().split("\\s+"))
        {
            manifest.add("--add-opens=" + open + "=ALL-UNNAMED");
        }
        for (final String export : System.getProperty("junction.jar.addExports").trim().split("\\s+"))
        {
            manifest.add("--add-exports=" + export + "=ALL-UNNAMED");
        }
        assertEquals(new TreeSet<>(documented("all")), new TreeSet<>(manifest),
            "junction.jar.addOpens/addExports (the executable jars' manifests) are junction.jvm.flags");
        assertEquals(List.of(), JvmFlags.missing(everything), "Surefire's argLine gives this JVM every flag");
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "durable", "chronicle"})
    void aPathRunsWithExactlyItsDocumentedFlags(final String path, @TempDir final Path dir) throws Exception
    {
        final ChildJvm.Exit exit = ChildJvm.exec(documented(path), List.of(), JvmFlagsProbe.class, probeArgs(path, dir));
        assertEquals(0, exit.status, exit.output);
        assertTrue(exit.output.contains("OK results "), exit.output);
        assertFalse(exit.output.contains("WARNING"), "no library warns about a missing flag:\n" + exit.output);
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "durable", "chronicle"})
    void aPathRefusesOneFlagFewerAtStartNamingIt(final String path, @TempDir final Path dir) throws Exception
    {
        final List<String> flags = documented(path);
        for (int i = 0; i < flags.size(); i++)
        {
            final List<String> fewer = new ArrayList<>(flags);
            final String dropped = fewer.remove(i);
            final ChildJvm.Exit exit = ChildJvm.exec(fewer, List.of(), JvmFlagsProbe.class, probeArgs(path, dir.resolve("run" + i)));
            assertEquals(JvmFlagsProbe.REFUSED, exit.status, "without " + dropped + ":\n" + exit.output);
            final String refusal = exit.output.lines().filter(l -> l.startsWith("REFUSED ")).findFirst().orElse("");
            assertEquals("REFUSED junction: the JVM was started without " + dropped, refusal.substring(0,
                Math.min(refusal.length(), ("REFUSED junction: the JVM was started without " + dropped).length())),
                "one line naming the flag to add:\n" + exit.output);
            assertTrue(refusal.contains("docs/CONFIGURATION.md"), refusal);
            assertFalse(exit.output.contains("IllegalAccessError") || exit.output.contains("\tat "), "no trace:\n" + exit.output);
        }
    }
}
