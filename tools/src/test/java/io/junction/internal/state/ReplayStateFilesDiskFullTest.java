package io.junction.internal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code junction replay --state DIR} on a disk too full for a partition to create its state files at start: exit 4
 * and one line naming the file, never exit 1 "unexpected error"; once there is room, the same state directory
 * resumes (its lock was released). The full disk is injected ({@link MappedFile#growthFault}, hence this package)
 * instead of filling a real one.
 */
@Timeout(120)
class ReplayStateFilesDiskFullTest
{
    private static final String ENOSPC = "No space left on device";

    @TempDir
    Path tmp;

    @AfterEach
    void noFault()
    {
        MappedFile.growthFault = null;
    }

    @Test
    void aFullDiskWhileTheStateFilesAreCreatedIsExit4NamingTheFile() throws IOException
    {
        final Path spec = tmp.resolve("regular.join.json");
        final Path events = tmp.resolve("regular.events.jsonl");
        Files.writeString(spec, "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            lines.add("{\"side\":\"" + (i % 2 == 0 ? "left" : "right") + "\",\"row\":{\"k\":" + (i % 5) + ",\"id\":" + i + "}}");
        }
        Files.write(events, lines);
        final Path state = tmp.resolve("state");
        final Path arena = state.resolve("engine").resolve("partition-1").resolve("state").resolve("arena.dat");
        MappedFile.growthFault = file ->
        {
            if (file.equals(arena))
            {
                throw new IOException(ENOSPC);
            }
        };
        final StringWriter err = new StringWriter();
        final int exit = replay(err, spec, events, state);
        final String text = err.toString();
        assertEquals(4, exit, text);
        assertFalse(text.contains("\tat ") || text.contains("unexpected"), "no stack trace, no unexpected error: " + text);
        assertEquals(1, text.strip().split("\n").length, "one line: " + text);
        assertTrue(text.startsWith("junction replay: "), text);
        assertTrue(text.contains(arena.toString()) && text.contains(ENOSPC), "names the file: " + text);

        MappedFile.growthFault = null;
        final StringWriter again = new StringWriter();
        // The failed run left its spools: the tool asks for --resume, and the engine's state starts afresh.
        assertEquals(0, replay(again, spec, events, state, "--resume"), again.toString());
    }

    private static int replay(final StringWriter err, final Path spec, final Path events, final Path state,
        final String... more)
    {
        final List<String> args = new ArrayList<>(List.of("replay", spec.toString(), events.toString(), "--partitions", "2",
            "--state", state.toString(), "--out", state.resolveSibling("out.jsonl").toString(),
            "--dead-letter", state.resolveSibling("dead.jsonl").toString()));
        args.addAll(List.of(more));
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args.toArray(new String[0]));
    }
}
