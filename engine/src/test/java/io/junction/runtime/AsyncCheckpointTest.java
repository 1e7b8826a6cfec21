package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.cut.CellWaitSeam;
import io.junction.internal.metrics.EngineBeans;
import io.junction.join.StateConfig;
import io.junction.metrics.CheckpointPausePart;
import io.junction.metrics.PartitionSnapshot;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Asynchronous checkpoints (docs/DURABILITY.md "What runs where"): the partition thread takes the cut and goes
 * on while its {@link CheckpointWriter} writes it. Each test holds the background write with the writer's test
 * seam ({@link CheckpointWriter#beforeWrite}, a latch: no sleeps), changes the state meanwhile, and restores the
 * checkpoint in a new engine to compare its state, probed key by key, with a model of the state at the barrier.
 */
@Timeout(120)
class AsyncCheckpointTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();
    /** Left rows of phase one: enough for an arena of several 1 MiB chunks, so that a later cut links some. */
    private static final int KEYS = 40_000;

    @TempDir
    Path temp;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView view = new RowView();
    /** The model: the left rows in state, as {@link #pair}s. */
    private final Set<Long> model = new HashSet<>();
    private long step;

    @AfterEach
    void noHooks()
    {
        CheckpointWriter.beforeWrite = null;
        CheckpointWriter.onWait = null;
        CheckpointWriter.sideBuffers = -1;
        CellWaitSeam.set(null);
    }

    private static long pair(final long k, final long v)
    {
        return k * 10_000_000L + v;
    }

    private RowView row(final long k, final long v)
    {
        return view.wrap(buffer, 0, new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v).finish());
    }

    private JoinEngine start(final Path root, final Set<Long> probed, final CountDownLatch results)
    {
        return start(root, probed, results, 1);
    }

    private JoinEngine start(final Path root, final Set<Long> probed, final CountDownLatch results, final int partitions)
    {
        return JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(partitions).withRingSize(1024)
                .withState(StateConfig.defaults().withMaxKeys(1 << 17).withHashSeed(7)).withStateRoot(root))
            .resultHandler((kind, left, right, ts, s) ->
            {
                probed.add(pair(left.getLong(0), left.getLong(1)));
                results.countDown();
            })
            .start();
    }

    private void insert(final Publisher publisher, final long k, final long v)
    {
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(k, v), 0, step++));
        model.add(pair(k, v));
    }

    private void delete(final Publisher publisher, final long k, final long v)
    {
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.DELETE, row(k, v), 0, step++));
        model.remove(pair(k, v));
    }

    /** Phase one: a row per key. */
    private void fill(final Publisher publisher)
    {
        for (long k = 0; k < KEYS; k++)
        {
            insert(publisher, k, k);
        }
    }

    /** A few changes: second rows for some keys, a delete. */
    private void change(final Publisher publisher, final int from, final int to, final long tag, final long deleted)
    {
        for (long k = from; k < to; k++)
        {
            insert(publisher, k, k + tag);
        }
        delete(publisher, deleted, deleted);
    }

    /** Holds the first background write (counting every write in {@code writes}) until {@code release}; {@code held} says it began. */
    private static void holdFirstWrite(final AtomicInteger writes, final CountDownLatch held, final CountDownLatch release)
    {
        CheckpointWriter.beforeWrite = p ->
        {
            if (writes.incrementAndGet() == 1)
            {
                held.countDown();
                assertTrue(release.await(60, TimeUnit.SECONDS));
            }
        };
    }

    private long[] at()
    {
        return new long[] {step - 1};
    }

    /** A right row of key {@code k} that joins, and its result awaited: the partition has applied everything before it. */
    private void probeOne(final Publisher publisher, final long k, final CountDownLatch results) throws InterruptedException
    {
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(k, 0), 0, step++));
        assertTrue(results.await(60, TimeUnit.SECONDS), "the partition applied the events behind the barrier " +
            "while the checkpoint's write was held");
    }

    /**
     * Restores the newest checkpoint in a new engine and asserts it was taken at {@code positions} and holds
     * exactly {@code expected}: every key probed by a right row, every left row that joins collected.
     */
    private void assertRestored(final Path root, final long[] positions, final Set<Long> expected) throws Exception
    {
        assertRestored(root, positions, expected, 1);
    }

    private void assertRestored(final Path root, final long[] positions, final Set<Long> expected, final int partitions)
        throws Exception
    {
        final Set<Long> probed = ConcurrentHashMap.newKeySet();
        final CountDownLatch all = new CountDownLatch(expected.size());
        try (JoinEngine engine = start(root, probed, all, partitions))
        {
            assertArrayEquals(positions, engine.restoredPositions());
            final Publisher publisher = engine.publisher();
            long s = positions[0] + 1;
            for (long k = 0; k < KEYS; k++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(k, 0), 0, s++));
            }
            assertTrue(all.await(60, TimeUnit.SECONDS), "results of the probes: " + probed.size() + " of " + expected.size());
        }
        assertEquals(expected, new HashSet<>(probed), "the restored state is the state at the barrier, not after it");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void theSnapshotIsExactlyTheCutWhileThePartitionKeepsChangingTheState(final int partitions) throws Exception
    {
        final Path root = temp.resolve("root");
        final CountDownLatch held = new CountDownLatch(partitions);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger writes = new AtomicInteger();
        final CountDownLatch probe = new CountDownLatch(1);
        final Set<Long> cut;
        final long[] positions;
        try (JoinEngine engine = start(root, ConcurrentHashMap.newKeySet(), probe, partitions))
        {
            final Publisher publisher = engine.publisher();
            fill(publisher);
            engine.checkpoint(at()).get(60, TimeUnit.SECONDS);
            final PartitionSnapshot first = engine.metrics().get(0);
            assertTrue(first.lastCheckpointBytesStaged > (1 << 20), "the first cut staged every chunk: " + first);
            change(publisher, 0, 100, 1_000_000, 5000);
            cut = new HashSet<>(model);
            positions = at();
            CheckpointWriter.beforeWrite = p ->
            {
                writes.incrementAndGet();
                held.countDown();
                assertTrue(release.await(60, TimeUnit.SECONDS));
            };
            final CompletableFuture<CompletedCheckpoint> second = engine.checkpoint(positions);
            assertTrue(held.await(60, TimeUnit.SECONDS), "the background writes began, one per partition");
            // The write is held: the partition goes on and changes chunks the cut holds, and others.
            change(publisher, 100, 300, 2_000_000, 7000);
            change(publisher, 0, 50, 3_000_000, 9000);
            delete(publisher, 0, 1_000_000);
            probeOne(publisher, KEYS - 1, probe);
            assertTrue(!second.isDone(), "the checkpoint completes only once its write is done");
            release.countDown();
            final CompletedCheckpoint done = second.get(60, TimeUnit.SECONDS);
            assertArrayEquals(positions, done.positions());
            for (final PartitionSnapshot metrics : engine.metrics())
            {
                assertEquals(2, metrics.checkpoints, metrics.toString());
                assertTrue(metrics.lastCheckpointWriteNanos > 0, metrics.toString());
                assertPausePartsAddUp(metrics);
            }
            if (partitions == 1)
            {
                final PartitionSnapshot metrics = engine.metrics().get(0);
                assertTrue(metrics.lastCheckpointBytesLinked > 0, "chunks that did not change are linked: " + metrics);
                assertTrue(metrics.lastCheckpointBytesStaged < first.lastCheckpointBytesStaged,
                    "the second cut staged its dirty chunks only: " + metrics);
            }
            assertEquals(partitions, writes.get());
        }
        assertRestored(root, positions, cut, partitions);
    }

    /**
     * A cut of many chunks against a staging memory of one capture buffer and one side buffer: the writer drains
     * it chunk by chunk while the partition applies the events behind the barrier (second rows for every key,
     * writes all over the frozen chunks: most find no side buffer and ask the writer for their chunk); both
     * checkpoints restore exactly their cuts, and neither falls back to a synchronous checkpoint.
     */
    @Test
    void aCutMuchLargerThanTheStagingMemoryIsWrittenExactlyWhileThePartitionWrites() throws Exception
    {
        CheckpointWriter.sideBuffers = 1;
        final Path root = temp.resolve("root");
        final Set<Long> cut;
        final long[] positions;
        try (JoinEngine engine = start(root, ConcurrentHashMap.newKeySet(), new CountDownLatch(0)))
        {
            final Publisher publisher = engine.publisher();
            fill(publisher);
            final CompletableFuture<CompletedCheckpoint> first = engine.checkpoint(at());
            // Behind the barrier, while the first (every chunk new) is drained: changes all over the state.
            change(publisher, 0, KEYS, 1_000_000, 5000);
            first.get(60, TimeUnit.SECONDS);
            final PartitionSnapshot metrics = engine.metrics().get(0);
            assertTrue(metrics.lastCheckpointBytesStaged > 4L * (1 << 20), "a cut of many chunks: " + metrics);
            cut = new HashSet<>(model);
            positions = at();
            final CompletableFuture<CompletedCheckpoint> second = engine.checkpoint(positions);
            change(publisher, 0, KEYS, 2_000_000, 7000);
            assertArrayEquals(positions, second.get(60, TimeUnit.SECONDS).positions());
            assertEquals(2, engine.metrics().get(0).checkpoints);
        }
        assertRestored(root, positions, cut);
    }

    /**
     * With no side buffer and the background write held, the partition's first store into a frozen chunk waits for
     * the writer to capture it: the wait is counted in the partition's metrics and JMX ({@code checkpointSideWaits})
     * once the write is released, and no cut falls back to a synchronous checkpoint.
     */
    @Test
    void aWriteThatWaitsForTheWritersCaptureIsCountedInTheMetrics() throws Exception
    {
        CheckpointWriter.sideBuffers = 0;
        final Path root = temp.resolve("root");
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch cellWait = new CountDownLatch(1);
        final AtomicInteger writes = new AtomicInteger();
        final Set<Long> cut;
        final long[] positions;
        try (JoinEngine engine = start(root, ConcurrentHashMap.newKeySet(), new CountDownLatch(0)))
        {
            final Publisher publisher = engine.publisher();
            fill(publisher);
            holdFirstWrite(writes, held, release);
            final long[] firstPositions = at();
            final CompletableFuture<CompletedCheckpoint> first = engine.checkpoint(firstPositions);
            assertTrue(held.await(60, TimeUnit.SECONDS));
            assertEquals(0, engine.metrics().get(0).checkpointSideWaits, "no write has waited yet");
            CellWaitSeam.set(cellWait::countDown);
            change(publisher, 0, 100, 1_000_000, 5000);
            assertTrue(cellWait.await(60, TimeUnit.SECONDS), "a store into a frozen chunk waits for the held writer");
            release.countDown();
            assertArrayEquals(firstPositions, first.get(60, TimeUnit.SECONDS).positions());
            cut = new HashSet<>(model);
            positions = at();
            assertArrayEquals(positions, engine.checkpoint(positions).get(60, TimeUnit.SECONDS).positions());
            final PartitionSnapshot metrics = engine.metrics().get(0);
            assertTrue(metrics.checkpointSideWaits >= 1, metrics.toString());
            assertEquals(0, metrics.checkpointSynchronousFallbacks, metrics.toString());
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            final ObjectName bean = EngineBeans.partitionName(engine.name(), 0);
            assertEquals(metrics.checkpointSideWaits, server.getAttribute(bean, "CheckpointSideWaits"));
            assertEquals(0L, server.getAttribute(bean, "CheckpointSynchronousFallbacks"));
        }
        assertRestored(root, positions, cut);
    }

    @Test
    void aBarrierWhileThePreviousWriteIsInFlightWaitsForItAndBothCheckpointsComplete() throws Exception
    {
        final Path root = temp.resolve("root");
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch waiting = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger writes = new AtomicInteger();
        final Set<Long> cut;
        final long[] positions;
        try (JoinEngine engine = start(root, ConcurrentHashMap.newKeySet(), new CountDownLatch(0)))
        {
            final Publisher publisher = engine.publisher();
            fill(publisher);
            holdFirstWrite(writes, held, release);
            CheckpointWriter.onWait = p -> waiting.countDown();
            final CompletableFuture<CompletedCheckpoint> first = engine.checkpoint(at());
            assertTrue(held.await(60, TimeUnit.SECONDS));
            change(publisher, 0, 100, 1_000_000, 5000);
            cut = new HashSet<>(model);
            positions = at();
            final CompletableFuture<CompletedCheckpoint> second = engine.checkpoint(positions);
            assertTrue(waiting.await(60, TimeUnit.SECONDS), "the second barrier waits for the first write");
            change(publisher, 100, 200, 2_000_000, 7000);
            release.countDown();
            first.get(60, TimeUnit.SECONDS);
            assertArrayEquals(positions, second.get(60, TimeUnit.SECONDS).positions());
            final PartitionSnapshot metrics = engine.metrics().get(0);
            assertEquals(2, metrics.checkpoints, metrics.toString());
            assertEquals(1, metrics.checkpointWaits, metrics.toString());
            assertPausePartsAddUp(metrics);
            assertTrue(metrics.lastCheckpointPauseNanos(CheckpointPausePart.WAIT) > 0, "the wait is a part of the pause");
            assertEquals(2, writes.get());
        }
        assertRestored(root, positions, cut);
    }

    /** The pause's parts (docs/DURABILITY.md "What a checkpoint costs, measured") are never negative and add up to it. */
    private static void assertPausePartsAddUp(final PartitionSnapshot metrics)
    {
        long sum = 0;
        for (final CheckpointPausePart part : CheckpointPausePart.values())
        {
            final long nanos = metrics.lastCheckpointPauseNanos(part);
            assertTrue(nanos >= 0, part + ": " + nanos);
            sum += nanos;
        }
        assertEquals(metrics.lastCheckpointPauseNanos, sum, "the parts add up to the pause");
        assertTrue(metrics.lastCheckpointPauseNanos(CheckpointPausePart.COLLECT) +
            metrics.lastCheckpointPauseNanos(CheckpointPausePart.FREEZE) +
            metrics.lastCheckpointPauseNanos(CheckpointPausePart.HEAP_IMAGE) > 0, "the cut's parts were timed");
    }

    @Test
    void aCloseWhileAWriteIsInFlightWaitsForIt() throws Exception
    {
        final Path root = temp.resolve("root");
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch waiting = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final JoinEngine engine = start(root, ConcurrentHashMap.newKeySet(), new CountDownLatch(0));
        final Publisher publisher = engine.publisher();
        fill(publisher);
        final Set<Long> cut = new HashSet<>(model);
        final long[] positions = at();
        CheckpointWriter.beforeWrite = p ->
        {
            held.countDown();
            assertTrue(release.await(60, TimeUnit.SECONDS));
        };
        CheckpointWriter.onWait = p -> waiting.countDown();
        final CompletableFuture<CompletedCheckpoint> checkpoint = engine.checkpoint(positions);
        assertTrue(held.await(60, TimeUnit.SECONDS));
        change(publisher, 0, 100, 1_000_000, 5000);
        final CompletableFuture<Void> closed = CompletableFuture.runAsync(engine::close);
        assertTrue(waiting.await(60, TimeUnit.SECONDS), "the partition's close waits for the write in flight");
        assertTrue(!closed.isDone() && !checkpoint.isDone());
        release.countDown();
        closed.get(60, TimeUnit.SECONDS);
        assertTrue(checkpoint.isDone(), "the close returned after the write it waited for");
        assertArrayEquals(positions, checkpoint.get().positions());
        // A close without positions leaves no clean-close record: the next start restores the checkpoint.
        assertRestored(root, positions, cut);
    }

    @Test
    void aRestoreWhileAWriteIsInFlightWaitsForItAndRestoresThatCheckpoint() throws Exception
    {
        final Path root = temp.resolve("root");
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch waiting = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Set<Long> cut;
        final long[] positions;
        final Set<Long> probed = ConcurrentHashMap.newKeySet();
        try (JoinEngine engine = start(root, probed, new CountDownLatch(0)))
        {
            final Publisher publisher = engine.publisher();
            fill(publisher);
            engine.checkpoint(at()).get(60, TimeUnit.SECONDS);
            change(publisher, 0, 100, 1_000_000, 5000);
            cut = new HashSet<>(model);
            positions = at();
            CheckpointWriter.beforeWrite = p ->
            {
                held.countDown();
                assertTrue(release.await(60, TimeUnit.SECONDS));
            };
            CheckpointWriter.onWait = p -> waiting.countDown();
            final CompletableFuture<CompletedCheckpoint> checkpoint = engine.checkpoint(positions);
            assertTrue(held.await(60, TimeUnit.SECONDS));
            change(publisher, 100, 200, 2_000_000, 7000);
            final CompletableFuture<CompletedCheckpoint> restored = engine.restorePartition(0);
            assertTrue(waiting.await(60, TimeUnit.SECONDS), "the restore waits for the write in flight");
            release.countDown();
            checkpoint.get(60, TimeUnit.SECONDS);
            // The write it waited for is the newest complete checkpoint: the one restored.
            assertArrayEquals(positions, restored.get(60, TimeUnit.SECONDS).positions());
            long s = step;
            for (long k = 0; k < KEYS; k++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT, row(k, 0), 0, s++));
            }
        }
        assertEquals(cut, new HashSet<>(probed), "the restored partition holds the state at the barrier");
    }

    @Test
    void aFailedBackgroundWriteFailsItsCheckpointAndTheNextOneHoldsItsChanges() throws Exception
    {
        final Path root = temp.resolve("root");
        final AtomicInteger writes = new AtomicInteger();
        final Set<Long> cut;
        final long[] positions;
        try (JoinEngine engine = start(root, ConcurrentHashMap.newKeySet(), new CountDownLatch(0)))
        {
            final Publisher publisher = engine.publisher();
            fill(publisher);
            engine.checkpoint(at()).get(60, TimeUnit.SECONDS);
            change(publisher, 0, 100, 1_000_000, 5000);
            CheckpointWriter.beforeWrite = p ->
            {
                if (writes.incrementAndGet() == 1)
                {
                    throw new IOException("injected: no space left on device");
                }
            };
            final ExecutionException failed = assertThrows(ExecutionException.class,
                () -> engine.checkpoint(at()).get(60, TimeUnit.SECONDS));
            final CheckpointException why = assertInstanceOf(CheckpointException.class, failed.getCause());
            assertTrue(why.getMessage().contains("injected"), why.getMessage());
            // No change since the failed cut: its chunks must still be written by the next checkpoint.
            cut = new HashSet<>(model);
            positions = at();
            engine.checkpoint(positions).get(60, TimeUnit.SECONDS);
            final PartitionSnapshot metrics = engine.metrics().get(0);
            assertEquals(2, metrics.checkpoints, metrics.toString());
            assertEquals(1, metrics.checkpointFailures, metrics.toString());
            assertEquals(2, writes.get());
            change(publisher, 100, 200, 2_000_000, 7000);
        }
        assertRestored(root, positions, cut);
    }
}
