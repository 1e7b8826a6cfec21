package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Side;
import io.junction.metrics.OperatorCounters;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS 5, "State never grows with the length of the stream, only with the number of rows inside the
 * interval": a stream a hundred times longer than the interval keeps live rows and state bytes flat.
 */
class IntervalJoinStateBoundTest
{
    private static final long LOWER = -1000;
    private static final long UPPER = 1000;
    private static final long LAST_TS = 200_000;
    private static final long ROW_EVERY = 10;
    private static final long WATERMARK_EVERY = 100;
    private static final long WATERMARK_LAG = 50;
    private static final int KEYS = 4;
    /** Small chunks, so that the arena's reserved bytes follow the live rows closely. */
    private static final int CHUNK = 64 * 1024;
    /** A generous upper bound of one stored record: header 72 + key 9 + row (ids are fixed width). */
    private static final int RECORD_BYTES = 160;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final RowWriter writer = new RowWriter();
    private final RowView row = new RowView();

    private RowView row(final long key, final String id, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 3).putLong(IntervalTestRows.K, key).putString(IntervalTestRows.ID, id)
            .putLong(IntervalTestRows.V, v);
        return row.wrap(buffer, 0, writer.finish());
    }

    @ParameterizedTest
    @EnumSource(JoinType.class)
    void liveRowsAndStateBytesStayFlatOverAStreamAHundredIntervalsLong(final JoinType type)
    {
        final JoinSpec spec = IntervalTestHarness.spec(type, LOWER, UPPER).build();
        final long[] outputs = new long[1];
        final long[] deadLetters = new long[1];
        final ResultHandler results = (kind, left, right, ts, step) -> outputs[0]++;
        final DeadLetterHandler dead = (side, kind, r, ts, step, reason) -> deadLetters[0]++;

        // A left row stays until the watermark passes ts + upper; the watermark lags the newest row by
        // WATERMARK_LAG and moves every WATERMARK_EVERY ms, so at most this many rows of each side are live.
        final long maxLiveLeft = (UPPER + WATERMARK_LAG + WATERMARK_EVERY) / ROW_EVERY + 1;
        final long maxLiveRight = (-LOWER + WATERMARK_LAG + WATERMARK_EVERY) / ROW_EVERY + 1;
        // Right after a watermark, at least the rows of the last (upper + lag) ms are live.
        final long minLiveLeftAfterWatermark = (UPPER + WATERMARK_LAG) / ROW_EVERY;
        final long minLiveRightAfterWatermark = (-LOWER + WATERMARK_LAG) / ROW_EVERY;

        try (JoinOperator join = JoinOperators.create(spec, IntervalTestHarness.SMALL_STATE.withChunkSize(CHUNK), results, dead))
        {
            final long emptyBytes = join.counters().stateBytes();
            // Index (map + one bucket chunk, counted once created) + the rows' chunks + one chunk of slack.
            final long bucketChunk = Math.max(4096, Math.min(1 << 20, IntervalTestHarness.SMALL_STATE.maxKeys() * 48));
            final long rowBytes = (maxLiveLeft + maxLiveRight) * RECORD_BYTES;
            final long stateBound = emptyBytes + bucketChunk + (rowBytes / CHUNK + 2) * CHUNK;

            long step = 0;
            long stored = 0;
            long bytesAtWarmUp = -1;
            long maxBytesAfterWarmUp = 0;
            for (long ts = 0; ts <= LAST_TS; ts += ROW_EVERY)
            {
                final long i = ts / ROW_EVERY;
                join.onRow(Side.LEFT, ChangeKind.INSERT, row(i % KEYS, String.format("L%06d", i), i), ts, step++);
                join.onRow(Side.RIGHT, ChangeKind.INSERT, row(i % KEYS, String.format("R%06d", i), i), ts, step++);
                stored += 2;
                if (ts % WATERMARK_EVERY == 0)
                {
                    join.onWatermark(ts - WATERMARK_LAG, step++);
                    final OperatorCounters c = join.counters();
                    assertTrue(c.liveLeft() <= maxLiveLeft, "liveLeft " + c.liveLeft() + " > " + maxLiveLeft + " at ts " + ts);
                    assertTrue(c.liveRight() <= maxLiveRight, "liveRight " + c.liveRight() + " > " + maxLiveRight + " at ts " + ts);
                    assertTrue(c.stateBytes() <= stateBound, "stateBytes " + c.stateBytes() + " > " + stateBound + " at ts " + ts);
                    if (ts >= UPPER - LOWER + WATERMARK_LAG)
                    {
                        assertTrue(c.liveLeft() >= minLiveLeftAfterWatermark, "liveLeft " + c.liveLeft() + " at ts " + ts);
                        assertTrue(c.liveRight() >= minLiveRightAfterWatermark, "liveRight " + c.liveRight() + " at ts " + ts);
                    }
                    if (ts >= LAST_TS / 5)
                    {
                        if (bytesAtWarmUp < 0)
                        {
                            bytesAtWarmUp = c.stateBytes();
                        }
                        maxBytesAfterWarmUp = Math.max(maxBytesAfterWarmUp, c.stateBytes());
                    }
                }
            }
            assertEquals(bytesAtWarmUp, maxBytesAfterWarmUp,
                "stateBytes grew after the 20% mark: " + bytesAtWarmUp + " -> " + maxBytesAfterWarmUp);
            assertEquals(0, deadLetters[0], "no row is late: rows arrive in order, the watermark lags them");

            join.onEndOfInput(step);
            final OperatorCounters c = join.counters();
            assertEquals(0, c.liveLeft(), "liveLeft after the end of input");
            assertEquals(0, c.liveRight(), "liveRight after the end of input");
            assertEquals(0, c.pendingTimers(), "pending timers after the end of input");
            assertEquals(stored, c.expiredRows(), "every stored row expires once");
            assertEquals(expectedOutputs(type), outputs[0], "outputs of " + type);
        }
    }

    /** Every row matches (keys repeat every 4 rows, the interval spans 200 rows), so nothing is padded. */
    private static long expectedOutputs(final JoinType type)
    {
        final long n = LAST_TS / ROW_EVERY + 1;
        switch (type)
        {
            case SEMI:
                return n;
            case ANTI:
                return 0;
            default:
                long pairs = 0;
                for (long i = 0; i < n; i++)
                {
                    final long from = Math.max(0, i + LOWER / ROW_EVERY - 1);
                    final long to = Math.min(n - 1, i + UPPER / ROW_EVERY + 1);
                    for (long j = from; j <= to; j++)
                    {
                        final long diff = (j - i) * ROW_EVERY;
                        if (j % KEYS == i % KEYS && diff >= LOWER && diff <= UPPER)
                        {
                            pairs++;
                        }
                    }
                }
                return pairs;
        }
    }
}
