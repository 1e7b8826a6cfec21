package io.junction.peers;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;

import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.operators.join.temporal.TemporalRowTimeJoinOperator;

/**
 * Flink SQL's event-time temporal join operator ({@code FOR SYSTEM_TIME AS OF o.ts}), W5 only:
 * {@link TemporalRowTimeJoinOperator} (inner or left) as the 1.20 planner configures it for
 * {@code ON o.key = r.key} with the versioned table's primary key {@code key}, on the same
 * {@link org.apache.flink.table.data.binary.BinaryRowData} rows and key selector as {@link FlinkSqlPeer}, heap state
 * ({@code HashMapStateBackend}), no state retention ({@code table.exec.state.ttl} 0), row time at field {@code ts}
 * on both sides. The rate updates keep their {@code +U} kind. Every order joins one rate, so the expected output is one
 * row per order in both types.
 */
final class FlinkTemporalPeer implements Peer {
    @Override
    public String name() {
        return "flink-sql-temporal";
    }

    @Override
    public boolean supports(final Workload w, final JoinKind j) {
        return w == Workload.W5;
    }

    @Override
    public long expected(final Expected e, final JoinKind j) {
        return j == JoinKind.INNER ? e.inner : e.leftAppend;
    }

    @Override
    public Prepared prepare(final Workload w, final JoinKind j, final EventTape tape) {
        final FlinkInput input = new FlinkInput(tape, FlinkSqlPeer::row);
        return new Prepared() {
            @Override
            public PeerRun newRun() throws Exception {
                input.restoreKinds();
                final TwoInputStreamOperator<RowData, RowData, RowData> op = new TemporalRowTimeJoinOperator(
                    FlinkSqlPeer.ROW, FlinkSqlPeer.ROW, FlinkSqlPeer.trueCondition(), FlinkSqlPeer.TS_INDEX,
                    FlinkSqlPeer.TS_INDEX, 0L, 0L, j == JoinKind.LEFT);
                final CountingOutput<RowData> out = new CountingOutput<>(true);
                final KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> h = FlinkInput.harness(
                    op, new FlinkSqlPeer.KeyProjection(), new FlinkSqlPeer.KeyProjection(), FlinkSqlPeer.KEY, out);
                return new PeerRun() {
                    @Override
                    public long run() throws Exception {
                        input.feed(h);
                        return out.records;
                    }

                    @Override
                    public void close() throws Exception {
                        h.close();
                    }
                };
            }

            @Override
            public String describe() {
                return "TemporalRowTimeJoinOperator(" + (j == JoinKind.LEFT ? "left outer" : "inner")
                    + ", row time ts, no state retention), BinaryRowData, HashMapStateBackend";
            }
        };
    }
}
