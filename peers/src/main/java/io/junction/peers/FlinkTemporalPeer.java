package io.junction.peers;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;

import io.junction.tools.workload.W6;

import org.apache.flink.api.common.functions.AbstractRichFunction;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.generated.GeneratedJoinCondition;
import org.apache.flink.table.runtime.generated.JoinCondition;
import org.apache.flink.table.runtime.operators.join.temporal.TemporalRowTimeJoinOperator;

/**
 * Flink SQL's event-time temporal join operator ({@code FOR SYSTEM_TIME AS OF o.ts}), W5 only:
 * {@link TemporalRowTimeJoinOperator} (inner or left) as the 1.20 planner configures it for
 * {@code ON o.key = r.key} with the versioned table's primary key {@code key}, on the same
 * {@link org.apache.flink.table.data.binary.BinaryRowData} rows and key selector as {@link FlinkSqlPeer}, heap state
 * ({@code HashMapStateBackend}), no state retention ({@code table.exec.state.ttl} 0), row time at field {@code ts}
 * on both sides. The rate updates keep their {@code +U} kind. Every order joins one rate, so the expected output is one
 * row per order in both types.
 * <p>
 * W6 too, the nearest thing Flink has to an ASOF join (Flink SQL has no ASOF syntax): the quotes as a versioned
 * table keyed by symbol (each quote a new version, {@code +I}), each trade joined with the version valid at its ts,
 * which is the latest quote at or before it, and a join condition {@code t.ts - q.ts <= 1000} for W6's tolerance
 * (a trade whose latest quote is older is unmatched, as in the ASOF join, where the best candidate is the latest
 * one too). Expected: the trades with a quote within the tolerance (inner), every trade (left).
 */
final class FlinkTemporalPeer implements Peer
{
    @Override
    public String name()
    {
        return "flink-sql-temporal";
    }

    @Override
    public boolean supports(final Workload w, final JoinKind j)
    {
        return w == Workload.W5 || w == Workload.W6;
    }

    @Override
    public long expected(final Expected e, final JoinKind j)
    {
        return j == JoinKind.INNER ? e.inner : e.leftAppend;
    }

    @Override
    public Prepared prepare(final Workload w, final JoinKind j, final EventTape tape)
    {
        final FlinkInput input = new FlinkInput(tape, FlinkSqlPeer::row);
        return new Prepared()
        {
            @Override
            @SuppressWarnings("try") // a PeerRun closes a Flink harness, whose close() declares Exception (InterruptedException among them)
            public PeerRun newRun() throws Exception
            {
                input.restoreKinds();
                final TwoInputStreamOperator<RowData, RowData, RowData> op = new TemporalRowTimeJoinOperator(
                    FlinkSqlPeer.ROW, FlinkSqlPeer.ROW, w == Workload.W6 ? toleranceCondition() : FlinkSqlPeer.trueCondition(),
                    FlinkSqlPeer.TS_INDEX,
                    FlinkSqlPeer.TS_INDEX, 0L, 0L, j == JoinKind.LEFT);
                final CountingOutput<RowData> out = new CountingOutput<>(true);
                final KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> h = FlinkInput.harness(
                    op, new FlinkSqlPeer.KeyProjection(), new FlinkSqlPeer.KeyProjection(), FlinkSqlPeer.KEY, out);
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
                return "TemporalRowTimeJoinOperator(" + (j == JoinKind.LEFT ? "left outer" : "inner")
                    + (w == Workload.W6 ? ", condition t.ts - q.ts <= " + W6.TOLERANCE_MS : "")
                    + ", row time ts, no state retention), BinaryRowData, HashMapStateBackend";
            }
        };
    }

    /** W6's tolerance as the planner would generate {@code ON t.key = q.key AND t.ts - q.ts <= 1000}. */
    public static final class ToleranceCondition extends AbstractRichFunction implements JoinCondition
    {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean apply(final RowData trade, final RowData quote)
        {
            return trade.getLong(FlinkSqlPeer.TS_INDEX) - quote.getLong(FlinkSqlPeer.TS_INDEX) <= W6.TOLERANCE_MS;
        }
    }

    static GeneratedJoinCondition toleranceCondition()
    {
        return new GeneratedJoinCondition(ToleranceCondition.class.getName(), "", new Object[0])
        {
            private static final long serialVersionUID = 1L;

            @Override
            public JoinCondition newInstance(final ClassLoader classLoader)
            {
                return new ToleranceCondition();
            }
        };
    }
}
