package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.tools.cli.ReplayCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import io.junction.tools.JunctionCli;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * A durable replay in-process: the same output as a replay in memory, checkpoints on disk, a resume of a
 * completed run gives the same output again, and a resume after a crash that left output past the
 * checkpoint (spooled lines of steps the restore will produce again) gives it exactly once.
 */
@Timeout(300)
class DurableReplayTest
{
    @TempDir
    Path tmp;

    private static List<String> sorted(final List<StepLine> lines)
    {
        final List<StepLine> copy = new ArrayList<>(lines);
        copy.sort(Comparator.comparingLong(StepLine::step).thenComparing(StepLine::json));
        final List<String> texts = new ArrayList<>();
        for (final StepLine line : copy)
        {
            texts.add(line.json());
        }
        return texts;
    }

    @Test
    void aDurableReplayProducesTheOutputOfAReplayInMemoryAndResumesItsOwnEnd() throws IOException
    {
        for (final String kind : new String[] {"regular", "interval", "window", "temporal", "lookup", "asof"})
        {
            final Path spec = tmp.resolve(kind + ".join.json");
            final Path events = tmp.resolve(kind + ".events.jsonl");
            Files.writeString(spec, DurableKillTest.spec(kind));
            Files.write(events, DurableKillTest.events(kind, new Random(5)).subList(0, 3000));
            final ReplayResult memory = new Replay(Replay.config(2)).run(spec, events);
            assertTrue(memory.results().size() > 100, kind + ": output to compare, " + memory.results().size() + " lines");
            final Path state = tmp.resolve(kind + "-state");
            final ReplayResult durable = new Replay(Replay.config(2), new Replay.Durability(state, 250, false, null))
                .run(spec, events);
            assertEquals(sorted(memory.results()), sorted(durable.results()), kind);
            assertEquals(sorted(memory.deadLetters()), sorted(durable.deadLetters()), kind);
            assertTrue(Files.exists(state.resolve(Replay.STATE).resolve("partition-1").resolve("CLOSED")), kind);
            try (Stream<Path> checkpoints = Files.list(state.resolve(Replay.STATE).resolve("partition-0").resolve("checkpoints")))
            {
                assertEquals(2, checkpoints.count(), kind + ": the newest two checkpoints are kept");
            }
            final ReplayResult resumed = new Replay(Replay.config(2), new Replay.Durability(state, 250, true, null))
                .run(spec, events);
            assertEquals(sorted(memory.results()), sorted(resumed.results()), kind + ": a resume after the end adds nothing");
            assertEquals(sorted(memory.deadLetters()), sorted(resumed.deadLetters()), kind);

            // A new run refuses a directory that holds state.
            final IOException refused = assertThrows(IOException.class, () ->
                new Replay(Replay.config(2), new Replay.Durability(state, 250, false, null)).run(spec, events));
            assertTrue(refused.getMessage().contains("--resume"), refused.getMessage());
        }
    }

    @Test
    void resumingCutsTheSpooledOutputBackToTheRestoredPosition() throws IOException
    {
        final Path spec = tmp.resolve("regular.join.json");
        final Path events = tmp.resolve("regular.events.jsonl");
        Files.writeString(spec, DurableKillTest.spec("regular"));
        final List<String> all = DurableKillTest.events("regular", new Random(9)).subList(0, 2000);
        Files.write(events, all);
        final ReplayResult memory = new Replay(Replay.config(2)).run(spec, events);
        // A run of the first 1000 lines, then made to look as if it had crashed after step 999: its clean close
        // and its last checkpoint (at its end of input) are removed, the one at step 899 is left; the spools
        // hold output up to step 1000, which the resume must cut back to 899 and produce again.
        final Path state = tmp.resolve("state");
        final Path head = tmp.resolve("head.events.jsonl");
        Files.write(head, all.subList(0, 1000));
        new Replay(Replay.config(2), new Replay.Durability(state, 900, false, null)).run(spec, head);
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
        final ReplayResult resumed = new Replay(Replay.config(2), new Replay.Durability(state, 900, true, null))
            .run(spec, events);
        assertEquals(sorted(memory.results()), sorted(resumed.results()));
        assertEquals(sorted(memory.deadLetters()), sorted(resumed.deadLetters()));
        assertTrue(resumed.results().size() > 100);
    }

    @Test
    void theCommandLineTakesStateOptionsOnlyWithState()
    {
        final StringWriter err = new StringWriter();
        final picocli.CommandLine cli = JunctionCli.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(new StringWriter(), true));
        assertEquals(2, cli.execute("replay", "a.join.json", "b.events.jsonl", "--resume"));
        assertTrue(err.toString().contains("need --state"), err.toString());
        assertEquals(2, cli.execute("replay", "a.join.json", "b.events.jsonl", "--state", tmp.toString(), "--checkpoint-every", "0"));
        assertTrue(err.toString().contains("--checkpoint-every must be >= 1"), err.toString());
        assertEquals(4, ReplayCommand.EXIT_STATE);
    }
}
