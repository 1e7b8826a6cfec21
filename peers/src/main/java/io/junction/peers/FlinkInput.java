package io.junction.peers;

import io.junction.tools.workload.EventTape;

import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;

import java.lang.reflect.Field;

/**
 * A workload converted to Flink's native input: one {@link StreamRecord} per row (value in the peer's row type,
 * timestamp = ts) and one {@link Watermark} per watermark, in tape order; the end of input is
 * {@link Watermark#MAX_WATERMARK}. Fed to both inputs of a keyed two-input operator through the operator test
 * harness, with the heap state backend ({@link HashMapStateBackend}) and a {@link CountingOutput}.
 * <p>
 * A changelog (W4) needs {@link RowData} rows: each row gets its tape kind as its {@link RowKind}. Flink's
 * {@code StreamingJoinOperator} erases an input row's kind to {@code +I} before it stores the row, so the
 * records are not the same after a run: {@link #restoreKinds()} sets them back before the next (not timed).
 */
final class FlinkInput
{
    static final byte LEFT = EventTape.TYPE_LEFT;
    static final byte RIGHT = EventTape.TYPE_RIGHT;
    static final byte WATERMARK = EventTape.TYPE_WATERMARK;
    static final byte END = EventTape.TYPE_END;

    /** Flink's default max parallelism for a job of parallelism 1 (number of key groups). */
    static final int MAX_PARALLELISM = 128;

    final byte[] types;
    final Object[] items;
    /** Each event's change kind when the tape is a changelog, else null. */
    private final byte[] kinds;

    /** Converts the tape; {@code row(side, i)} builds the native row of tape event i. */
    FlinkInput(final EventTape tape, final RowFactory rows)
    {
        final int n = tape.size();
        types = new byte[n];
        items = new Object[n];
        kinds = tape.insertOnly() ? null : new byte[n];
        for (int i = 0; i < n; i++)
        {
            final byte t = tape.type(i);
            types[i] = t;
            switch (t)
            {
                case EventTape.TYPE_LEFT:
                case EventTape.TYPE_RIGHT:
                    final Object row = rows.row(t, tape.key(i), tape.ts(i), tape.f1(i));
                    if (kinds != null)
                    {
                        if (!(row instanceof RowData))
                        {
                            throw new IllegalArgumentException("a changelog (W4) needs RowData rows, this peer builds "
                                + row.getClass().getName());
                        }
                        kinds[i] = tape.kind(i);
                        ((RowData) row).setRowKind(RowKind.fromByteValue(kinds[i]));
                    }
                    items[i] = new StreamRecord<>(row, tape.ts(i));
                    break;
                case EventTape.TYPE_WATERMARK:
                    items[i] = new Watermark(tape.ts(i));
                    break;
                default:
                    items[i] = Watermark.MAX_WATERMARK;
                    break;
            }
        }
    }

    /** Sets every row's {@link RowKind} back to its tape kind (Flink erases it); nothing for an insert-only tape. */
    @SuppressWarnings("unchecked")
    void restoreKinds()
    {
        if (kinds == null)
        {
            return;
        }
        for (int i = 0, n = types.length; i < n; i++)
        {
            if (types[i] == LEFT || types[i] == RIGHT)
            {
                ((StreamRecord<RowData>) items[i]).getValue().setRowKind(RowKind.fromByteValue(kinds[i]));
            }
        }
    }

    /** Builds a peer's native row. */
    interface RowFactory
    {
        Object row(int side, long key, long ts, long f1);
    }

    /**
     * The timed loop: every event in order, each row on its side, each watermark on both inputs.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void feed(final KeyedTwoInputStreamOperatorTestHarness h) throws Exception
    {
        final byte[] ty = types;
        final Object[] it = items;
        for (int i = 0, n = ty.length; i < n; i++)
        {
            switch (ty[i])
            {
                case LEFT:
                    h.processElement1((StreamRecord) it[i]);
                    break;
                case RIGHT:
                    h.processElement2((StreamRecord) it[i]);
                    break;
                default:
                    h.processBothWatermarks((Watermark) it[i]);
                    break;
            }
        }
    }

    /**
     * Sets up a keyed two-input harness around {@code op}: heap state backend, {@link #MAX_PARALLELISM} key groups,
     * and {@code out} as the operator's output (replacing the harness's copying MockOutput), then opens it.
     */
    static <K, I1, I2, O> KeyedTwoInputStreamOperatorTestHarness<K, I1, I2, O> harness(
            final TwoInputStreamOperator<I1, I2, O> op, final KeySelector<I1, K> k1, final KeySelector<I2, K> k2,
            final TypeInformation<K> keyType, final CountingOutput<O> out) throws Exception
    {
        final KeyedTwoInputStreamOperatorTestHarness<K, I1, I2, O> h =
            new KeyedTwoInputStreamOperatorTestHarness<>(op, k1, k2, keyType, MAX_PARALLELISM, 1, 0);
        h.setStateBackend(new HashMapStateBackend());
        h.setup();
        final Field f = AbstractStreamOperator.class.getDeclaredField("output");
        f.setAccessible(true);
        f.set(op, out);
        h.open();
        return h;
    }
}
