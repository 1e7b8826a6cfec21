package io.junction.bench;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import org.openjdk.jmh.infra.Blackhole;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reusable row of the workload schema (key, ts, f1, f2, f3: WORKLOADS.md) whose long fields are
 * patched in place, so that a benchmark feeds a new event without writing (or allocating) a row.
 */
final class BenchRows
{
    static final Schema SCHEMA = Schema.of("key", "ts", "f1", "f2", "f3");
    static final int KEY = 0;
    static final int TS = 1;
    static final int F1 = 2;
    static final int F2 = 3;
    static final int F3 = 4;

    final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    final RowView view = new RowView();
    private final int keyIndex;
    private final int tsIndex;
    private final int f1Index;
    private final int f2Index;

    BenchRows()
    {
        final RowWriter writer = new RowWriter().wrap(buffer, 0, buffer.capacity(), 5);
        writer.putLong(KEY, 0).putLong(TS, 0).putLong(F1, 0).putLong(F2, 0)
            .putAscii(F3, "00000000000000000000000000000000");
        view.wrap(buffer, 0, writer.finish());
        keyIndex = view.payloadIndex(KEY);
        tsIndex = view.payloadIndex(TS);
        f1Index = view.payloadIndex(F1);
        f2Index = view.payloadIndex(F2);
    }

    /** Rewrites the row's fields in place and returns the view over it. */
    RowView set(final long key, final long ts, final long f1, final int side)
    {
        buffer.putLong(keyIndex, key, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(tsIndex, ts, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(f1Index, f1, ByteOrder.LITTLE_ENDIAN);
        buffer.putLong(f2Index, key * 1_000_003L + side, ByteOrder.LITTLE_ENDIAN);
        return view;
    }

    /**
     * @return a regular join on {@code key} of the workload schema, sized for {@code maxKeys}, whose
     *         results go to the blackhole.
     */
    static JoinOperator regularJoin(final JoinType type, final long maxKeys, final Blackhole blackhole)
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, type)
            .schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key").build();
        return JoinOperators.create(spec, StateConfig.defaults().withMaxKeys(maxKeys),
            (kind, left, right, ts, step) -> blackhole.consume(ts), DeadLetterHandler.NONE);
    }

    /**
     * The regular join benchmarks' operation: a left row of the n-th key in a scattered order among
     * {@code keys} arrives (probes, emits, is stored) and is retracted, so state keeps its size.
     */
    void insertAndRetractLeftRow(final JoinOperator join, final long n, final long keys)
    {
        final long key = (n * 0x9E3779B97F4A7C15L >>> 1) % keys;
        join.onRow(Side.LEFT, ChangeKind.INSERT, set(key, n, n, 0), n, n);
        join.onRow(Side.LEFT, ChangeKind.DELETE, view, n, n);
    }
}
