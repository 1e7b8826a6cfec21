package io.junction.tools.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import java.util.Arrays;

/**
 * A durable state that cannot be resumed as asked is a one-line message and exit 4,
 * never a stack trace and exit 1.
 */
class ReplayStateErrorsTest
{
    @TempDir
    Path tmp;

    private final StringWriter err = new StringWriter();

    private int run(final String... args)
    {
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    private static Path cases()
    {
        return Paths.get(System.getProperty("junction.cases.dir", Paths.get("..", "conformance", "cases").toString()));
    }

    private String[] replay(final Path state, final String... more)
    {
        final String[] base = {"replay", cases().resolve("regular_condition.join.json").toString(),
            cases().resolve("regular_condition.events.jsonl").toString(), "--partitions", "2", "--state", state.toString(),
            "--out", tmp.resolve("out.jsonl").toString(), "--dead-letter", tmp.resolve("dead.jsonl").toString()};
        final String[] all = Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void resumingWithAnotherMaxKeysIsExit4WithOneLine()
    {
        final Path state = tmp.resolve("state");
        assertEquals(0, run(replay(state, "--max-keys", "64")), err.toString());
        err.getBuffer().setLength(0);
        final int exit = run(replay(state, "--max-keys", "128", "--resume"));
        assertEquals(4, exit, err.toString());
        assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
        assertTrue(err.toString().startsWith("junction replay: "), err.toString());
    }

    @Test
    void aMissingEngineFileIsExit4NamingIt() throws Exception
    {
        final Path state = tmp.resolve("state");
        assertEquals(0, run(replay(state)), err.toString());
        Files.delete(state.resolve("engine").resolve("ENGINE"));
        err.getBuffer().setLength(0);
        final int exit = run(replay(state, "--resume"));
        assertEquals(4, exit, err.toString());
        assertTrue(err.toString().contains("ENGINE is missing"), err.toString());
        assertFalse(err.toString().contains("\tat "), "no stack trace: " + err);
    }
}
