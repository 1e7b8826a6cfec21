package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.ByteArrayOutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The commands' refusals of nonsense (docs/CLI.md, "Exit codes"): each is one line naming what is wrong and
 * its documented exit status, never "an unexpected error", an empty file or a parser's internals.
 */
class CliRefusalsTest
{
    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** Runs in-process; what the command printed on stderr (picocli's and System.err) lands in {@link #err}. */
    private int run(final String... args)
    {
        final PrintStream saved = System.err;
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try
        {
            final CommandLine cli = JunctionCli.commandLine();
            cli.setOut(new PrintWriter(out, true));
            return cli.execute(args);
        }
        finally
        {
            System.setErr(saved);
            err.append(bytes.toString(StandardCharsets.UTF_8));
        }
    }

    private static Path cases()
    {
        final String configured = System.getProperty("junction.cases.dir");
        return configured != null ? Paths.get(configured) : Paths.get("..", "conformance", "cases");
    }

    private void assertOneLineWithoutInternals()
    {
        final String text = err.toString();
        assertFalse(text.contains("unexpected error"), text);
        assertFalse(text.contains("\tat "), text);
        assertFalse(text.contains("com.fasterxml"), text);
        assertFalse(text.contains("Exception"), text);
    }

    /** A former state root that another engine holds: its LOCK file locked, as a running engine does. */
    private FileChannel lockedStateRoot(final Path root) throws IOException
    {
        Files.createDirectories(root);
        Files.writeString(root.resolve("ENGINE"), "");
        final FileChannel channel = FileChannel.open(root.resolve("LOCK"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        final FileLock lock = channel.tryLock();
        assertTrue(lock != null);
        return channel;
    }

    @Test
    void loadgenOnALockedStateRootIsExit4WithOneLine() throws IOException
    {
        final Path root = tmp.resolve("state");
        try (FileChannel held = lockedStateRoot(root))
        {
            assertTrue(held.isOpen());
            assertEquals(4, run("loadgen", "--workload", "W1", "--events", "1000", "--no-floor", "--quiet",
                "--state", root.toString()));
        }
        assertTrue(err.toString().contains("is locked"), err.toString());
        assertTrue(Files.exists(root.resolve("ENGINE")), "nothing emptied");
        assertOneLineWithoutInternals();
    }

    @Test
    void durabilityOnALockedStateRootIsExit4WithOneLine() throws IOException
    {
        final Path root = tmp.resolve("state");
        try (FileChannel held = lockedStateRoot(root))
        {
            assertTrue(held.isOpen());
            assertEquals(4, run("durability", "--workload", "W1", "--state", root.toString(), "--cut", "1000"));
        }
        assertTrue(err.toString().contains("is locked"), err.toString());
        assertOneLineWithoutInternals();
    }

    @Test
    void loadgenRefusesNonsenseNumbersWithExit2()
    {
        final String[][] bad = {
            {"--rate", "-5"}, {"--partitions", "0"}, {"--events", "-1"}, {"--ring-size", "0"}, {"--warmup", "-2"},
            {"--state-ttl", "-1"}};
        for (final String[] option : bad)
        {
            err.getBuffer().setLength(0);
            final List<String> args = new ArrayList<>(List.of("loadgen", "--workload", "W1", "--no-floor", "--quiet"));
            args.addAll(List.of(option));
            assertEquals(2, run(args.toArray(new String[0])), option[0] + ": " + err);
            assertTrue(err.toString().contains(option[0]), "names " + option[0] + ": " + err);
            assertFalse(err.toString().contains("generating"), "refused before generating: " + err);
        }
    }

    @Test
    void sweepAndSoakRefuseNonPositiveRates()
    {
        assertEquals(2, run("sweep", "--rates", "1000,-5"), err.toString());
        assertTrue(err.toString().contains("--rates"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, run("soak", "--rate", "-5"), err.toString());
        assertTrue(err.toString().contains("--rate"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, run("soak", "--duration", "0"), err.toString());
        assertTrue(err.toString().contains("--duration"), err.toString());
    }

    @Test
    void replayRefusesExpiredOnAJoinThatExpiresNothing() throws IOException
    {
        final Path expired = tmp.resolve("expired.jsonl");
        assertEquals(2, run("replay", cases().resolve("interval_left_outer.join.json").toString(),
            cases().resolve("interval_left_outer.events.jsonl").toString(), "--out", tmp.resolve("o.jsonl").toString(),
            "--dead-letter", tmp.resolve("d.jsonl").toString(), "--expired", expired.toString()));
        assertTrue(err.toString().contains("--expired") && err.toString().contains("interval"), err.toString());
        assertFalse(Files.exists(expired), "no empty file");
        assertOneLineWithoutInternals();
    }

    @Test
    void replayWithTheEventLogFirstSaysSo()
    {
        assertEquals(2, run("replay", cases().resolve("regular_condition.events.jsonl").toString(),
            cases().resolve("regular_condition.join.json").toString()));
        assertTrue(err.toString().contains("is an event log"), err.toString());
        assertTrue(err.toString().contains("SPEC.join.json EVENTS.events.jsonl"), err.toString());
        assertEquals(2, err.toString().strip().lines().count(), "one line and the usage hint: " + err);
        assertOneLineWithoutInternals();
    }

    @Test
    void replayWithTheSpecAsEventLogSaysSo()
    {
        assertEquals(2, run("replay", cases().resolve("regular_condition.join.json").toString(),
            cases().resolve("regular_condition.join.json").toString()));
        assertTrue(err.toString().contains("is a join spec, not an event log"), err.toString());
        assertOneLineWithoutInternals();
    }

    @Test
    void withoutASubcommandEveryRegisteredOneIsListed()
    {
        assertEquals(2, run());
        for (final String name : JunctionCli.commandLine().getSubcommands().keySet())
        {
            assertTrue(err.toString().contains(name), name + ": " + err);
        }
    }

    @Test
    void theReadmeAndCliDocListEveryRegisteredSubcommand() throws IOException
    {
        final String readme = Files.readString(Paths.get("..", "README.md"));
        final String cli = Files.readString(Paths.get("..", "docs", "CLI.md"));
        for (final String name : JunctionCli.commandLine().getSubcommands().keySet())
        {
            if (!name.equals("help"))
            {
                assertTrue(readme.contains("`" + name + "`"), "README names " + name);
                assertTrue(cli.contains("| `junction " + name), "docs/CLI.md has a row for " + name);
            }
        }
    }

    @Test
    void everyHelpSummaryIsAWholeSentence()
    {
        final List<CommandLine> all = new ArrayList<>();
        collect(JunctionCli.commandLine(), all);
        for (final CommandLine command : all)
        {
            final String[] description = command.getCommandSpec().usageMessage().description();
            if (description.length == 0)
            {
                continue;
            }
            final String first = description[0].strip();
            assertTrue(first.endsWith(".") || first.endsWith(".)"),
                command.getCommandSpec().qualifiedName() + "'s summary, as 'junction --help' shows it, ends mid-sentence: " + first);
        }
    }

    private static void collect(final CommandLine command, final List<CommandLine> into)
    {
        into.add(command);
        for (final Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet())
        {
            if (!sub.getKey().equals("help"))
            {
                collect(sub.getValue(), into);
            }
        }
    }
}
