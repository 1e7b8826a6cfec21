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

import java.lang.reflect.Field;

/**
 * A workload converted to Flink's native input: one {@link StreamRecord} per row (value in the peer's row type,
 * timestamp = ts) and one {@link Watermark} per watermark, in tape order; the end of input is
 * {@link Watermark#MAX_WATERMARK}. Fed to both inputs of a keyed two-input operator through the operator test
 * harness, with the heap state backend ({@link HashMapStateBackend}) and a {@link CountingOutput}.
 */
final class FlinkInput {
    static final byte LEFT = EventTape.TYPE_LEFT;
    static final byte RIGHT = EventTape.TYPE_RIGHT;
    static final byte WATERMARK = EventTape.TYPE_WATERMARK;
    static final byte END = EventTape.TYPE_END;

    /** Flink's default max parallelism for a job of parallelism 1 (number of key groups). */
    static final int MAX_PARALLELISM = 128;

    final byte[] types;
    final Object[] items;

    /** Converts the tape; {@code row(side, i)} builds the native row of tape event i. */
    FlinkInput(final EventTape tape, final RowFactory rows) {
        final int n = tape.size();
        types = new byte[n];
        items = new Object[n];
        for (int i = 0; i < n; i++) {
            final byte t = tape.type(i);
            types[i] = t;
            switch (t) {
                case EventTape.TYPE_LEFT:
                case EventTape.TYPE_RIGHT:
                    items[i] = new StreamRecord<>(rows.row(t, tape.key(i), tape.ts(i), tape.f1(i)), tape.ts(i));
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

    /** Builds a peer's native row. */
    interface RowFactory {
        Object row(int side, long key, long ts, long f1);
    }

    /**
     * The timed loop: every event in order, each row on its side, each watermark on both inputs.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    void feed(final KeyedTwoInputStreamOperatorTestHarness h) throws Exception {
        final byte[] ty = types;
        final Object[] it = items;
        for (int i = 0, n = ty.length; i < n; i++) {
            switch (ty[i]) {
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
            final TypeInformation<K> keyType, final CountingOutput<O> out) throws Exception {
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
