package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.JunctionCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code junction replay --state DIR --resume} refuses what it cannot resume exactly (items 3 and 7):
 * a spool (the output spooled under {@code DIR/output/}) with a flipped byte, truncated or deleted; an event
 * log changed or shortened within what the restored checkpoint consumed; another {@code --slot-capacity}
 * (or another option the state was built with). Each is exit 4 with one line naming the file or the option,
 * never exit 0 with wrong or short output. An undamaged resume, and one with lines appended to the log after
 * the restored checkpoint, give the output of an uninterrupted run.
 */
@Timeout(300)
class ResumeChecksTest
{
    private static final int EVERY = 500;

    @TempDir
    Path tmp;

    private final StringWriter err = new StringWriter();
    private Path spec;
    private Path events;
    private Path state;
    private Path out;
    private List<String> log;

    @BeforeEach
    void scenario() throws IOException
    {
        spec = tmp.resolve("regular.join.json");
        events = tmp.resolve("regular.events.jsonl");
        state = tmp.resolve("state");
        out = tmp.resolve("out.jsonl");
        Files.writeString(spec, DurableKillTest.spec("regular"));
        log = DurableKillTest.events("regular", new Random(9)).subList(0, 2000);
        Files.write(events, log);
    }

    private int replay(final Path eventLog, final String... more)
    {
        final List<String> args = new ArrayList<>(List.of("replay", spec.toString(), eventLog.toString(), "--partitions", "2",
            "--state", state.toString(), "--checkpoint-every", Integer.toString(EVERY), "--out", out.toString(),
            "--dead-letter", tmp.resolve("dead.jsonl").toString()));
        args.addAll(Arrays.asList(more));
        err.getBuffer().setLength(0);
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args.toArray(new String[0]));
    }

    /**
     * A run of {@code eventLog} made to look as if it had crashed after its last step: its clean close and the
     * close's checkpoint are removed, so a resume restores the periodic checkpoint before them.
     */
    private void crashedRun(final Path eventLog) throws IOException
    {
        assertEquals(0, replay(eventLog), err.toString());
        for (int p = 0; p < 2; p++)
        {
            final Path partition = state.resolve(Replay.STATE).resolve("partition-" + p);
            Files.delete(partition.resolve("CLOSED"));
            try (Stream<Path> checkpoints = Files.list(partition.resolve("checkpoints")))
            {
                final Path newest = checkpoints.sorted(Comparator.reverseOrder()).findFirst().orElseThrow();
                try (Stream<Path> files = Files.list(newest))
                {
                    for (final Path file : files.toList())
                    {
                        Files.delete(file);
                    }
                }
                Files.delete(newest);
            }
        }
    }

    private Path spool(final String name)
    {
        return state.resolve(Replay.OUTPUT).resolve(name);
    }

    private void assertRefused(final String... named)
    {
        final String text = err.toString();
        assertFalse(text.contains("\tat "), "no stack trace: " + text);
        assertTrue(text.startsWith("junction replay: "), text);
        assertEquals(1, text.strip().split("\n").length, "one line: " + text);
        for (final String name : named)
        {
            assertTrue(text.contains(name), "names " + name + ": " + text);
        }
    }

    private List<String> uninterrupted(final Path eventLog) throws IOException
    {
        final List<String> lines = new ArrayList<>();
        for (final StepLine line : new Replay(Replay.config(2)).run(spec, eventLog).results())
        {
            lines.add(line.json());
        }
        Collections.sort(lines);
        return lines;
    }

    private List<String> output() throws IOException
    {
        final List<String> lines = new ArrayList<>(Files.readAllLines(out, StandardCharsets.UTF_8));
        Collections.sort(lines);
        return lines;
    }

    @Test
    void anUndamagedResumeGivesTheOutputOfAnUninterruptedRun() throws IOException
    {
        crashedRun(events);
        assertEquals(0, replay(events, "--resume"), err.toString());
        assertEquals(uninterrupted(events), output());
        assertTrue(output().size() > 100);
        // and a resume of its clean close gives it again
        assertEquals(0, replay(events, "--resume"), err.toString());
        assertEquals(uninterrupted(events), output());
    }

    @Test
    void aFlippedByteInASpoolIsRefused() throws IOException
    {
        crashedRun(events);
        final Path file = spool("p0.results.jsonl");
        final byte[] bytes = Files.readAllBytes(file);
        // a digit of the first line's row: still valid JSON, another value
        final int at = new String(bytes, StandardCharsets.US_ASCII).indexOf("\"id\":") + 5;
        bytes[at] = (byte) (bytes[at] == '1' ? '2' : '1');
        Files.write(file, bytes);
        assertEquals(4, replay(events, "--resume"), err.toString());
        assertRefused(file.toString(), "damaged");
    }

    @Test
    void aTruncatedSpoolIsRefused() throws IOException
    {
        crashedRun(events);
        final Path file = spool("p1.results.jsonl");
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Files.write(file, lines.subList(0, lines.size() / 3)); // at a line boundary
        assertEquals(4, replay(events, "--resume"), err.toString());
        assertRefused(file.toString(), "truncated");
    }

    @Test
    void aDeletedSpoolIsRefused() throws IOException
    {
        crashedRun(events);
        for (final String name : new String[] {"p1.results.jsonl", "input.dead.jsonl", "p0.dead.jsonl"})
        {
            final Path file = spool(name);
            final Path kept = tmp.resolve(name + ".kept");
            Files.move(file, kept);
            assertEquals(4, replay(events, "--resume"), err.toString());
            assertRefused(file.toString(), "missing");
            Files.move(kept, file);
        }
        assertEquals(0, replay(events, "--resume"), err.toString());
        assertEquals(uninterrupted(events), output());
    }

    @Test
    void aChangedByteInTheConsumedPrefixOfTheLogIsRefused() throws IOException
    {
        crashedRun(events);
        final List<String> changed = new ArrayList<>(log);
        changed.set(10, changed.get(10).replace("\"id\":", "\"id\":9"));
        assertFalse(changed.get(10).equals(log.get(10)));
        Files.write(events, changed);
        assertEquals(4, replay(events, "--resume"), err.toString());
        assertRefused(events.toString(), "event log");
    }

    @Test
    void aShortenedLogIsRefused() throws IOException
    {
        crashedRun(events);
        Files.write(events, log.subList(0, 1200)); // the restored checkpoint consumed 1500 steps
        assertEquals(4, replay(events, "--resume"), err.toString());
        assertRefused(events.toString(), "event log");
    }

    @Test
    void anotherSlotCapacityIsRefused() throws IOException
    {
        crashedRun(events);
        assertEquals(4, replay(events, "--resume", "--slot-capacity", "2048"), err.toString());
        assertRefused("--slot-capacity", "2048");
        assertEquals(4, replay(events, "--resume", "--max-keys", "1000"), err.toString());
        assertRefused("--max-keys");
        // nothing was changed by the refusals
        assertEquals(0, replay(events, "--resume"), err.toString());
        assertEquals(uninterrupted(events), output());
    }

    @Test
    void linesAppendedAfterTheRestoredCheckpointAreReplayedButNotAfterACleanClose() throws IOException
    {
        final Path head = tmp.resolve("head.events.jsonl");
        Files.write(head, log.subList(0, 1200));
        crashedRun(head); // restores the checkpoint at step 999
        // appended rows that carry a new field would change the rows' fields the state was built with
        final Path newField = tmp.resolve("new-field.events.jsonl");
        final List<String> withNewField = new ArrayList<>(log);
        withNewField.add("{\"side\":\"left\",\"row\":{\"k\":1,\"other\":2}}");
        Files.write(newField, withNewField);
        assertEquals(4, replay(newField, "--resume"), err.toString());
        assertRefused("the rows' fields");
        assertEquals(0, replay(events, "--resume"), err.toString());
        assertEquals(uninterrupted(events), output());

        // a clean close consumed the whole log: its end of input was applied, so more lines cannot follow
        Files.delete(out);
        final Path longer = tmp.resolve("longer.events.jsonl");
        final List<String> more = new ArrayList<>(log);
        more.add(log.get(0));
        Files.write(longer, more);
        assertEquals(4, replay(longer, "--resume"), err.toString());
        assertRefused(longer.toString(), "event log");
    }
}
