package io.junction.tools.perf;

import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.tools.workload.RowPayload;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The join each benchmark workload runs (WORKLOADS.md): W1 and W1-big are interval joins on
 * {@code key} with {@code right.ts ∈ [left.ts - x, left.ts + x]}, W2 and W3 regular joins on
 * {@code key}; and an encoder that turns a workload event into a row of the workload schema
 * ({@code key, ts, f1, f2, f3}) in place, without allocating.
 */
public final class WorkloadJoin
{
    /** Field order of every workload row. */
    public static final Schema SCHEMA = Schema.of("key", "ts", "f1", "f2", "f3");

    private WorkloadJoin()
    {
    }

    /** @return the join spec of a workload for a join type. */
    public static JoinSpec spec(final Workload workload, final JoinType type)
    {
        switch (workload)
        {
            case W1:
            case W1_BIG:
                final long x = Workloads.w1IntervalMillis(workload);
                return JoinSpec.builder(JoinKind.INTERVAL, type).schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key")
                    .interval(IntervalBounds.inclusive(-x, x)).build();
            default:
                return JoinSpec.builder(JoinKind.REGULAR, type).schemas(SCHEMA, SCHEMA).leftKey("key").rightKey("key").build();
        }
    }

    /** Writes workload rows into one reused off-heap buffer: the long fields and f3 are patched in place. */
    public static final class RowEncoder
    {
        private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        private final RowView view = new RowView();
        private final byte[] f3 = new byte[32];
        private final int keyIndex;
        private final int tsIndex;
        private final int f1Index;
        private final int f2Index;
        private final int f3Index;

        public RowEncoder()
        {
            final RowWriter writer = new RowWriter().wrap(buffer, 0, buffer.capacity(), 5);
            writer.putLong(0, 0).putLong(1, 0).putLong(2, 0).putLong(3, 0).putUtf8(4, f3, 0, f3.length);
            view.wrap(buffer, 0, writer.finish());
            keyIndex = view.payloadIndex(0);
            tsIndex = view.payloadIndex(1);
            f1Index = view.payloadIndex(2);
            f2Index = view.payloadIndex(3);
            f3Index = view.stringBytesIndex(4);
        }

        /** @return the row of one workload event, valid until the next call. */
        public RowView encode(final int side, final long key, final long ts, final long f1)
        {
            final long f2 = RowPayload.f2(key, side);
            buffer.putLong(keyIndex, key, ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(tsIndex, ts, ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(f1Index, f1, ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(f2Index, f2, ByteOrder.LITTLE_ENDIAN);
            RowPayload.f3(f2, f1, f3, 0);
            buffer.putBytes(f3Index, f3, 0, f3.length);
            return view;
        }
    }
}
