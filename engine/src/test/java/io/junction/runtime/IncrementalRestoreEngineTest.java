package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A restore that writes only the chunks that differ from the live state (docs/DURABILITY.md "What a restore
 * costs") against a full one, with a real durable regular join: an engine checkpoints, goes on (changing part of
 * its state) and stops without a clean close; one copy of its root keeps the live state (the incremental restore),
 * another has it deleted (the full copy). Both restore the same checkpoint into byte-identical state directories,
 * and replaying the same input from the checkpoint's position gives both the same output (fixed seeds).
 */
@Timeout(120)
class IncrementalRestoreEngineTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
        .leftKey("k").rightKey("k").build();

    @TempDir
    Path temp;

    /** One input event. */
    private record Event(Side side, ChangeKind kind, long key, long value)
    {
    }

    private static List<Event> events(final Random random, final int count)
    {
        final List<Event> events = new ArrayList<>(count);
        final List<Event> live = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            if (!live.isEmpty() && random.nextInt(5) == 0)
            {
                // A retraction of a row inserted before: state changes in place, not only at the arena's end.
                final Event inserted = live.remove(random.nextInt(live.size()));
                events.add(new Event(inserted.side, ChangeKind.DELETE, inserted.key, inserted.value));
                continue;
            }
            final Event e = new Event(random.nextBoolean() ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT, random.nextInt(3000),
                random.nextInt(1_000_000));
            events.add(e);
            live.add(e);
        }
        return events;
    }

    private static EngineConfig config(final Path root)
    {
        return EngineConfig.defaults().withPartitions(2).withRingSize(1024).withStateRoot(root)
            .withState(StateConfig.defaults().withMaxKeys(4096).withHashSeed(11));
    }

    private static JoinEngine start(final Path root, final ConcurrentLinkedQueue<String> lines)
    {
        return JoinEngine.builder(SPEC).config(config(root))
            .resultHandlers(p -> (kind, left, right, ts, step) -> lines.add(step + " " + kind + " " + left.getLong(0) + " " +
                left.getLong(1) + " " + (right == null ? "null" : right.getLong(1))))
            .start();
    }

    private static void publish(final JoinEngine engine, final List<Event> events, final int from, final int to)
    {
        final Publisher publisher = engine.publisher();
        for (int step = from; step < to; step++)
        {
            final Event e = events.get(step);
            assertEquals(Publisher.PUBLISHED, publisher.publish(e.side, e.kind, Row.of("k", e.key, "v", e.value), 0, step));
        }
    }

    private static void copy(final Path from, final Path to) throws IOException
    {
        try (Stream<Path> walk = Files.walk(from))
        {
            for (final Path path : walk.sorted(Comparator.naturalOrder()).toList())
            {
                final Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path))
                {
                    Files.createDirectories(target);
                }
                else
                {
                    Files.copy(path, target);
                }
            }
        }
    }

    /** @return every partition's state files (but the locks), relative to the root, with their bytes. */
    private static Map<String, byte[]> states(final Path root) throws IOException
    {
        final Map<String, byte[]> files = new LinkedHashMap<>();
        for (int p = 0; p < 2; p++)
        {
            final Path state = root.resolve("partition-" + p).resolve("state");
            try (Stream<Path> walk = Files.walk(state))
            {
                for (final Path path : walk.filter(Files::isRegularFile).sorted(Comparator.naturalOrder()).toList())
                {
                    if (!path.getFileName().toString().equals("LOCK"))
                    {
                        files.put(root.relativize(path).toString(), Files.readAllBytes(path));
                    }
                }
            }
        }
        return files;
    }

    @Test
    void anIncrementalRestoreGivesTheStateAndTheOutputOfAFullOne() throws Exception
    {
        for (int seed = 0; seed < 3; seed++)
        {
            final Random random = new Random(500 + seed);
            final List<Event> events = events(random, 30_000);
            final int checkpointAt = 12_000 + random.nextInt(4_000);
            final int stoppedAt = checkpointAt + 1 + random.nextInt(6_000);
            final Path root = temp.resolve("live-" + seed);
            try (JoinEngine first = start(root, new ConcurrentLinkedQueue<>()))
            {
                publish(first, events, 0, checkpointAt + 1);
                first.checkpoint(new long[] {checkpointAt}).get(60, TimeUnit.SECONDS);
                publish(first, events, checkpointAt + 1, stoppedAt);
            }
            // Stopped without positions: no clean-close record, the next start restores the checkpoint.
            final Path full = temp.resolve("full-" + seed);
            copy(root, full);
            for (int p = 0; p < 2; p++)
            {
                final Path state = full.resolve("partition-" + p).resolve("state");
                try (Stream<Path> files = Files.list(state))
                {
                    for (final Path file : files.toList())
                    {
                        Files.delete(file);
                    }
                }
            }
            final ConcurrentLinkedQueue<String> incrementalLines = new ConcurrentLinkedQueue<>();
            final ConcurrentLinkedQueue<String> fullLines = new ConcurrentLinkedQueue<>();
            try (JoinEngine incremental = start(root, incrementalLines); JoinEngine copied = start(full, fullLines))
            {
                assertArrayEquals(new long[] {checkpointAt}, incremental.restoredPositions(), "seed " + seed);
                assertArrayEquals(new long[] {checkpointAt}, copied.restoredPositions(), "seed " + seed);
                final Map<String, byte[]> a = states(root);
                final Map<String, byte[]> b = states(full);
                assertEquals(b.keySet(), a.keySet(), "seed " + seed + ": the state files");
                for (final Map.Entry<String, byte[]> file : b.entrySet())
                {
                    assertArrayEquals(file.getValue(), a.get(file.getKey()), "seed " + seed + ": " + file.getKey());
                }
                publish(incremental, events, checkpointAt + 1, events.size());
                publish(copied, events, checkpointAt + 1, events.size());
            }
            final List<String> x = new ArrayList<>(incrementalLines);
            final List<String> y = new ArrayList<>(fullLines);
            x.sort(null);
            y.sort(null);
            assertFalse(x.isEmpty(), "seed " + seed + ": the replay joins");
            assertEquals(y, x, "seed " + seed + ": the same output after an incremental and a full restore");
        }
    }
}
