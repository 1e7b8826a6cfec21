package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.durable.StateFiles;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.testing.Rows;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Timer links per side (SEMANTICS 4.5-4.7, docs/ARCHITECTURE.md "Row records"): a regular join links into the timer
 * wheel only the rows of a side with a state TTL or the padded side of a padded-row delay, so only those
 * records carry the 24 bytes of timer links; the kinds that expire rows keep them on both sides; a durable
 * state written with other timed sides is refused at open, naming the layout.
 */
class PaddedDelayTimedSidesTest
{
    static final Schema SCHEMA = Schema.of("k", "v");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1024).withHashSeed(77);
    static final long DELAY = 1_000;

    private int joined;
    private int padded;

    static JoinSpec.Builder regular(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.REGULAR, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k");
    }

    private JoinOperator open(final JoinSpec spec, final StateConfig config)
    {
        return JoinOperators.create(spec, config, (kind, left, right, ts, step) ->
            {
                if (left == null || right == null)
                {
                    padded++;
                }
                else
                {
                    joined++;
                }
            },
            (side, kind, row, ts, step, reason) ->
            {
                throw new AssertionError("dead letter " + reason);
            });
    }

    private static RowView row(final String key, final long v)
    {
        return Rows.row(SCHEMA, "k", key, "v", v);
    }

    /** The one record of {@code side} in the bucket of {@code hash}. */
    private static long recordOf(final JoinOperator op, final long hash, final Side side)
    {
        final PartitionState state = ((OperatorDriver)op).state;
        final long bucket = state.index.find(hash);
        assertNotEquals(0, bucket, "a bucket for hash " + hash);
        final long record = state.store.record(state.store.rows(bucket, side.ordinal()), 0);
        assertNotEquals(0, record);
        return record;
    }

    private static int timedSides(final JoinOperator op)
    {
        return ((OperatorDriver)op).state.store.timedSides();
    }

    @Test
    void aRegularJoinTimesASideOnlyWhenItsRowsCanBeTimed()
    {
        assertEquals(RowStore.TIMED_LEFT, RegularJoin.timedSides(regular(JoinType.LEFT).paddedDelay(DELAY).build()));
        assertEquals(RowStore.TIMED_RIGHT, RegularJoin.timedSides(regular(JoinType.RIGHT).paddedDelay(DELAY).build()));
        assertEquals(RowStore.TIMED_BOTH, RegularJoin.timedSides(regular(JoinType.FULL).paddedDelay(DELAY).build()));
        assertEquals(RowStore.TIMED_NONE, RegularJoin.timedSides(regular(JoinType.LEFT).build()));
        assertEquals(RowStore.TIMED_NONE, RegularJoin.timedSides(regular(JoinType.INNER).build()));
        assertEquals(RowStore.TIMED_BOTH,
            RegularJoin.timedSides(regular(JoinType.LEFT).paddedDelay(DELAY).stateTtl(Side.RIGHT, 5_000).build()));
        assertEquals(RowStore.TIMED_LEFT, RegularJoin.timedSides(regular(JoinType.INNER).stateTtl(Side.LEFT, 5_000).build()));
        assertEquals(RowStore.TIMED_RIGHT, RegularJoin.timedSides(regular(JoinType.INNER).stateTtl(Side.RIGHT, 5_000).build()));
        assertEquals(RowStore.TIMED_BOTH, RegularJoin.timedSides(regular(JoinType.INNER).stateTtl(5_000).build()));
        // padOnExpiry pads as with a delay equal to the TTL: the TTL's side only.
        assertEquals(RowStore.TIMED_LEFT,
            RegularJoin.timedSides(regular(JoinType.FULL).stateTtl(Side.LEFT, 5_000).padOnExpiry(true).build()));
    }

    @Test
    void theKindsThatExpireRowsKeepTimerLinksOnBothSides()
    {
        final JoinSpec[] specs = {
            JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
                .interval(IntervalBounds.inclusive(-10, 10)).build(),
            JoinSpec.builder(JoinKind.TEMPORAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").build(),
            JoinSpec.builder(JoinKind.ASOF, JoinType.LEFT).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
                .asof(AsofSpec.of(AsofSpec.Direction.BACKWARD)).build(),
            JoinSpec.builder(JoinKind.WINDOW, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
                .window(WindowSpec.tumbling(10, 0)).build(),
            JoinSpec.builder(JoinKind.WINDOW, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
                .window(WindowSpec.session(3)).build(),
        };
        for (final JoinSpec spec : specs)
        {
            try (JoinOperator op = open(spec, CONFIG))
            {
                assertEquals(RowStore.TIMED_BOTH, timedSides(op), spec.toString());
            }
        }
    }

    @Test
    void aLeftJoinWithPaddedDelayStoresRightRecordsWithoutTimerLinks()
    {
        final JoinSpec spec = regular(JoinType.LEFT).paddedDelay(DELAY).build();
        try (JoinOperator op = open(spec, CONFIG))
        {
            final RowStore store = ((OperatorDriver)op).state.store;
            assertEquals(RowStore.TIMED_LEFT, store.timedSides());
            final long empty = store.usedBytes();
            op.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 1), 100, 0, 11);
            final long leftBytes = store.usedBytes() - empty;
            op.onRow(Side.RIGHT, ChangeKind.INSERT, row("b", 2), 100, 1, 22);
            final long rightBytes = store.usedBytes() - empty - leftBytes;
            // The same key and row lengths: the right record is the left one less its links.
            assertEquals(RowDescriptor.TIMED_HEADER_LENGTH - RowDescriptor.BASE_HEADER_LENGTH, leftBytes - rightBytes);
            final long left = recordOf(op, 11, Side.LEFT);
            final long right = recordOf(op, 22, Side.RIGHT);
            assertEquals(RowDescriptor.FLAG_TIMED | RowDescriptor.FLAG_IN_TIMER | RowDescriptor.FLAG_PAD_PENDING,
                RowDescriptor.flags(left), "the pending left row is in the wheel");
            assertEquals(0, RowDescriptor.flags(right) & RowDescriptor.FLAG_TIMED, "no links on a right record");
            assertEquals(NativeArena.alignedSize(RowDescriptor.recordLength(right)), rightBytes);
            assertEquals(2L, StoredRows.wrap(right, new UnsafeBuffer(0, 0), new RowView()).getLong(1));

            // A right row inside the delay joins the pending left row directly; the unmatched one is padded at its delay's end.
            op.onRow(Side.RIGHT, ChangeKind.INSERT, row("a", 3), 200, 2, 11);
            assertEquals(1, joined);
            assertEquals(0, padded);
            op.onRow(Side.LEFT, ChangeKind.INSERT, row("c", 4), 300, 3, 33);
            op.onWatermark(300 + DELAY + 1, 4);
            assertEquals(1, joined);
            assertEquals(1, padded, "only c is padded: a matched before its delay ended");
            // Retracting a right row unlinks nothing (it was never in the wheel) and frees its shorter record whole.
            op.onRow(Side.RIGHT, ChangeKind.DELETE, row("b", 2), 2_000, 5, 22);
            op.onRow(Side.RIGHT, ChangeKind.DELETE, row("a", 3), 2_000, 6, 11);
            op.onRow(Side.LEFT, ChangeKind.DELETE, row("a", 1), 2_000, 7, 11);
            op.onRow(Side.LEFT, ChangeKind.DELETE, row("c", 4), 2_000, 8, 33);
            assertEquals(0, op.counters().liveLeft() + op.counters().liveRight());
            assertEquals(empty, store.usedBytes(), "every record went back to the arena at its own length");
        }
    }

    @Test
    void aDurableStateWhoseSidesChangeTimingIsRefusedAtOpen(@TempDir final Path dir) throws IOException
    {
        final JoinSpec spec = regular(JoinType.LEFT).paddedDelay(DELAY).build();
        final StateConfig config = DurableStateTest.CONFIG;
        final Path clean = dir.resolve("clean");
        try (JoinOperator op = open(spec, config.withStateDirectory(clean)))
        {
            op.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 1), 100, 0);
            op.onRow(Side.RIGHT, ChangeKind.INSERT, row("b", 2), 100, 1);
        }
        final Path same = dir.resolve("same");
        DurableStateTest.copy(clean, same);
        final Path both = dir.resolve("both");
        DurableStateTest.copy(clean, both);
        // The same timed sides reopen; both timed is the layout the state had before links were per side.
        new PartitionState(config.withStateDirectory(same), spec, RegularJoin.LAYOUT, BucketDescriptor.LENGTH,
            RowStore.TIMED_LEFT, new JoinCounters(), PartitionState.NO_ROOM, 0).close();
        final DurableStateException refused = assertThrows(DurableStateException.class,
            () -> new PartitionState(config.withStateDirectory(both), spec, RegularJoin.LAYOUT, BucketDescriptor.LENGTH,
                RowStore.TIMED_BOTH, new JoinCounters(), PartitionState.NO_ROOM, 0).close());
        assertTrue(refused.getMessage().contains("another partition state layout"), refused.getMessage());
        assertTrue(refused.getMessage().contains("timer links"), refused.getMessage());
        assertNotEquals(StateFiles.timedLayout(RowStore.TIMED_LEFT), StateFiles.timedLayout(RowStore.TIMED_RIGHT));
        // A spec whose sides time differently (a TTL on the right) is another join: refused too.
        final DurableStateException other = assertThrows(DurableStateException.class,
            () -> open(regular(JoinType.LEFT).paddedDelay(DELAY).stateTtl(Side.RIGHT, 5_000).build(),
                config.withStateDirectory(clean)).close());
        assertTrue(other.getMessage().contains("another join"), other.getMessage());

        // The state reopens with its spec: the pending left row, reopened, joins a right row inside its delay.
        try (JoinOperator op = open(spec, config.withStateDirectory(clean)))
        {
            assertEquals(RowStore.TIMED_LEFT, timedSides(op));
            op.onRow(Side.RIGHT, ChangeKind.INSERT, row("a", 3), 200, 2);
            assertEquals(1, joined);
            op.onEndOfInput(3);
            assertEquals(1, joined);
            assertEquals(0, padded, "a matched left row is never padded");
        }
    }
}
