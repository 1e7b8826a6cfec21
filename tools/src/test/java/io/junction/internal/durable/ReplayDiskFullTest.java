package io.junction.internal.durable;

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
 * {@code junction replay --state DIR} on a disk that fills up during a checkpoint: exit 4
 * and one line naming the file that could not be written, never exit 1 without a file. The full disk is
 * injected ({@link CheckpointStore#writeFault}, hence this package) instead of filling a real one; once there
 * is room again, {@code --resume} restores the checkpoint before and completes.
 */
@Timeout(120)
class ReplayDiskFullTest
{
    private static final String ENOSPC = "No space left on device";

    @TempDir
    Path tmp;

    @AfterEach
    void noFault()
    {
        CheckpointStore.writeFault = null;
    }

    @Test
    void aFullDiskDuringACheckpointIsExit4NamingTheFile() throws IOException
    {
        final Path spec = tmp.resolve("regular.join.json");
        final Path events = tmp.resolve("regular.events.jsonl");
        Files.writeString(spec, "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < 400; i++)
        {
            lines.add("{\"side\":\"" + (i % 2 == 0 ? "left" : "right") + "\",\"row\":{\"k\":" + (i % 17) + ",\"id\":" + i + "}}");
        }
        Files.write(events, lines);
        final Path state = tmp.resolve("state");
        // room for the first checkpoint (id 0, at step 99), none from the second one on
        CheckpointStore.writeFault = file ->
        {
            if (!file.getParent().getFileName().toString().equals(String.format("chk-%019d", 0)))
            {
                throw new IOException(ENOSPC);
            }
        };
        final StringWriter err = new StringWriter();
        final int exit = replay(err, spec, events, state);
        final String text = err.toString();
        assertEquals(4, exit, text);
        assertFalse(text.contains("\tat "), "no stack trace: " + text);
        assertEquals(1, text.strip().split("\n").length, "one line: " + text);
        assertTrue(text.startsWith("junction replay: "), text);
        assertTrue(text.contains(ENOSPC), text);
        assertTrue(text.contains(state.resolve("engine").resolve("partition-").toString()) && text.contains("chk-"),
            "names the file: " + text);

        CheckpointStore.writeFault = null;
        final StringWriter again = new StringWriter();
        assertEquals(0, replay(again, spec, events, state, "--resume"), again.toString());
    }

    @Test
    void aFullDiskAtTheCleanCloseIsExit4NamingTheFile() throws IOException
    {
        final Path spec = tmp.resolve("regular.join.json");
        final Path events = tmp.resolve("regular.events.jsonl");
        Files.writeString(spec, "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < 50; i++)
        {
            lines.add("{\"side\":\"" + (i % 2 == 0 ? "left" : "right") + "\",\"row\":{\"k\":" + (i % 7) + ",\"id\":" + i + "}}");
        }
        Files.write(events, lines);
        final Path state = tmp.resolve("state");
        // --checkpoint-every 100 on 50 steps: the clean close is the only checkpoint, and the disk is full
        CheckpointStore.writeFault = file ->
        {
            throw new IOException(ENOSPC);
        };
        final StringWriter err = new StringWriter();
        final int exit = replay(err, spec, events, state);
        final String text = err.toString();
        assertEquals(4, exit, text);
        assertFalse(text.contains("\tat "), "no stack trace: " + text);
        assertEquals(1, text.strip().split("\n").length, "one line: " + text);
        assertTrue(text.contains(ENOSPC), text);
        assertTrue(text.contains(state.resolve("engine").resolve("partition-").toString()) && text.contains("chk-"),
            "names the file: " + text);
        CheckpointStore.writeFault = null;
        final StringWriter again = new StringWriter();
        assertEquals(0, replay(again, spec, events, state, "--resume"), again.toString());
    }

    private static int replay(final StringWriter err, final Path spec, final Path events, final Path state, final String... more)
    {
        final List<String> args = new ArrayList<>(List.of("replay", spec.toString(), events.toString(), "--partitions", "2",
            "--state", state.toString(), "--checkpoint-every", "100", "--out", state.resolveSibling("out.jsonl").toString(),
            "--dead-letter", state.resolveSibling("dead.jsonl").toString()));
        args.addAll(List.of(more));
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args.toArray(new String[0]));
    }
}
