package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable state of a multi-way join: a durable replay (state in files, checkpoints) gives the output of a
 * replay in memory, and a resume after a crash (its clean close and newest checkpoint gone) restores the
 * checkpoint before and produces the rest exactly once.
 */
class MultiJoinDurableTest
{
    @TempDir
    Path tmp;

    private static List<StepLine> sorted(final List<StepLine> lines)
    {
        final List<StepLine> copy = new ArrayList<>(lines);
        copy.sort(Comparator.comparingLong(StepLine::step).thenComparing(StepLine::json));
        return copy;
    }

    @Test
    void aDurableRunAndAResumeAfterACrashGiveTheOutputOfARunInMemory() throws IOException
    {
        final Random random = new Random(23);
        final String spec = "{\"join\":\"multi\",\"inputs\":[{\"name\":\"i0\",\"key\":[\"id\"]}," +
            "{\"name\":\"i1\",\"key\":[\"ref\"],\"type\":\"left\",\"stateTtl\":30},{\"name\":\"i2\",\"key\":[\"ref\"],\"type\":\"inner\"}," +
            "{\"name\":\"i3\",\"key\":[\"ref\"],\"type\":\"left\"}],\"condition\":[{\"left\":\"i0.a\",\"op\":\"<=\",\"right\":\"i3.b\"}]}";
        final StringBuilder log = new StringBuilder();
        for (int chunk = 0; chunk < 12; chunk++)
        {
            log.append(MultiJoinDifferentialTest.events(random, 4));
        }
        final List<String> all = Arrays.asList(log.toString().split("\n"));
        final Path specFile = tmp.resolve("multi.join.json");
        final Path events = tmp.resolve("multi.events.jsonl");
        Files.writeString(specFile, spec);
        Files.write(events, all);
        final ReplayResult memory = new Replay(Replay.config(2)).run(specFile, events);
        assertTrue(memory.results().size() > 50, "output lines: " + memory.results().size());

        final Path whole = tmp.resolve("whole");
        final ReplayResult durable = new Replay(Replay.config(2), new Replay.Durability(whole, 40, false, null)).run(specFile, events);
        assertEquals(sorted(memory.results()), sorted(durable.results()));
        assertEquals(sorted(memory.deadLetters()), sorted(durable.deadLetters()));

        // A run of the first half, made to look as if it had crashed: its clean close and its newest checkpoint removed.
        final Path state = tmp.resolve("state");
        final Path head = tmp.resolve("head.events.jsonl");
        Files.write(head, all.subList(0, all.size() / 2));
        new Replay(Replay.config(2), new Replay.Durability(state, 40, false, null)).run(specFile, head);
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
        final ReplayResult resumed = new Replay(Replay.config(2), new Replay.Durability(state, 40, true, null)).run(specFile, events);
        assertEquals(sorted(memory.results()), sorted(resumed.results()));
        assertEquals(sorted(memory.deadLetters()), sorted(resumed.deadLetters()));
    }
}
