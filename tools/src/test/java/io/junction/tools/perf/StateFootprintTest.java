package io.junction.tools.perf;

import io.junction.api.ChangeKind;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.IndexKind;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.metrics.OperatorCounters;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import io.junction.join.JoinOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a live row of state costs, by the engine's own {@code liveStateBytes / liveRows}: the first
 * 100,000 impressions of W1 through the interval join (left outer), and W2 scaled through the
 * regular join, measured where the live rows peak. Bytes are deterministic, so the budgets below
 * guard the record layout against regressions; the figures are printed for the README.
 */
class StateFootprintTest
{

    /** Measured at the peak of live rows: [peak live rows, live state bytes at that moment]. */
    private static long[] peakFootprint(final JoinOperator join, final EventTape tape, final EncodedRows rows)
    {
        final RowView row = new RowView();
        long peakLive = 0;
        long peakBytes = 0;
        for (int i = 0; i < tape.size(); i++)
        {
            final byte type = tape.type(i);
            if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT)
            {
                row.wrap(rows.buffer(i), rows.offset(i), rows.rowLength());
                join.onRow(type == EventTape.TYPE_LEFT ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT, row, tape.ts(i), i);
            }
            else if (type == EventTape.TYPE_WATERMARK)
            {
                join.onWatermark(tape.ts(i), i);
            }
            if ((i & 1023) == 0)
            {
                final OperatorCounters c = join.counters();
                final long live = c.liveLeft() + c.liveRight();
                if (live > peakLive)
                {
                    peakLive = live;
                    peakBytes = c.liveStateBytes();
                }
            }
        }
        join.onEndOfInput(tape.size());
        final OperatorCounters end = join.counters();
        return new long[] {peakLive, peakBytes, end.liveLeft() + end.liveRight(), end.liveStateBytes()};
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void aLiveW1RowCostsItsRecordAndAShareOfItsKey(final IndexKind kind)
    {
        final EventTape tape = new EventTape();
        Workloads.w1(100_000, tape);
        final EncodedRows rows = EncodedRows.encode(tape);
        try (JoinOperator join = JoinOperators.create(WorkloadJoin.spec(Workload.W1, JoinType.LEFT),
                StateConfig.defaults().withIndex(kind).withMaxKeys(200_000), (k, l, r, ts, step) -> { },
                (side, k, row, ts, step, reason) -> { }))
        {
            final long[] peak = peakFootprint(join, tape, rows);
            final double perRow = (double) peak[1] / peak[0];
            System.out.printf(Locale.ROOT, "W1 (first 100,000 impressions), %s index: %,d live rows at the peak, %,d bytes, %.1f B per live row%n",
                kind, peak[0], peak[1], perRow);
            assertTrue(peak[0] > 30_000, "W1 keeps ~35 s of impressions live");
            // 83-byte row + 9 key bytes + 56-byte timed header, aligned: 152 B; a 32-byte bucket and two
            // 16-byte index slots per key (W1: ~1.2 rows per key).
            assertTrue(perRow <= 215, "bytes per live W1 row: " + perRow);
            // Everything is released at the end of input.
            assertEquals(0, peak[2]);
            assertEquals(0, peak[3]);
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void aLiveW2RowHasNoTimerLinks(final IndexKind kind)
    {
        final EventTape tape = new EventTape();
        Workloads.w2(100_000, 20_000, tape);
        final EncodedRows rows = EncodedRows.encode(tape);
        try (JoinOperator join = JoinOperators.create(WorkloadJoin.spec(Workload.W2, JoinType.INNER),
                StateConfig.defaults().withIndex(kind).withMaxKeys(40_000), (k, l, r, ts, step) -> { },
                (side, k, row, ts, step, reason) -> { }))
        {
            final long[] peak = peakFootprint(join, tape, rows);
            final double perRow = (double) peak[1] / peak[0];
            System.out.printf(Locale.ROOT, "W2 scaled (100,000 per side, 20,000 keys), %s index: %,d live rows, %,d bytes, %.1f B per live row%n",
                kind, peak[0], peak[1], perRow);
            // 83-byte row + 9 key bytes + 32-byte header: 128 B; ~10 rows per key share a bucket, an
            // index entry and two group arrays.
            assertTrue(perRow <= 150, "bytes per live W2 row: " + perRow);
        }
    }
}
