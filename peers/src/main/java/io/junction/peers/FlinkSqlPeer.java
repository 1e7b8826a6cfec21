package io.junction.peers;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.RowPayload;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;

import org.apache.flink.api.common.functions.AbstractRichFunction;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.binary.BinaryRowData;
import org.apache.flink.table.data.writer.BinaryRowWriter;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.generated.JoinCondition;
import org.apache.flink.table.runtime.operators.join.FlinkJoinType;
import org.apache.flink.table.runtime.operators.join.KeyedCoProcessOperatorWithWatermarkDelay;
import org.apache.flink.table.runtime.operators.join.interval.IntervalJoinFunction;
import org.apache.flink.table.runtime.operators.join.interval.RowTimeIntervalJoin;
import org.apache.flink.table.runtime.operators.join.stream.StreamingJoinOperator;
import org.apache.flink.table.runtime.operators.join.stream.state.JoinInputSideSpec;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * Flink SQL's runtime join operators, configured as the 1.20 planner configures them, on {@link BinaryRowData}
 * rows {@code (key BIGINT, ts BIGINT, f1 BIGINT, f2 BIGINT, f3 VARCHAR(32))}, keyed by a binary-row key selector
 * on {@code key} (what {@code BinaryRowDataKeySelector} does: project to a 1-field BinaryRowData and copy),
 * heap state ({@code HashMapStateBackend}), no state TTL.
 * <ul>
 *   <li>W1 ({@code ON l.key = r.key AND r.ts BETWEEN l.ts - INTERVAL '30' SECOND AND l.ts + INTERVAL '30' SECOND},
 *       rowtime): {@link RowTimeIntervalJoin} (INNER or LEFT) in a {@link KeyedCoProcessOperatorWithWatermarkDelay},
 *       bounds -30000 / +30000, allowed lateness 0, min clean-up interval 0 (the
 *       {@code table.exec.interval-join.min-cleanup-interval} default). Left outer is append-only.</li>
 *   <li>W2/W3/W4 ({@code ON l.key = r.key}, no time condition): {@link StreamingJoinOperator}, inputs without a
 *       unique key ({@link JoinInputSideSpec#withoutUniqueKey()}), left outer emits the changelog
 *       +I(l,null) / -D(l,null) / +I(l,r). W4's rows carry their {@code -U}/{@code +U} as {@code RowKind}.</li>
 *   <li>{@code flink-sql-uk}, W4 only: the same operator with {@code f1} declared as each side's unique key, the
 *       planner's spec for a side whose primary key is not contained in the join key:
 *       {@link JoinInputSideSpec#withUniqueKey} with the unique key's type ({@code BIGINT}) and a selector that
 *       projects {@code f1} into a 1-field BinaryRowData, as the planner's {@code BinaryRowDataKeySelector} does.
 *       Its state is then a map from unique key to row per join key (Flink's "input side has unique key" shape).</li>
 * </ul>
 * The planner's generated join condition for a pure equi-join is "return true"; {@link TrueCondition} is that
 * class written by hand (the equality itself is the keying).
 */
final class FlinkSqlPeer implements Peer
{
    static final LogicalType[] ROW_TYPES = {
        new BigIntType(), new BigIntType(), new BigIntType(), new BigIntType(), new VarCharType(32)
    };
    static final String[] ROW_NAMES = {"key", "ts", "f1", "f2", "f3"};
    static final InternalTypeInfo<RowData> ROW = InternalTypeInfo.ofFields(ROW_TYPES, ROW_NAMES);
    static final InternalTypeInfo<RowData> KEY = InternalTypeInfo.ofFields(new BigIntType());
    static final int TS_INDEX = 1;
    /** Field index of the join key, {@code key}. */
    static final int KEY_INDEX = 0;
    /** Field index of W4's unique key, {@code f1} ({@link Workloads#W4_UNIQUE_KEY_FIELD}). */
    static final int UNIQUE_KEY_INDEX = 2;

    /** Whether the sides declare {@code f1} as their unique key ({@code flink-sql-uk}). */
    private final boolean uniqueKey;

    /** {@code flink-sql}: no unique key declared. */
    FlinkSqlPeer()
    {
        this(false);
    }

    /** @param uniqueKey declare {@code f1} as both sides' unique key ({@code flink-sql-uk}, W4 only) */
    FlinkSqlPeer(final boolean uniqueKey)
    {
        this.uniqueKey = uniqueKey;
    }

    /** The planner's generated condition when the ON clause has only the equi-key: always true. */
    public static final class TrueCondition extends AbstractRichFunction implements JoinCondition
    {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean apply(final RowData in1, final RowData in2)
        {
            return true;
        }
    }

    static GeneratedJoinCondition trueCondition()
    {
        return new GeneratedJoinCondition(TrueCondition.class.getName(), "", new Object[0])
        {
            private static final long serialVersionUID = 1L;

            @Override
            public JoinCondition newInstance(final ClassLoader classLoader)
            {
                return new TrueCondition();
            }
        };
    }

    /** Projects one BIGINT field into a 1-field BinaryRowData and returns a copy, like BinaryRowDataKeySelector. */
    static final class KeyProjection implements KeySelector<RowData, RowData>
    {
        private static final long serialVersionUID = 1L;
        private final int field;
        private transient BinaryRowData reuse;
        private transient BinaryRowWriter writer;

        /** Projects the join key, field 0. */
        KeyProjection()
        {
            this(KEY_INDEX);
        }

        /** @param field index of the BIGINT field projected */
        KeyProjection(final int field)
        {
            this.field = field;
        }

        @Override
        public RowData getKey(final RowData row)
        {
            if (writer == null)
            {
                reuse = new BinaryRowData(1);
                writer = new BinaryRowWriter(reuse);
            }
            writer.reset();
            if (row.isNullAt(field))
            {
                writer.setNullAt(0);
            }
            else
            {
                writer.writeLong(0, row.getLong(field));
            }
            writer.complete();
            return reuse.copy();
        }
    }

    /** Builds a workload row as BinaryRowData. */
    static BinaryRowData row(final int side, final long key, final long ts, final long f1)
    {
        final long f2 = RowPayload.f2(key, side);
        final byte[] f3 = new byte[RowPayload.F3_LENGTH];
        RowPayload.f3(f2, f1, f3);
        final BinaryRowData r = new BinaryRowData(ROW_TYPES.length);
        final BinaryRowWriter w = new BinaryRowWriter(r, RowPayload.F3_LENGTH);
        w.writeLong(0, key);
        w.writeLong(1, ts);
        w.writeLong(2, f1);
        w.writeLong(3, f2);
        w.writeString(4, StringData.fromBytes(f3));
        w.complete();
        return r;
    }

    @Override
    public String name()
    {
        return uniqueKey ? "flink-sql-uk" : "flink-sql";
    }

    @Override
    public boolean supports(final Workload w, final JoinKind j)
    {
        if (uniqueKey)
        {
            return w == Workload.W4;
        }
        return w == Workload.W1 || w == Workload.W2 || w == Workload.W3 || w == Workload.W4;
    }

    @Override
    public long expected(final Expected e, final JoinKind j)
    {
        return j == JoinKind.INNER ? e.inner : e.leftChangelog;
    }

    @Override
    public Prepared prepare(final Workload w, final JoinKind j, final EventTape tape)
    {
        final FlinkInput input = new FlinkInput(tape, FlinkSqlPeer::row);
        final boolean interval = w == Workload.W1;
        final long bound = interval ? Workloads.w1IntervalMillis(w) : 0;
        return new Prepared()
        {
            @Override
            @SuppressWarnings("try") // a PeerRun closes a Flink harness, whose close() declares Exception (InterruptedException among them)
            public PeerRun newRun() throws Exception
            {
                input.restoreKinds();
                final TwoInputStreamOperator<RowData, RowData, RowData> op =
                    interval ? intervalJoin(j, bound) : regularJoin(j, uniqueKey);
                final CountingOutput<RowData> out = new CountingOutput<>(true);
                final KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> h =
                    FlinkInput.harness(op, new KeyProjection(), new KeyProjection(), KEY, out);
                return new PeerRun()
                {
                    @Override
                    public long run() throws Exception
                    {
                        input.feed(h);
                        return out.records;
                    }

                    @Override
                    public void close() throws Exception
                    {
                        h.close();
                    }
                };
            }

            @Override
            public String describe()
            {
                return interval
                    ? "RowTimeIntervalJoin(" + j + ", -" + bound + ", +" + bound
                        + ", lateness 0, min-cleanup 0) in KeyedCoProcessOperatorWithWatermarkDelay, BinaryRowData, HashMapStateBackend"
                    : "StreamingJoinOperator(" + (j == JoinKind.LEFT ? "left outer" : "inner")
                        + (uniqueKey ? ", unique key f1 on both sides (withUniqueKey, not in the join key)" : ", no unique key")
                        + ", no TTL), BinaryRowData, HashMapStateBackend";
            }
        };
    }

    static TwoInputStreamOperator<RowData, RowData, RowData> intervalJoin(final JoinKind j, final long bound)
    {
        final InternalTypeInfo<RowData> out = InternalTypeInfo.ofFields(concat(ROW_TYPES, ROW_TYPES));
        final IntervalJoinFunction fn = new IntervalJoinFunction(trueCondition(), out, new boolean[] {true});
        final RowTimeIntervalJoin join = new RowTimeIntervalJoin(
            j == JoinKind.INNER ? FlinkJoinType.INNER : FlinkJoinType.LEFT,
            -bound, bound, 0L, 0L, ROW, ROW, fn, TS_INDEX, TS_INDEX);
        return new KeyedCoProcessOperatorWithWatermarkDelay<>(join, join.getMaxOutputDelay());
    }

    static TwoInputStreamOperator<RowData, RowData, RowData> regularJoin(final JoinKind j, final boolean uniqueKey)
    {
        return new StreamingJoinOperator(ROW, ROW, trueCondition(), sideSpec(uniqueKey), sideSpec(uniqueKey),
            j == JoinKind.LEFT, false, new boolean[] {true}, 0L, 0L);
    }

    /** A side's spec: {@code f1} as unique key, not contained in the join key {@code key}; or none. */
    static JoinInputSideSpec sideSpec(final boolean uniqueKey)
    {
        return uniqueKey
            ? JoinInputSideSpec.withUniqueKey(InternalTypeInfo.ofFields(new BigIntType()), new KeyProjection(UNIQUE_KEY_INDEX))
            : JoinInputSideSpec.withoutUniqueKey();
    }

    private static LogicalType[] concat(final LogicalType[] a, final LogicalType[] b)
    {
        final LogicalType[] r = new LogicalType[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
