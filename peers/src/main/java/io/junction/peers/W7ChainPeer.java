package io.junction.peers;

import io.junction.tools.workload.W7;

import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.operators.join.stream.StreamingJoinOperator;
import org.apache.flink.table.runtime.operators.join.stream.state.JoinInputSideSpec;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.OutputTag;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;

/**
 * W7 (four upsert streams on the order id, WORKLOADS.md) through the chain of three Flink SQL
 * {@link StreamingJoinOperator}s a planner builds for {@code orders LEFT JOIN payments LEFT JOIN shipments LEFT JOIN
 * refunds ON the order id}: the peer of Junction's multi-way join ({@code junction multibench}, which also runs
 * Junction's own chain). {@code bench/scripts/w7-figures.sh} interleaves the two JVMs and takes medians.
 * <p>
 * How the Flink chain is set up, as the 1.20 planner would for upsert sources keyed by the order id:
 * <ul>
 *   <li>rows are BIGINT {@link BinaryRowData}: level {@code L} (1 to 3) joins a {@code 4L}-field left row (the
 *       previous level's output; the orders for level 1) with a 4-field right row {@code (key, ts, f1, f2)};</li>
 *   <li>each side's unique key is the order id, contained in the join key:
 *       {@link JoinInputSideSpec#withUniqueKeyContainedByJoinKey} (Flink's cheapest state shape, one row per key
 *       and side); left outer, heap state ({@code HashMapStateBackend}), no TTL;</li>
 *   <li>the input rows carry W7's change kinds as their {@link RowKind} ({@code +I}, {@code -U}, {@code +U},
 *       {@code -D}); the operator erases them when it stores a row, so they are set back before each run (not
 *       timed);</li>
 *   <li>a level's output goes to the next level's left input the way chained operators pass records with object
 *       reuse off (Flink's default, {@code CopyingChainingOutput}): a serializer copy, then
 *       {@code processElement1}.</li>
 * </ul>
 * Before the timed runs one untimed run materializes the last level's changelog and checks it against the brute
 * force of W7's final live rows ({@link W7#bruteForce}, which Junction's W7 tests use too).
 * Measured: events per second (the events fed, end of input included), output lines at the last level and over
 * all levels. Flink's state size is not measured (heap objects).
 */
final class W7ChainPeer
{
    private static final int W = 4;
    private static final int LEVELS = 3;
    private static final int F1 = 2;

    /** W7's changes converted to Flink records, in order: input and record. */
    private final int[] inputs;
    private final byte[] kinds;
    private final List<StreamRecord<RowData>> records;
    private final long[][] live;

    private W7ChainPeer(final int n)
    {
        final List<StreamRecord<RowData>> rs = new ArrayList<>();
        final List<Integer> in = new ArrayList<>();
        final List<Byte> ks = new ArrayList<>();
        live = W7.generate(n, (input, kind, key, ts, f1) ->
        {
            final BinaryRowData row = new BinaryRowData(W);
            final BinaryRowWriter w = new BinaryRowWriter(row);
            w.writeLong(0, key);
            w.writeLong(1, ts);
            w.writeLong(2, f1);
            w.writeLong(3, W7.f2(key, input));
            w.complete();
            rs.add(new StreamRecord<>(row, ts));
            in.add(input);
            ks.add(kind);
        });
        records = rs;
        inputs = new int[in.size()];
        kinds = new byte[ks.size()];
        for (int i = 0; i < inputs.length; i++)
        {
            inputs[i] = in.get(i);
            kinds[i] = ks.get(i);
        }
    }

    /** Sets every input row's kind back to W7's (the operator erases it when it stores the row). */
    private void restoreKinds()
    {
        for (int i = 0; i < kinds.length; i++)
        {
            records.get(i).getValue().setRowKind(RowKind.fromByteValue(kinds[i]));
        }
    }

    private static LogicalType[] bigints(final int n)
    {
        final LogicalType[] t = new LogicalType[n];
        for (int i = 0; i < n; i++)
        {
            t[i] = new BigIntType();
        }
        return t;
    }

    /** One level's operator: its harness, its output counter and the copy into the next level. */
    private static final class Level implements Output<StreamRecord<RowData>>
    {
        final KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> harness;
        final RowDataSerializer copier;
        final int outFields;
        Level next;
        long lines;
        TreeMap<String, Long> materialized;

        Level(final int level) throws Exception
        {
            final int leftFields = W * level;
            outFields = leftFields + W;
            copier = new RowDataSerializer(bigints(outFields));
            final InternalTypeInfo<RowData> leftType = InternalTypeInfo.ofFields(bigints(leftFields));
            final InternalTypeInfo<RowData> rightType = InternalTypeInfo.ofFields(bigints(W));
            final KeySelector<RowData, RowData> key = new FlinkSqlPeer.KeyProjection();
            final InternalTypeInfo<RowData> keyType = InternalTypeInfo.ofFields(new BigIntType());
            final StreamingJoinOperator op = new StreamingJoinOperator(leftType, rightType, FlinkSqlPeer.trueCondition(),
                JoinInputSideSpec.withUniqueKeyContainedByJoinKey(keyType, key),
                JoinInputSideSpec.withUniqueKeyContainedByJoinKey(keyType, key),
                true, false, new boolean[] {true}, 0L, 0L);
            harness = new KeyedTwoInputStreamOperatorTestHarness<>(op, key, key, keyType, FlinkInput.MAX_PARALLELISM, 1, 0);
            harness.setStateBackend(new HashMapStateBackend());
            harness.setup();
            final Field output = AbstractStreamOperator.class.getDeclaredField("output");
            output.setAccessible(true);
            output.set(op, this);
            harness.open();
        }

        @Override
        public void collect(final StreamRecord<RowData> record)
        {
            lines++;
            final RowData row = record.getValue();
            if (next != null)
            {
                try
                {
                    next.harness.processElement1(new StreamRecord<>(copier.copy(row), record.getTimestamp()));
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException(e);
                }
            }
            else if (materialized != null)
            {
                final StringBuilder b = new StringBuilder();
                for (int i = 0; i < outFields / W; i++)
                {
                    final int f = W * i + F1;
                    b.append(i == 0 ? "" : "|").append(row.isNullAt(f) ? "-" : String.valueOf(row.getLong(f)));
                }
                final String c = b.toString();
                final RowKind kind = row.getRowKind();
                if (kind == RowKind.INSERT || kind == RowKind.UPDATE_AFTER)
                {
                    materialized.merge(c, 1L, Long::sum);
                }
                else if (materialized.merge(c, -1L, Long::sum) == 0)
                {
                    materialized.remove(c);
                }
            }
        }

        @Override
        public <X> void collect(final OutputTag<X> outputTag, final StreamRecord<X> record)
        {
        }

        @Override
        public void emitWatermark(final Watermark mark)
        {
        }

        @Override
        public void emitWatermarkStatus(final WatermarkStatus watermarkStatus)
        {
        }

        @Override
        public void emitLatencyMarker(final LatencyMarker latencyMarker)
        {
        }

        @Override
        public void emitRecordAttributes(final RecordAttributes recordAttributes)
        {
        }

        @Override
        public void close()
        {
        }
    }

    /** One Flink chain run's figures. */
    private static final class FlinkResult
    {
        long events;
        long nanos;
        long outputLines;
        long allLines;
        TreeMap<String, Long> materialized;

        double eventsPerSecond()
        {
            return events * 1e9 / nanos;
        }
    }

    private FlinkResult runFlink(final boolean materialize) throws Exception
    {
        restoreKinds();
        final Level[] levels = new Level[LEVELS];
        for (int l = 0; l < LEVELS; l++)
        {
            levels[l] = new Level(l + 1);
        }
        for (int l = 0; l < LEVELS - 1; l++)
        {
            levels[l].next = levels[l + 1];
        }
        final FlinkResult r = new FlinkResult();
        if (materialize)
        {
            levels[LEVELS - 1].materialized = new TreeMap<>();
        }
        System.gc();
        final long start = System.nanoTime();
        for (int i = 0; i < inputs.length; i++)
        {
            final int input = inputs[i];
            // orders and payments meet in the first join, shipments in the second, refunds in the third
            if (input == 0)
            {
                levels[0].harness.processElement1(records.get(i));
            }
            else
            {
                levels[input - 1].harness.processElement2(records.get(i));
            }
        }
        for (final Level level : levels)
        {
            level.harness.processBothWatermarks(Watermark.MAX_WATERMARK);
        }
        r.nanos = System.nanoTime() - start;
        r.events = inputs.length;
        for (final Level level : levels)
        {
            r.allLines += level.lines;
            level.harness.close();
        }
        r.outputLines = levels[LEVELS - 1].lines;
        r.materialized = levels[LEVELS - 1].materialized;
        return r;
    }

    /**
     * Runs the Flink chain: one untimed run checked against the brute force, then the timed runs, and prints each
     * and the median in the form {@code bench/scripts/w7-figures.sh} reads.
     *
     * @param n    order ids
     * @param warmup untimed runs after the checked one
     * @param runs   timed runs
     * @return whether the chain's result equalled the brute force
     * @throws Exception from Flink
     */
    static boolean run(final int n, final int warmup, final int runs) throws Exception
    {
        final W7ChainPeer peer = new W7ChainPeer(n);
        System.out.printf(Locale.ROOT, "%n## W7 (%,d order ids): %,d changes through Flink's chain of 3 StreamingJoinOperators"
            + " (unique key contained by the join key, left outer, HashMapStateBackend)%n", n, peer.inputs.length);
        final FlinkResult check = peer.runFlink(true);
        final boolean ok = check.materialized.equals(W7.bruteForce(peer.live));
        System.out.println("   result against the brute force of the live rows: " + (ok ? "OK" : "MISMATCH"));
        for (int i = 0; i < warmup; i++)
        {
            peer.runFlink(false);
        }
        final List<FlinkResult> flinks = new ArrayList<>();
        for (int i = 0; i < runs; i++)
        {
            final FlinkResult r = peer.runFlink(false);
            flinks.add(r);
            System.out.printf(Locale.ROOT, "flink-chain run %d: %.0f events/s, %d output lines (last level), %d over all levels%n",
                i + 1, r.eventsPerSecond(), r.outputLines, r.allLines);
        }
        flinks.sort(Comparator.comparingLong(x -> x.nanos));
        final FlinkResult median = flinks.get(runs / 2);
        System.out.printf(Locale.ROOT, "flink-chain median: %.0f events/s, %d output lines (last level), %d over all levels%n",
            median.eventsPerSecond(), median.outputLines, median.allLines);
        return ok;
    }
}
