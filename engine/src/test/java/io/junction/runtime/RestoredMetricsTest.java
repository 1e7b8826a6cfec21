package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The partitions' gauges (live rows, state bytes) describe the state from the moment a start that reopened a
 * clean close, or restored a checkpoint, returns, and from the moment a partition's restore completes: before
 * the first event as after it (docs/OPERATIONS.md).
 */
@Timeout(60)
class RestoredMetricsTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();
    private static final int ROWS = 100;

    @TempDir
    Path temp;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView view = new RowView();

    private RowView row(final long k)
    {
        return view.wrap(buffer, 0, new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, k).finish());
    }

    private static JoinEngine start(final Path root)
    {
        return start(root, 2);
    }

    private static JoinEngine start(final Path root, final int partitions)
    {
        return JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(partitions).withRingSize(256)
                .withState(StateConfig.defaults().withMaxKeys(1024).withHashSeed(7)).withStateRoot(root))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start();
    }

    /** Publishes {@code ROWS} left rows of distinct keys, steps 0 to {@code ROWS - 1}. */
    private void publishRows(final JoinEngine engine, final long firstKey)
    {
        final Publisher publisher = engine.publisher();
        for (int i = 0; i < ROWS; i++)
        {
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(firstKey + i), 0, firstKey + i));
        }
    }

    private static long liveRows(final JoinEngine engine)
    {
        long live = 0;
        for (final PartitionSnapshot p : engine.metrics())
        {
            live += p.liveLeft + p.liveRight;
        }
        return live;
    }

    private static void assertStateBytes(final JoinEngine engine)
    {
        for (final PartitionSnapshot p : engine.metrics())
        {
            assertTrue(p.stateBytes > 0, () -> "partition " + p.partition + " reports its state's bytes: " + p.stateBytes);
        }
    }

    @Test
    void aReopenedCleanCloseReportsItsRowsBeforeTheFirstEvent()
    {
        final Path root = temp.resolve("root");
        final JoinEngine first = start(root);
        publishRows(first, 0);
        assertTrue(first.close(new long[] {ROWS - 1}), first::closeShortfall);
        try (JoinEngine reopened = start(root))
        {
            assertArrayEquals(new long[] {ROWS - 1}, reopened.restoredPositions(), "the clean close is reopened");
            assertEquals(ROWS, liveRows(reopened), "the reopened rows, before any event");
            assertStateBytes(reopened);
        }
    }

    @Test
    void aRestoredCheckpointReportsItsRowsBeforeTheFirstEvent() throws Exception
    {
        final Path root = temp.resolve("root");
        final JoinEngine first = start(root);
        publishRows(first, 0);
        first.checkpoint(new long[] {ROWS - 1}).get(30, TimeUnit.SECONDS);
        publishRows(first, ROWS);
        // Not a clean close: the next start restores the checkpoint.
        assertTrue(first.closeCompletely(), first::closeShortfall);
        try (JoinEngine restored = start(root))
        {
            assertArrayEquals(new long[] {ROWS - 1}, restored.restoredPositions(), "the checkpoint is restored");
            assertTrue(restored.restoredCheckpointId() >= 0);
            assertEquals(ROWS, liveRows(restored), "the checkpoint's rows, before any event");
            assertStateBytes(restored);
        }
    }

    @Test
    void aPartitionsRestoreReportsTheCheckpointsRowsWhenItCompletes() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root, 1))
        {
            publishRows(engine, 0);
            engine.checkpoint(new long[] {ROWS - 1}).get(30, TimeUnit.SECONDS);
            publishRows(engine, ROWS);
            engine.restorePartition(0).get(30, TimeUnit.SECONDS);
            assertEquals(ROWS, engine.metrics().get(0).liveLeft, "the checkpoint's rows, once restored");
        }
    }
}
