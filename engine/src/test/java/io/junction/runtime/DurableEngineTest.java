package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.durable.CheckpointFiles;
import io.junction.internal.durable.CheckpointStore;
import io.junction.internal.durable.StateImage;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyHash;
import io.junction.internal.state.Chunks;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Comparator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntPredicate;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.internal.metrics.EngineBeans;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The runtime side of durable state, with a test-only durable operator ({@link CountingDurableOperator})
 * so that checkpoints, restores, clean closes and damage are tested apart from the real operators.
 */
@Timeout(60)
class DurableEngineTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();
    private static final JoinSpec OTHER_SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();

    @TempDir
    Path temp;

    private final AtomicLongArray counts = new AtomicLongArray(8);
    private final AtomicLongArray stepSums = new AtomicLongArray(8);
    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView view = new RowView();
    private volatile IntPredicate failPersist = p -> false;
    private volatile CountingDurableOperator.Hooks hooks = CountingDurableOperator.Hooks.NONE;
    private final CountingDurableOperator.Hooks currentHooks = new CountingDurableOperator.Hooks()
    {
        @Override
        public void beforeRow(final int partition, final long step)
        {
            hooks.beforeRow(partition, step);
        }

        @Override
        public boolean dieAtEndOfBatch(final int partition)
        {
            return hooks.dieAtEndOfBatch(partition);
        }
    };

    private JoinEngine start(final Path root, final int partitions)
    {
        return start(root, partitions, SPEC, EngineConfig.defaults());
    }

    private JoinEngine start(final Path root, final int partitions, final JoinSpec spec, final EngineConfig base)
    {
        return JoinEngine.builder(spec)
            .config(base.withPartitions(partitions).withRingSize(256)
                .withState(StateConfig.defaults().withMaxKeys(1024).withHashSeed(7)).withStateRoot(root))
            .resultHandler((kind, left, right, ts, step) -> { })
            .stateOperatorFactory((state, results, deadLetters) ->
                new CountingDurableOperator(state.stateDirectory(), counts, stepSums, p -> failPersist.test(p), currentHooks))
            .start();
    }

    private RowView row(final long k)
    {
        return view.wrap(buffer, 0, new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, k).finish());
    }

    /** Publishes rows with steps [from, to); keys spread them over the partitions. */
    private void publish(final JoinEngine engine, final Publisher publisher, final long from, final long to)
    {
        for (long step = from; step < to; step++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(step), 0, step));
        }
    }

    private long total(final int partitions)
    {
        long total = 0;
        for (int p = 0; p < partitions; p++)
        {
            total += counts.get(p);
        }
        return total;
    }

    private long stepTotal(final int partitions)
    {
        long total = 0;
        for (int p = 0; p < partitions; p++)
        {
            total += stepSums.get(p);
        }
        return total;
    }

    private static long sumOfSteps(final long to)
    {
        return to * (to - 1) / 2;
    }

    private static CompletedCheckpoint await(final CompletableFuture<CompletedCheckpoint> future) throws Exception
    {
        return future.get(30, TimeUnit.SECONDS);
    }

    /** Rows up to the checkpoint; then a crash (a close that writes no clean-close file) loses the rest. */
    private void checkpointThenCrash(final Path root, final int partitions, final long checkpointAt, final long crashAt)
        throws Exception
    {
        try (JoinEngine engine = start(root, partitions))
        {
            assertNull(engine.restoredPositions(), "a new root starts empty");
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, checkpointAt);
            final CompletedCheckpoint checkpoint = await(engine.checkpoint(new long[] {checkpointAt - 1, 42}));
            assertArrayEquals(new long[] {checkpointAt - 1, 42}, checkpoint.positions());
            publish(engine, publisher, checkpointAt, crashAt);
        }
    }

    @Test
    void aRestartRestoresEveryPartitionFromTheCheckpointAndReportsItsPositions() throws Exception
    {
        final Path root = temp.resolve("root");
        checkpointThenCrash(root, 4, 1000, 1500);
        assertEquals(1500, total(4), "before the crash every row was applied");
        try (JoinEngine engine = start(root, 4))
        {
            assertArrayEquals(new long[] {999, 42}, engine.restoredPositions());
            assertTrue(engine.restoredCheckpointId() >= 0);
            assertEquals(1000, total(4), "the rows after the checkpoint are gone with the crash");
            assertEquals(sumOfSteps(1000), stepTotal(4));
            // Resume from the step after the restored position: the same state as a run without a crash.
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 1000, 1500);
            await(engine.checkpoint(new long[] {1499, 42}));
            assertEquals(1500, total(4));
            assertEquals(sumOfSteps(1500), stepTotal(4));
        }
    }

    @Test
    void aCleanCloseIsReopenedWithoutACheckpointAndItsPositions() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            publish(engine, engine.publisher(), 0, 200);
            await(engine.checkpoint(new long[] {199}));
            publish(engine, engine.publisher(), 200, 300);
            engine.close(new long[] {299});
        }
        for (int p = 0; p < 2; p++)
        {
            assertTrue(Files.exists(root.resolve("partition-" + p).resolve("CLOSED")));
            assertEquals("rw-------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(root.resolve("partition-" + p).resolve("CLOSED"))));
        }
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {299}, engine.restoredPositions());
            assertEquals(-1, engine.restoredCheckpointId(), "nothing was copied from a checkpoint");
            assertEquals(300, total(2));
            for (int p = 0; p < 2; p++)
            {
                assertTrue(Files.notExists(root.resolve("partition-" + p).resolve("CLOSED")),
                    "the clean-close file goes before the first mutation, so a later crash restores a checkpoint");
            }
            final CompletedCheckpoint afterReopen = await(engine.checkpoint(new long[] {299}));
            assertTrue(afterReopen.bytesLinked() >= 2L * 2 * Chunks.CHUNK_BYTES,
                "the first checkpoint after a reopen links what did not change since the one before the close: " + afterReopen);
            publish(engine, engine.publisher(), 300, 350);
        }
        // That engine closed without positions: not a clean close; its checkpoint is restored.
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {299}, engine.restoredPositions());
            assertEquals(300, total(2));
        }
    }

    @Test
    void aRootWithStateButNoEngineFileIsRefusedNamingTheFile() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            publish(engine, engine.publisher(), 0, 100);
            await(engine.checkpoint(new long[] {99}));
            engine.close(new long[] {99});
        }
        Files.delete(root.resolve("ENGINE"));
        final CheckpointException e = assertThrows(CheckpointException.class, () -> start(root, 2));
        assertTrue(e.getMessage().contains(root.resolve("ENGINE") + " is missing"), e.getMessage());
        assertTrue(Files.notExists(root.resolve("ENGINE")), "no fresh identity was written over the state");
    }

    @Test
    void stateOfARunThatNeverCompletedACheckpointIsDiscardedAndTheRunStartsOver() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            publish(engine, engine.publisher(), 0, 100);
        }
        try (JoinEngine engine = start(root, 2))
        {
            assertNull(engine.restoredPositions(), "resume from the beginning");
            assertEquals(0, total(2));
        }
    }

    @Test
    void aCheckpointWritesOnlyTheChunksThatChangedAndRecordsThePause() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 1))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 10);
            final CompletedCheckpoint first = await(engine.checkpoint(new long[] {9}));
            assertTrue(first.bytesWritten() >= CountingDurableOperator.BLOB_BYTES, "the first checkpoint writes everything");
            assertEquals(0, first.bytesLinked());
            publish(engine, publisher, 10, 20);
            final CompletedCheckpoint second = await(engine.checkpoint(new long[] {19}));
            // Rows flip bytes of the blob's first chunk only: that chunk and the small files are written,
            // the blob's other two chunks are hard links to the first checkpoint's.
            assertTrue(second.bytesLinked() >= 2L * Chunks.CHUNK_BYTES && second.bytesLinked() < 2L * Chunks.CHUNK_BYTES + 4096,
                "linked " + second.bytesLinked());
            assertTrue(second.bytesWritten() < Chunks.CHUNK_BYTES + 4096, "wrote " + second.bytesWritten());
            assertTrue(second.id() > first.id());
            final PartitionSnapshot snapshot = engine.metrics().get(0);
            assertEquals(2, snapshot.checkpoints);
            assertTrue(snapshot.lastCheckpointPauseNanos > 0);
            assertTrue(snapshot.maxCheckpointPauseNanos >= snapshot.lastCheckpointPauseNanos);
            assertEquals(second.pauseNanos()[0], snapshot.lastCheckpointPauseNanos);
            assertEquals(second.bytesWritten(), snapshot.lastCheckpointBytesWritten);
            final ObjectName bean = EngineBeans.partitionName(engine.name(), 0);
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            assertEquals(2L, server.getAttribute(bean, "Checkpoints"));
            assertEquals(snapshot.lastCheckpointPauseNanos / 1000.0, (Double)server.getAttribute(bean, "LastCheckpointPauseMicros"));
            assertEquals(second.bytesWritten(), server.getAttribute(bean, "LastCheckpointBytesWritten"));
            final Path checkpoints = root.resolve("partition-0").resolve("checkpoints");
            try (Stream<Path> dirs = Files.list(checkpoints))
            {
                for (final Path dir : dirs.toList())
                {
                    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
                    try (Stream<Path> files = Files.list(dir))
                    {
                        for (final Path file : files.toList())
                        {
                            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)), file.toString());
                        }
                    }
                }
            }
        }
        try (JoinEngine engine = start(root, 1))
        {
            assertArrayEquals(new long[] {19}, engine.restoredPositions());
            assertEquals(20, total(1), "a checkpoint of linked chunks restores whole");
        }
    }

    @Test
    void aCheckpointThatFailsInOnePartitionFailsAsAWholeAndThePartitionsGoOn() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 100);
            await(engine.checkpoint(new long[] {99}));
            failPersist = p -> p == 1;
            publish(engine, publisher, 100, 200);
            final ExecutionException failure = assertThrows(ExecutionException.class,
                () -> await(engine.checkpoint(new long[] {199})));
            final CheckpointException cause = assertInstanceOf(CheckpointException.class, failure.getCause());
            assertTrue(cause.getMessage().contains("partition 1") && cause.getMessage().contains("fails on purpose"),
                cause.getMessage());
            publish(engine, publisher, 200, 300);
            failPersist = p -> false;
            await(engine.checkpoint(new long[] {299}));
            assertEquals(300, total(2), "both partitions kept processing");
            assertEquals(1, engine.metrics().get(1).checkpointFailures);
            failPersist = p -> true;
            publish(engine, publisher, 300, 310);
            assertThrows(ExecutionException.class, () -> await(engine.checkpoint(new long[] {309})));
            failPersist = p -> false;
        }
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {299}, engine.restoredPositions(), "the newest checkpoint complete in both");
            assertEquals(300, total(2));
        }
    }

    @Test
    void oneCheckpointAtATimeIsOnDiskBesidesTheNewestCompleteOne() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            final Publisher publisher = engine.publisher();
            for (int i = 0; i < 6; i++)
            {
                publish(engine, publisher, i * 10, i * 10 + 10);
                await(engine.checkpoint(new long[] {i * 10 + 9}));
            }
        }
        for (int p = 0; p < 2; p++)
        {
            try (Stream<Path> dirs = Files.list(root.resolve("partition-" + p).resolve("checkpoints")))
            {
                assertEquals(2, dirs.count(), "the newest two complete checkpoints are kept");
            }
        }
    }

    private Path newestCheckpoint(final Path root, final int partition) throws IOException
    {
        try (Stream<Path> dirs = Files.list(root.resolve("partition-" + partition).resolve("checkpoints")))
        {
            return dirs.sorted().reduce((a, b) -> b).orElseThrow();
        }
    }

    private void twoCheckpoints(final Path root) throws Exception
    {
        try (JoinEngine engine = start(root, 2))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 100);
            await(engine.checkpoint(new long[] {99}));
            publish(engine, publisher, 100, 200);
            await(engine.checkpoint(new long[] {199}));
        }
    }

    private static void flipByte(final Path file, final long at) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, at);
            one.put(0, (byte)(one.get(0) ^ 0x40));
            one.rewind();
            channel.write(one, at);
        }
    }

    private static void truncate(final Path file, final long size) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            channel.truncate(size);
        }
    }

    /** Damages the newest checkpoint of partition 1 in one way, then checks the restart falls back to the one before. */
    private void damagedNewestFallsBack(final String how) throws Exception
    {
        final Path root = temp.resolve(how);
        twoCheckpoints(root);
        final Path newest = newestCheckpoint(root, 1);
        final Path index = newest.resolve(StateImage.INDEX);
        switch (how)
        {
            case "flipped":
                flipByte(index, 5);
                break;
            case "chunk":
                // A chunk of the blob that changed since the previous checkpoint (so not a link to it). A restore reads
                // only the chunks that differ from the live state's: with the live files gone it needs every one.
                flipByte(newest.resolve("c-0001-00000000"), 12345);
                new StateImage(root.resolve("partition-1").resolve("state")).clear();
                break;
            case "truncated":
                truncate(index, Files.size(index) / 2);
                break;
            case "empty":
                truncate(index, 0);
                break;
            case "foreign":
            {
                // A checkpoint of another join, with the same id, in its place.
                final Path other = temp.resolve("other-" + how);
                try (JoinEngine engine = start(other, 2, OTHER_SPEC, EngineConfig.defaults()))
                {
                    final Publisher publisher = engine.publisher();
                    for (int i = 0; i < 2; i++)
                    {
                        publish(engine, publisher, 0, 10);
                        await(engine.checkpoint(new long[] {9}));
                    }
                }
                final Path foreign = newestCheckpoint(other, 1);
                assertEquals(newest.getFileName(), foreign.getFileName());
                try (Stream<Path> files = Files.list(newest))
                {
                    for (final Path file : files.toList())
                    {
                        Files.delete(file);
                    }
                }
                try (Stream<Path> files = Files.list(foreign))
                {
                    for (final Path file : files.toList())
                    {
                        Files.copy(file, newest.resolve(file.getFileName()));
                    }
                }
                break;
            }
            default:
                throw new IllegalArgumentException(how);
        }
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {99}, engine.restoredPositions(), how + ": falls back to the previous checkpoint");
            assertEquals(100, total(2));
        }
        // Both damaged: the start fails, naming the file, rather than start on damaged or empty state.
        final Path older = newestCheckpointBefore(root, 1, newest);
        truncate(older.resolve(StateImage.INDEX), 0);
        final CheckpointException failure = assertThrows(CheckpointException.class, () -> start(root, 2));
        assertTrue(failure.getMessage().contains(older.resolve(StateImage.INDEX).toString()), failure.getMessage());
    }

    private Path newestCheckpointBefore(final Path root, final int partition, final Path newest) throws IOException
    {
        try (Stream<Path> dirs = Files.list(root.resolve("partition-" + partition).resolve("checkpoints")))
        {
            return dirs.filter(d -> d.compareTo(newest) < 0).sorted().reduce((a, b) -> b).orElseThrow();
        }
    }

    @Test
    void aFlippedByteIsDetectedAndThePreviousCheckpointRestored() throws Exception
    {
        damagedNewestFallsBack("flipped");
    }

    @Test
    void aFlippedByteInAStateChunkIsDetectedAndThePreviousCheckpointRestored() throws Exception
    {
        damagedNewestFallsBack("chunk");
    }

    @Test
    void aTruncatedFileIsDetectedAndThePreviousCheckpointRestored() throws Exception
    {
        damagedNewestFallsBack("truncated");
    }

    @Test
    void aZeroLengthFileIsDetectedAndThePreviousCheckpointRestored() throws Exception
    {
        damagedNewestFallsBack("empty");
    }

    @Test
    void anotherJoinsCheckpointIsDetectedAndThePreviousCheckpointRestored() throws Exception
    {
        damagedNewestFallsBack("foreign");
    }

    @Test
    void aRootOfAnotherJoinOrPartitionCountIsRefusedNamingItsFile() throws Exception
    {
        final Path root = temp.resolve("root");
        twoCheckpoints(root);
        final CheckpointException otherCount = assertThrows(CheckpointException.class, () -> start(root, 3));
        assertTrue(otherCount.getMessage().contains(root.resolve("ENGINE").toString()), otherCount.getMessage());
        final CheckpointException otherJoin = assertThrows(CheckpointException.class,
            () -> start(root, 2, OTHER_SPEC, EngineConfig.defaults()));
        assertTrue(otherJoin.getMessage().contains("another engine"), otherJoin.getMessage());
        flipByte(root.resolve("ENGINE"), 3);
        final CheckpointException damaged = assertThrows(CheckpointException.class, () -> start(root, 2));
        assertTrue(damaged.getMessage().contains(root.resolve("ENGINE") + " is damaged"), damaged.getMessage());
    }

    @Test
    void aRestartRoutesWithTheKeyHashSeedTheStateWasWrittenWith() throws Exception
    {
        final Path root = temp.resolve("root");
        final EngineConfig secretSeed = EngineConfig.defaults().withPartitions(2).withStateRoot(root)
            .withState(StateConfig.defaults().withMaxKeys(1024));
        final long seed;
        try (JoinEngine engine = JoinEngine.builder(SPEC).config(secretSeed).resultHandler((kind, left, right, ts, step) -> { })
            .stateOperatorFactory((state, results, deadLetters) ->
                new CountingDurableOperator(state.stateDirectory(), counts, stepSums, p -> false))
            .start())
        {
            seed = engine.config().state().hashSeed();
            engine.close(new long[] {0});
        }
        try (JoinEngine engine = JoinEngine.builder(SPEC).config(secretSeed).resultHandler((kind, left, right, ts, step) -> { })
            .stateOperatorFactory((state, results, deadLetters) ->
                new CountingDurableOperator(state.stateDirectory(), counts, stepSums, p -> false))
            .start())
        {
            assertEquals(seed, engine.config().state().hashSeed(), "the seed recorded in the root, not a new secret one");
        }
        final CheckpointException otherSeed = assertThrows(CheckpointException.class, () -> JoinEngine.builder(SPEC)
            .config(secretSeed.withState(secretSeed.state().withHashSeed(seed + 1)))
            .resultHandler((kind, left, right, ts, step) -> { }).start());
        assertTrue(otherSeed.getMessage().contains("seed"), otherSeed.getMessage());
    }

    @Test
    void aDamagedStateLeftByACleanCloseIsRestoredFromTheCheckpoint() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 50);
            await(engine.checkpoint(new long[] {49}));
            publish(engine, publisher, 50, 80);
            engine.close(new long[] {79});
        }
        // The operator refuses state without its marker: the runtime restores the clean close's checkpoint instead.
        Files.delete(root.resolve("partition-1").resolve("state").resolve("CLEAN"));
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {79}, engine.restoredPositions());
            assertTrue(engine.restoredCheckpointId() >= 0);
            assertEquals(80, total(2));
        }
    }

    /** The partition a row of key {@code k} goes to (the engine's routing, with the fixed hash seed). */
    private int partitionOf(final long k, final int partitions)
    {
        final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final int length = CompiledJoin.of(SPEC).key(Side.LEFT).extract(row(k), key, 0, key.capacity());
        return KeyHash.partition(KeyHash.hash(7, key, 0, length), partitions);
    }

    private long rowsOf(final int partition, final long from, final long to)
    {
        long rows = 0;
        for (long k = from; k < to; k++)
        {
            rows += partitionOf(k, 2) == partition ? 1 : 0;
        }
        return rows;
    }

    @Test
    void aPartitionIsCheckpointedAndRestoredAloneWhileTheOthersKeepTheirState() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 200);
            final CompletedCheckpoint own = await(engine.checkpointPartition(0, new long[] {199}));
            assertArrayEquals(new int[] {0}, own.partitions());
            assertEquals(rowsOf(0, 0, 200), counts.get(0));
            publish(engine, publisher, 200, 400);
            // Rows keep flowing into both partitions around partition 0's restore: its ring orders them.
            final CompletableFuture<CompletedCheckpoint> restore = engine.restorePartition(0);
            publish(engine, publisher, 400, 410);
            final CompletedCheckpoint restored = await(restore);
            assertEquals(own.id(), restored.id());
            assertArrayEquals(new long[] {199}, restored.positions(), "where partition 0's input resumes");
            await(engine.checkpoint(new long[] {409}));
            assertTrue(rowsOf(0, 200, 400) > 0 && rowsOf(1, 0, 410) > 0, "both partitions have rows");
            assertEquals(rowsOf(0, 0, 200) + rowsOf(0, 400, 410), counts.get(0),
                "partition 0: its checkpoint's rows and those published after its restore");
            assertEquals(rowsOf(1, 0, 410), counts.get(1), "partition 1 kept every row");
        }
    }

    @Test
    void checkpointsOfOnePartitionDoNotPileUpNorReplaceTheEngineWideOne() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 100);
            await(engine.checkpoint(new long[] {99}));
            for (int i = 1; i <= 5; i++)
            {
                publish(engine, publisher, i * 100, i * 100 + 100);
                await(engine.checkpointPartition(0, new long[] {i * 100 + 99}));
            }
            try (Stream<Path> dirs = Files.list(root.resolve("partition-0").resolve("checkpoints")))
            {
                assertEquals(3, dirs.count(), "the engine-wide checkpoint and the newest two of the partition alone");
            }
            final CompletedCheckpoint restored = await(engine.restorePartition(0));
            assertArrayEquals(new long[] {599}, restored.positions());
        }
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {99}, engine.restoredPositions(), "an engine-wide restore takes the engine-wide one");
            assertEquals(100, total(2));
        }
    }

    @Test
    void checkpointsAreRefusedFromAnotherThreadInMemoryModeAndWithoutPositions() throws Exception
    {
        try (JoinEngine memory = JoinEngine.builder(SPEC).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            assertThrows(IllegalStateException.class, () -> memory.checkpoint(new long[] {1}));
        }
        final Path root = temp.resolve("root");
        final JoinEngine engine = start(root, 1);
        try
        {
            assertThrows(IllegalArgumentException.class, () -> engine.checkpoint(null));
            publish(engine, engine.publisher(), 0, 5);
            final AtomicReference<Throwable> other = new AtomicReference<>();
            final Thread thread = new Thread(() ->
            {
                try
                {
                    engine.checkpoint(new long[] {4});
                }
                catch (final Throwable t)
                {
                    other.set(t);
                }
            });
            thread.start();
            thread.join();
            assertInstanceOf(IllegalStateException.class, other.get(), "a single-producer engine is its publisher's");
        }
        finally
        {
            engine.close();
        }
        final ExecutionException closed = assertThrows(ExecutionException.class, () -> await(engine.checkpoint(new long[] {5})));
        assertTrue(closed.getCause().getMessage().contains("closed"), closed.getCause().getMessage());
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.defaults().withCheckpointInterval(10, Duration.ZERO));
    }

    @Test
    void aPublisherTakesIntervalCheckpointsByTime() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 1, SPEC, EngineConfig.defaults().withStateRoot(root)
            .withCheckpointInterval(0, Duration.ofNanos(1))))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 2 * Publisher.CHECKPOINT_CLOCK_EVERY);
            await(engine.checkpoint(new long[] {2 * Publisher.CHECKPOINT_CLOCK_EVERY - 1}));
            assertTrue(engine.metrics().get(0).checkpoints >= 2, "the clock is read every " +
                Publisher.CHECKPOINT_CLOCK_EVERY + " rows: " + engine.metrics().get(0));
        }
    }

    @Test
    void aPublisherTakesIntervalCheckpointsAtTheStepOfARow() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2, SPEC, EngineConfig.defaults().withStateRoot(root)
            .withCheckpointInterval(100, Duration.ZERO)))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 1000);
            // Barriers are processed in ring order: once this one is done, the interval ones before it are.
            await(engine.checkpoint(new long[] {999}));
            final List<PartitionSnapshot> metrics = engine.metrics();
            assertTrue(metrics.get(0).checkpoints >= 2, "at least one interval checkpoint before: " + metrics.get(0));
            publish(engine, publisher, 1000, 1100);
        }
        try (JoinEngine engine = start(root, 2))
        {
            final long[] positions = engine.restoredPositions();
            assertEquals(1, positions.length);
            assertTrue(positions[0] >= 999 && positions[0] < 1100, "an interval checkpoint at a row's step: " + positions[0]);
            assertEquals(positions[0] + 1, total(2), "its state holds exactly the rows up to its step");
            assertEquals(sumOfSteps(positions[0] + 1), stepTotal(2));
        }
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path path : walk.sorted(Comparator.reverseOrder()).toList())
            {
                Files.delete(path);
            }
        }
    }

    @Test
    void aCrashAfterACleanReopenRestoresTheCloseNotAnOlderCheckpoint() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 200);
            await(engine.checkpoint(new long[] {199}));
            publish(engine, publisher, 200, 300);
            engine.close(new long[] {299});
        }
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {299}, engine.restoredPositions());
            assertEquals(-1, engine.restoredCheckpointId(), "reopened as it was");
            assertEquals(300, total(2));
            publish(engine, engine.publisher(), 300, 350);
        }
        // That engine stopped without a clean close, as a crash would (no clean-close record, no checkpoint).
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {299}, engine.restoredPositions(), "the clean close's checkpoint, not the one at 199");
            assertTrue(engine.restoredCheckpointId() >= 0, "restored from a checkpoint");
            assertEquals(300, total(2));
            assertEquals(sumOfSteps(300), stepTotal(2));
        }
    }

    @Test
    void aCrashAfterTheCleanReopenOfARunThatNeverCheckpointedDoesNotStartEmpty() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            publish(engine, engine.publisher(), 0, 100);
            engine.close(new long[] {99});
        }
        assertTrue(Files.exists(root.resolve("CHECKPOINT")), "the clean close confirmed its checkpoint");
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {99}, engine.restoredPositions());
            publish(engine, engine.publisher(), 100, 150);
        }
        try (JoinEngine engine = start(root, 2))
        {
            assertArrayEquals(new long[] {99}, engine.restoredPositions(), "restored, not started empty");
            assertEquals(100, total(2));
        }
    }

    @Test
    void aCleanCloseWhoseStateAndCheckpointsAreGoneIsRefusedNotStartedEmpty() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            publish(engine, engine.publisher(), 0, 100);
            engine.close(new long[] {99});
        }
        // The state left no longer opens (its marker is gone), and no checkpoint is left to restore.
        for (int p = 0; p < 2; p++)
        {
            Files.delete(root.resolve("partition-" + p).resolve("state").resolve("CLEAN"));
            deleteTree(root.resolve("partition-" + p).resolve("checkpoints"));
        }
        Files.deleteIfExists(root.resolve("CHECKPOINT"));
        final CheckpointException refused = assertThrows(CheckpointException.class, () -> start(root, 2).close());
        assertTrue(refused.getMessage().contains("CLOSED"), refused.getMessage());
        assertTrue(Files.exists(root.resolve("partition-0").resolve("CLOSED")), "the record stays for whoever looks into it");
        assertTrue(Files.exists(root.resolve("partition-1").resolve("state").resolve("blob")), "nothing was discarded");
    }

    @Test
    void aSecondEngineOnARootInUseIsRefusedNamingTheLockFile() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine first = start(root, 2))
        {
            publish(first, first.publisher(), 0, 100);
            await(first.checkpoint(new long[] {99}));
            final CheckpointException refused = assertThrows(CheckpointException.class, () -> start(root, 2).close());
            assertTrue(refused.getMessage().contains(root.resolve("LOCK") + " is locked"), refused.getMessage());
            assertEquals(100, total(2), "the refused engine opened nothing");
            publish(first, first.publisher(), 100, 110);
            first.close(new long[] {109});
        }
        try (JoinEngine second = start(root, 2))
        {
            assertArrayEquals(new long[] {109}, second.restoredPositions(), "the close released the lock");
            assertEquals(110, total(2));
        }
    }

    @Test
    void intervalCheckpointsAreRefusedOnAMultiProducerEngine()
    {
        final EngineConfig durable = EngineConfig.defaults().withStateRoot(temp.resolve("root"));
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> durable.withMultiProducer(true).withCheckpointInterval(100, Duration.ZERO));
        assertTrue(refused.getMessage().contains(EngineConfig.MULTI_PRODUCER_PROP_NAME), refused.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> durable.withCheckpointInterval(0, Duration.ofSeconds(1)).withMultiProducer(true));
        // Explicit checkpoints (with the producers quiesced) stay possible.
        assertTrue(durable.withMultiProducer(true).multiProducer());
        assertEquals(100, durable.withCheckpointInterval(100, Duration.ZERO).withMultiProducer(false).checkpointEveryEvents());
    }

    @Test
    void aCheckpointQueuedBehindTheEventThatKillsAPartitionFailsAtOnce() throws Exception
    {
        final Path root = temp.resolve("root");
        final CountDownLatch applying = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger dying = new AtomicInteger(-1);
        hooks = new CountingDurableOperator.Hooks()
        {
            @Override
            public void beforeRow(final int partition, final long step)
            {
                if (step == 1000)
                {
                    dying.set(partition);
                    applying.countDown();
                    try
                    {
                        release.await();
                    }
                    catch (final InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public boolean dieAtEndOfBatch(final int partition)
            {
                return partition == dying.get();
            }
        };
        try (JoinEngine engine = start(root, 2))
        {
            publish(engine, engine.publisher(), 1000, 1001);
            assertTrue(applying.await(30, TimeUnit.SECONDS));
            // The barrier goes into the ring behind the row whose batch ends the thread: it is never reached.
            final CompletableFuture<CompletedCheckpoint> checkpoint = engine.checkpoint(new long[] {1000});
            release.countDown();
            final ExecutionException failed = assertThrows(ExecutionException.class, () -> checkpoint.get(20, TimeUnit.SECONDS));
            final CheckpointException cause = assertInstanceOf(CheckpointException.class, failed.getCause());
            assertTrue(cause.getMessage().contains("partition " + dying.get() + "'s thread died"), cause.getMessage());
            assertTrue(engine.isFailed(dying.get()));
            final ExecutionException later = assertThrows(ExecutionException.class,
                () -> engine.checkpoint(new long[] {1000}).get(20, TimeUnit.SECONDS));
            assertTrue(later.getCause().getMessage().contains("thread died"), later.getCause().getMessage());
        }
    }

    @Test
    void aRestoreDiscardsTheStateItReplacesWithoutPersistingIt() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 2))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 100);
            await(engine.checkpoint(new long[] {99}));
            final long atCheckpoint = counts.get(0);
            publish(engine, publisher, 100, 200);
            // The state to be replaced could not even be written (a full disk): the restore needs no persist of it.
            failPersist = p -> p == 0;
            final CompletedCheckpoint restored = await(engine.restorePartition(0));
            assertArrayEquals(new long[] {99}, restored.positions());
            assertFalse(engine.isFailed(0));
            assertEquals(atCheckpoint, counts.get(0), "partition 0 is back at the checkpoint");
            failPersist = p -> false;
        }
    }

    @Test
    void aCheckpointWhosePositionsDifferInAMiddlePartitionIsPassedOver() throws Exception
    {
        final Path root = temp.resolve("root");
        final long newer;
        try (JoinEngine engine = start(root, 3))
        {
            final Publisher publisher = engine.publisher();
            publish(engine, publisher, 0, 100);
            await(engine.checkpoint(new long[] {99}));
            publish(engine, publisher, 100, 200);
            newer = await(engine.checkpoint(new long[] {199})).id();
        }
        // Partition 1's part of the newer checkpoint is rewritten with other positions (not its first or last).
        final CheckpointStore store = new CheckpointStore(root.resolve("partition-1").resolve("checkpoints"));
        deleteTree(store.directoryOf(newer));
        final StateImage image = new StateImage(root.resolve("partition-1").resolve("state"));
        final CheckpointFiles writer = store.begin(newer, SPEC.fingerprint(), new long[] {150});
        image.write(writer, writer.directory());
        writer.commit(false);
        try (JoinEngine engine = start(root, 3))
        {
            assertArrayEquals(new long[] {99}, engine.restoredPositions(), "passed over for the one before");
            assertEquals(100, total(3));
        }
    }
}
