package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.util.Locale;

/**
 * Moving partitions between processes through a shared checkpoint root (Junction as a Kafka consumer
 * group): two engines in one JVM stand for two processes, each with its own state root under a temporary
 * directory and one checkpoint root between them. A real durable interval left join keeps the state, so
 * that a row joins (or not) against state another engine checkpointed. No sleeps: results are awaited
 * with latches; what must not have happened is checked after a later marker result, which the ring's
 * order puts after it.
 */
@Timeout(120)
class PartitionMoveTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
        .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();
    private static final int PARTITIONS = 4;

    @TempDir
    Path temp;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final RowWriter writer = new RowWriter();

    /** What one engine emitted: "partition step left-k right-k-or-null" per result. */
    private static final class Sink
    {
        final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
        volatile CountDownLatch expected = new CountDownLatch(0);

        void expect(final int results)
        {
            expected = new CountDownLatch(results);
        }

        void await() throws InterruptedException
        {
            assertTrue(expected.await(30, TimeUnit.SECONDS), "expected results did not arrive: " + lines);
        }

        List<String> sorted()
        {
            final List<String> sorted = new ArrayList<>(lines);
            sorted.sort(null);
            return sorted;
        }
    }

    private static EngineConfig config(final Path stateRoot, final Path checkpointRoot, final StateConfig state)
    {
        return EngineConfig.defaults().withPartitions(PARTITIONS).withRingSize(256)
            .withState(state).withStateRoot(stateRoot).withCheckpointRoot(checkpointRoot);
    }

    private static StateConfig state()
    {
        return StateConfig.defaults().withMaxKeys(1024).withMaxStateBytes(64L << 20).withChunkSize(64 * 1024);
    }

    private static JoinEngine start(final EngineConfig config, final Sink sink)
    {
        return JoinEngine.builder(SPEC).config(config)
            .resultHandlers(p -> (kind, left, right, ts, step) ->
            {
                sink.lines.add(p + " " + step + " " + left.getLong(0) + " " +
                    (right == null ? "null" : Long.toString(right.getLong(0))));
                sink.expected.countDown();
            })
            .start();
    }

    private JoinEngine start(final Path stateRoot, final Path checkpointRoot, final Sink sink)
    {
        return start(config(stateRoot, checkpointRoot, state()), sink);
    }

    private void publish(final Publisher publisher, final int partition, final Side side, final long k, final long ts,
        final long step)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, step);
        final int length = writer.finish();
        assertEquals(Publisher.PUBLISHED, publisher.publish(partition, side, ChangeKind.INSERT, buffer, 0, length, ts, step,
            System.nanoTime()));
    }

    /** A left and a right row of a fresh key that join at once: the marker that everything before it was processed. */
    private void marker(final Publisher publisher, final Sink sink, final int partition, final long k, final long step)
        throws InterruptedException
    {
        sink.expect(1);
        publish(publisher, partition, Side.LEFT, k, 100, step);
        publish(publisher, partition, Side.RIGHT, k, 100, step + 1);
        sink.await();
    }

    /** The marker's rows without resetting the sink's latch: the caller expects them with the results before. */
    private void markerRows(final Publisher publisher, final Sink sink, final int partition, final long k, final long step)
        throws InterruptedException
    {
        publish(publisher, partition, Side.LEFT, k, 100, step);
        publish(publisher, partition, Side.RIGHT, k, 100, step + 1);
        sink.await();
    }

    private static <T> T get(final Future<T> future) throws Exception
    {
        return future.get(30, TimeUnit.SECONDS);
    }

    private static List<Long> checkpointIds(final Path checkpointRoot, final int partition) throws IOException
    {
        try (Stream<Path> entries = Files.list(checkpointRoot.resolve("partition-" + partition).resolve("checkpoints")))
        {
            return entries.map(e -> e.getFileName().toString()).filter(n -> n.startsWith("chk-"))
                .map(n -> Long.parseLong(n.substring(4))).sorted().collect(Collectors.toList());
        }
    }

    @Test
    void aPartitionCheckpointedAndDroppedByOneEngineIsTakenOverByAnotherWithItsState() throws Exception
    {
        final Path shared = temp.resolve("checkpoints");
        final Sink sinkA = new Sink();
        final Sink sinkB = new Sink();
        final int p = 2;
        final long idA;
        try (JoinEngine a = start(temp.resolve("a"), shared, sinkA); JoinEngine b = start(temp.resolve("b"), shared, sinkB))
        {
            assertEquals(a.config().state().hashSeed(), b.config().state().hashSeed(), "one seed for the group");
            final Publisher pa = a.publisher();
            publish(pa, p, Side.LEFT, 5, 100, 1);
            publish(pa, p, Side.LEFT, 6, 100, 2);
            final CompletedCheckpoint checkpoint = get(a.checkpointPartition(p, new long[] {11, 22}));
            idA = checkpoint.id();
            final CompletedCheckpoint dropped = get(a.dropPartition(p));
            assertNull(dropped.positions());
            assertEquals(-1, dropped.id());
            // A no longer holds the rows: a right row of key 5 pads nothing and joins nothing there.
            publish(pa, p, Side.RIGHT, 5, 101, 3);
            marker(pa, sinkA, p, 900, 4);
            assertEquals(List.of(p + " 5 900 900"), sinkA.sorted(), "A's partition was empty after the drop");

            final Publisher pb = b.publisher();
            final CompletedCheckpoint taken = get(b.takeOverPartition(p));
            assertArrayEquals(new long[] {11, 22}, taken.positions());
            assertEquals(idA, taken.id());
            sinkB.expect(1);
            publish(pb, p, Side.RIGHT, 5, 102, 10);
            sinkB.await();
            assertEquals(List.of(p + " 10 5 5"), sinkB.sorted(), "B joined the new row against A's state");

            // B's checkpoints of the partition are newer than A's, though B's own count starts anew; two remain.
            long previous = idA;
            for (int i = 0; i < 4; i++)
            {
                final CompletedCheckpoint next = get(b.checkpointPartition(p, new long[] {33 + i, 44 + i}));
                assertTrue(next.id() > previous, "checkpoint " + next.id() + " above " + previous);
                previous = next.id();
            }
            assertEquals(List.of(previous - 1, previous), checkpointIds(shared, p), "the newest two remain");
            // The newest is the one a next owner gets.
            final CompletedCheckpoint again = get(a.takeOverPartition(p));
            assertArrayEquals(new long[] {36, 47}, again.positions());
            assertEquals(previous, again.id());
            sinkA.expect(1);
            publish(pa, p, Side.RIGHT, 6, 103, 20);
            sinkA.await();
            assertTrue(sinkA.lines.contains(p + " 20 6 6"), "A has the state back: " + sinkA.lines);
        }
    }

    @Test
    void takingOverAtCommittedPositionsRestoresTheCheckpointWithThosePositions() throws Exception
    {
        final Path shared = temp.resolve("checkpoints");
        final int p = 1;
        final Sink sinkA = new Sink();
        final long older;
        final long newer;
        try (JoinEngine a = start(temp.resolve("a"), shared, sinkA))
        {
            final Publisher pa = a.publisher();
            publish(pa, p, Side.LEFT, 5, 100, 1);
            older = get(a.checkpointPartition(p, new long[] {1, 2})).id();
            publish(pa, p, Side.LEFT, 6, 100, 2);
            newer = get(a.checkpointPartition(p, new long[] {3, 4})).id();
            assertTrue(newer > older);
        }
        final Sink sink = new Sink();
        try (JoinEngine b = start(temp.resolve("b"), shared, sink))
        {
            final Publisher pb = b.publisher();
            // {1, 2}: the older checkpoint, which holds left 5 but not left 6.
            final CompletedCheckpoint atOlder = get(b.takeOverPartition(p, new long[] {1, 2}));
            assertEquals(older, atOlder.id());
            assertArrayEquals(new long[] {1, 2}, atOlder.positions());
            sink.expect(2);
            publish(pb, p, Side.RIGHT, 5, 101, 10);
            publish(pb, p, Side.RIGHT, 6, 101, 11);
            markerRows(pb, sink, p, 900, 12);
            assertEquals(List.of(p + " 10 5 5", p + " 13 900 900"), sink.sorted(), "the older state: 5 joins, 6 is not there");

            // {3, 4}: the newer one, which holds both.
            sink.lines.clear();
            final CompletedCheckpoint atNewer = get(b.takeOverPartition(p, new long[] {3, 4}));
            assertEquals(newer, atNewer.id());
            sink.expect(2);
            publish(pb, p, Side.RIGHT, 6, 101, 20);
            markerRows(pb, sink, p, 901, 21);
            assertEquals(List.of(p + " 20 6 6", p + " 22 901 901"), sink.sorted(), "the newer state: 6 joins");

            // {9, 9}: no checkpoint has them: fails, naming the positions and the directory; the state stays.
            sink.lines.clear();
            final ExecutionException failure = assertThrows(ExecutionException.class,
                () -> get(b.takeOverPartition(p, new long[] {9, 9})));
            assertInstanceOf(CheckpointException.class, failure.getCause());
            final String message = failure.getCause().getMessage();
            assertTrue(message.contains("[9, 9]"), message);
            assertTrue(message.contains(shared.resolve("partition-" + p).resolve("checkpoints").toString()), message);
            sink.expect(2);
            publish(pb, p, Side.RIGHT, 6, 101, 30);
            markerRows(pb, sink, p, 902, 31);
            assertEquals(List.of(p + " 30 6 6", p + " 32 902 902"), sink.sorted(), "the failed take-over kept the state");

            // null: nothing was ever committed, so no checkpoint counts: the partition is emptied.
            sink.lines.clear();
            final CompletedCheckpoint nothing = get(b.takeOverPartition(p, null));
            assertNull(nothing.positions());
            assertEquals(-1, nothing.id());
            publish(pb, p, Side.RIGHT, 5, 101, 40);
            publish(pb, p, Side.RIGHT, 6, 101, 41);
            marker(pb, sink, p, 903, 42);
            assertEquals(List.of(p + " 43 903 903"), sink.sorted(), "empty: neither 5 nor 6 is there");
            assertEquals(List.of(older, newer), checkpointIds(shared, p), "an emptying take-over deletes no checkpoint");
        }
    }

    @Test
    void theCommittedCheckpointSurvivesTwoOwnersDyingBetweenCheckpointAndCommit() throws Exception
    {
        final Path shared = temp.resolve("checkpoints");
        final int p = 0;
        final long committed;
        try (JoinEngine a = start(temp.resolve("a"), shared, new Sink()))
        {
            final Publisher pa = a.publisher();
            publish(pa, p, Side.LEFT, 5, 100, 1);
            committed = get(a.checkpointPartition(p, new long[] {1, 1})).id();
            publish(pa, p, Side.LEFT, 6, 100, 2);
            // Written, never committed: the owner dies before its commit.
            get(a.checkpointPartition(p, new long[] {2, 1}));
        }
        try (JoinEngine b = start(temp.resolve("b"), shared, new Sink()))
        {
            assertEquals(committed, get(b.takeOverPartition(p, new long[] {1, 1})).id());
            publish(b.publisher(), p, Side.LEFT, 7, 100, 2);
            // The new owner's checkpoint, also never committed: the newest two are now this one and A's
            // uncommitted one, but the committed one it was restored from stays.
            get(b.checkpointPartition(p, new long[] {2, 1}));
            assertTrue(checkpointIds(shared, p).contains(committed), checkpointIds(shared, p).toString());
        }
        final Sink sink = new Sink();
        try (JoinEngine c = start(temp.resolve("c"), shared, sink))
        {
            final Publisher pc = c.publisher();
            assertEquals(committed, get(c.takeOverPartition(p, new long[] {1, 1})).id());
            sink.expect(2);
            publish(pc, p, Side.RIGHT, 5, 101, 10);
            publish(pc, p, Side.RIGHT, 6, 101, 11);
            publish(pc, p, Side.RIGHT, 7, 101, 12);
            markerRows(pc, sink, p, 900, 13);
            assertEquals(List.of(p + " 10 5 5", p + " 14 900 900"), sink.sorted(), "the committed state exactly");
            // Its own first checkpoint after that still keeps the one it restored until the next.
            get(c.checkpointPartition(p, new long[] {3, 3}));
            assertTrue(checkpointIds(shared, p).contains(committed), checkpointIds(shared, p).toString());
        }
    }

    @Test
    void takingOverAPartitionNobodyCheckpointedEmptiesIt() throws Exception
    {
        final Sink sink = new Sink();
        try (JoinEngine engine = start(temp.resolve("a"), temp.resolve("checkpoints"), sink))
        {
            final Publisher publisher = engine.publisher();
            publish(publisher, 1, Side.LEFT, 7, 100, 1);
            final CompletedCheckpoint taken = get(engine.takeOverPartition(1));
            assertNull(taken.positions(), "no checkpoint: resume from the input's own position");
            assertEquals(-1, taken.id());
            publish(publisher, 1, Side.RIGHT, 7, 101, 2);
            marker(publisher, sink, 1, 900, 3);
            assertEquals(List.of("1 4 900 900"), sink.sorted(), "the row published before the take-over is gone");
        }
    }

    @Test
    void takingOverAPartitionWhoseEveryCheckpointIsDamagedFailsAndTheStateStays() throws Exception
    {
        final Path shared = temp.resolve("checkpoints");
        final Sink sinkA = new Sink();
        try (JoinEngine a = start(temp.resolve("a"), shared, sinkA))
        {
            final Publisher pa = a.publisher();
            for (int i = 0; i < 50; i++)
            {
                publish(pa, 3, Side.LEFT, 1000 + i, 100, i);
            }
            get(a.checkpointPartition(3, new long[] {1}));
        }
        final List<Long> ids = checkpointIds(shared, 3);
        assertEquals(1, ids.size());
        final Path checkpoint = shared.resolve("partition-3").resolve("checkpoints").resolve(
            String.format(Locale.ROOT, "chk-%019d", ids.get(0)));
        assertTrue(Files.isDirectory(checkpoint), checkpoint + " is where the store keeps it");
        final Path victim;
        try (Stream<Path> files = Files.walk(checkpoint))
        {
            victim = files.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith("MANIFEST"))
                .max(Comparator.comparingLong(f -> f.toFile().length())).orElseThrow();
        }
        try (FileChannel channel = FileChannel.open(victim, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            final long at = channel.size() / 2;
            channel.read(one, at);
            one.put(0, (byte)(one.get(0) ^ 0x5a)).rewind();
            channel.write(one, at);
        }

        final Sink sinkB = new Sink();
        try (JoinEngine b = start(temp.resolve("b"), shared, sinkB))
        {
            final Publisher pb = b.publisher();
            publish(pb, 3, Side.LEFT, 7, 100, 1);
            final ExecutionException failure = assertThrows(ExecutionException.class, () -> get(b.takeOverPartition(3)));
            assertInstanceOf(CheckpointException.class, failure.getCause());
            assertTrue(failure.getCause().getMessage().contains("partition 3"), failure.getCause().getMessage());
            // Never silently empty, and nothing released: the partition keeps the state it had and goes on.
            sinkB.expect(1);
            publish(pb, 3, Side.RIGHT, 7, 101, 2);
            sinkB.await();
            publish(pb, 3, Side.RIGHT, 1000, 101, 3);
            marker(pb, sinkB, 3, 900, 4);
            assertEquals(List.of("3 2 7 7", "3 5 900 900"), sinkB.sorted(), "B's own row joined, A's damaged state is not there");
        }
    }

    @Test
    void enginesStartingTogetherOnAFreshCheckpointRootEndWithOneSeed() throws Exception
    {
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            for (int round = 0; round < 10; round++)
            {
                final Path shared = temp.resolve("checkpoints-" + round);
                final CountDownLatch go = new CountDownLatch(1);
                final List<Future<JoinEngine>> starts = new ArrayList<>();
                for (int i = 0; i < 2; i++)
                {
                    final Path stateRoot = temp.resolve("state-" + round + "-" + i);
                    starts.add(threads.submit(() ->
                    {
                        go.await();
                        return start(stateRoot, shared, new Sink());
                    }));
                }
                go.countDown();
                try (JoinEngine first = get(starts.get(0)); JoinEngine second = get(starts.get(1)))
                {
                    assertEquals(first.config().state().hashSeed(), second.config().state().hashSeed(), "round " + round);
                }
                try (Stream<Path> entries = Files.list(shared))
                {
                    assertEquals(List.of(JoinEngine.SEED_FILE), entries.map(e -> e.getFileName().toString())
                        .filter(n -> !n.startsWith("partition-")).sorted().collect(Collectors.toList()),
                        "one seed file, no temporary file left");
                }
            }
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    @Test
    void aFixedSeedOtherThanTheCheckpointRootsIsRefused() throws Exception
    {
        final Path shared = temp.resolve("checkpoints");
        final long seed;
        try (JoinEngine first = start(temp.resolve("a"), shared, new Sink()))
        {
            seed = first.config().state().hashSeed();
        }
        final CheckpointException refused = assertThrows(CheckpointException.class,
            () -> start(config(temp.resolve("b"), shared, state().withHashSeed(seed + 1)), new Sink()));
        assertTrue(refused.getMessage().contains(JoinEngine.SEED_FILE), refused.getMessage());
        try (JoinEngine same = start(config(temp.resolve("b"), shared, state().withHashSeed(seed)), new Sink()))
        {
            assertEquals(seed, same.config().state().hashSeed(), "the file's own seed, fixed, is accepted");
        }
        // A fixed seed on a fresh checkpoint root becomes the group's.
        try (JoinEngine fixed = start(config(temp.resolve("c"), temp.resolve("fresh"), state().withHashSeed(42)), new Sink());
            JoinEngine drawn = start(temp.resolve("d"), temp.resolve("fresh"), new Sink()))
        {
            assertEquals(42, fixed.config().state().hashSeed());
            assertEquals(42, drawn.config().state().hashSeed());
        }
    }

    @Test
    void engineWideCheckpointsAndCleanClosesAreRefusedWithACheckpointRoot() throws Exception
    {
        final Path shared = temp.resolve("checkpoints");
        final JoinEngine engine = start(temp.resolve("a"), shared, new Sink());
        try (engine)
        {
            assertThrows(IllegalStateException.class, () -> engine.checkpoint(new long[] {1}));
            assertThrows(IllegalStateException.class, () -> engine.close(new long[] {1}));
            assertFalse(engine.isClosed(), "a refused clean close does not close");
            assertNotNull(get(engine.checkpointPartition(0, new long[] {1})));
        }
        assertTrue(engine.isClosed());
        assertThrows(IllegalArgumentException.class, () -> start(EngineConfig.defaults().withPartitions(PARTITIONS)
            .withState(state()).withCheckpointRoot(shared), new Sink()), "a checkpoint root needs a state root");
        assertThrows(IllegalArgumentException.class, () -> start(config(temp.resolve("b"), shared, state())
            .withCheckpointInterval(100, Duration.ZERO), new Sink()), "interval checkpoints are engine-wide");
    }

    @Test
    void anUntouchedPartitionCanBeCheckpointedRestoredTakenOverAndDropped() throws Exception
    {
        for (final Path checkpointRoot : new Path[] {temp.resolve("checkpoints"), null})
        {
            final Path stateRoot = temp.resolve(checkpointRoot == null ? "own" : "scratch");
            final Sink sink = new Sink();
            try (JoinEngine engine = start(stateRoot, checkpointRoot, sink))
            {
                final CompletedCheckpoint written = get(engine.checkpointPartition(0, new long[] {5, 6}));
                final CompletedCheckpoint restored = get(engine.restorePartition(0));
                assertArrayEquals(new long[] {5, 6}, restored.positions(), String.valueOf(checkpointRoot));
                assertEquals(written.id(), restored.id());
                final CompletedCheckpoint taken = get(engine.takeOverPartition(0));
                assertArrayEquals(new long[] {5, 6}, taken.positions());
                assertNull(get(engine.dropPartition(0)).positions());
                assertNull(get(engine.takeOverPartition(1)).positions(), "partition 1 has no checkpoint");
                // Every partition still works.
                final Publisher publisher = engine.publisher();
                marker(publisher, sink, 0, 900, 1);
                marker(publisher, sink, 1, 901, 3);
            }
            assertEquals(List.of("0 2 900 900", "1 4 901 901"), sink.sorted());
        }
    }

    @Test
    void aStateRootWithStateOfAnEarlierRunStartsEmpty() throws Exception
    {
        final Path stateRoot = temp.resolve("a");
        // An earlier run without the checkpoint root closed cleanly: it left state and clean-close records.
        try (JoinEngine earlier = start(stateRoot, null, new Sink()))
        {
            final Publisher publisher = earlier.publisher();
            for (int p = 0; p < PARTITIONS; p++)
            {
                publish(publisher, p, Side.LEFT, 100 + p, 100, p);
            }
            earlier.close(new long[] {PARTITIONS});
        }
        assertTrue(Files.exists(stateRoot.resolve("partition-0").resolve(DurablePartition.CLOSED)));
        assertTrue(hasState(stateRoot, 0), "the earlier run left state");

        final Sink sink = new Sink();
        try (JoinEngine engine = start(stateRoot, temp.resolve("checkpoints"), sink))
        {
            assertNull(engine.restoredPositions(), "nothing recovered");
            for (int p = 0; p < PARTITIONS; p++)
            {
                assertFalse(Files.exists(stateRoot.resolve("partition-" + p).resolve(DurablePartition.CLOSED)));
            }
            final Publisher publisher = engine.publisher();
            for (int p = 0; p < PARTITIONS; p++)
            {
                publish(publisher, p, Side.RIGHT, 100 + p, 101, 10 + p);
                marker(publisher, sink, p, 900 + p, 20 + 2 * p);
            }
            assertEquals(List.of("0 21 900 900", "1 23 901 901", "2 25 902 902", "3 27 903 903"), sink.sorted(),
                "no right row found the earlier run's left row");
        }

        // A state root of another join is not scratch to delete.
        final JoinSpec other = JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();
        assertThrows(CheckpointException.class, () -> JoinEngine.builder(other)
            .config(config(stateRoot, temp.resolve("checkpoints"), state())).resultHandler((k, l, r, ts, s) -> { }).start());
    }

    private static boolean hasState(final Path stateRoot, final int partition) throws IOException
    {
        try (Stream<Path> files = Files.list(stateRoot.resolve("partition-" + partition).resolve(DurablePartition.STATE)))
        {
            return files.anyMatch(f -> !f.getFileName().toString().equals("LOCK"));
        }
    }
}
