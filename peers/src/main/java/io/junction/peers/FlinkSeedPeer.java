package io.junction.peers;

import io.junction.tools.perf.ShapingJoin;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;

import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.table.data.RowData;

/**
 * {@code flink-sql-seed}: W1-seed's show/click query as Flink SQL plans it, a <b>regular</b> left join
 * ({@code SELECT ... FROM shows s LEFT JOIN clicks c ON s.key = c.key}) over W1's events: docs/WORKLOADS.md
 * "W1-seed", the baseline of the changelog-shaping work's figures ({@code junction shaping}). The operator is
 * {@code StreamingJoinOperator} (left outer, inputs without a unique key: the article's Kafka tables declare
 * none), the same as {@link FlinkSqlPeer}'s W2, on {@code BinaryRowData}, heap state. Its changelog is
 * {@code +I(s, null)} for every show, then {@code -D(s, null)}, {@code +I(s, c)} for every click.
 * <p>
 * <b>No state TTL</b> (state retention 0, Flink SQL's default): "clicks within 60 s" is a property of the data
 * here (every W1 click comes within 30 s), not of the query. Flink SQL would express a bound on the state as
 * {@code table.exec.state.ttl = 60 s}, which is processing time: in the test harness (whose processing-time clock
 * does not move) it would expire nothing and give the same output, and in production it drops shows by wall
 * clock, not by event time, so it is left out.
 * <p>
 * Expected output: the counting model of the Flink changelog, {@code shows + 2 * clicks} (each click matches its
 * own show, which comes first), of which {@code clicks} are {@code -D}; checked against
 * {@link ShapingJoin#expectedLines} (Junction's retraction configuration) when the input is converted, and the
 * {@code -D} count on every run.
 */
final class FlinkSeedPeer implements Peer
{
    @Override
    public String name()
    {
        return "flink-sql-seed";
    }

    @Override
    public boolean supports(final Workload w, final JoinKind j)
    {
        return w == Workload.W1 && j == JoinKind.LEFT;
    }

    @Override
    public long expected(final Expected e, final JoinKind j)
    {
        return e.leftRows + 2 * e.inner;
    }

    @Override
    public Prepared prepare(final Workload w, final JoinKind j, final EventTape tape)
    {
        final long clicks = tape.rows() - countLeft(tape);
        final long model = ShapingJoin.expectedLines(Workload.W1, ShapingJoin.Config.RETRACTION, tape, 0).lines;
        if (model != countLeft(tape) + 2 * clicks)
        {
            throw new IllegalStateException("the W1-seed counting models disagree: " + model + " vs " + (countLeft(tape) + 2 * clicks));
        }
        final FlinkInput input = new FlinkInput(tape, FlinkSqlPeer::row);
        return new Prepared()
        {
            @Override
            @SuppressWarnings("try") // a PeerRun closes a Flink harness, whose close() declares Exception (InterruptedException among them)
            public PeerRun newRun() throws Exception
            {
                input.restoreKinds();
                final TwoInputStreamOperator<RowData, RowData, RowData> op = FlinkSqlPeer.regularJoin(JoinKind.LEFT, false);
                final CountingOutput<RowData> out = new CountingOutput<>(true);
                final KeyedTwoInputStreamOperatorTestHarness<RowData, RowData, RowData, RowData> h =
                    FlinkInput.harness(op, new FlinkSqlPeer.KeyProjection(), new FlinkSqlPeer.KeyProjection(), FlinkSqlPeer.KEY, out);
                return new PeerRun()
                {
                    @Override
                    public long run() throws Exception
                    {
                        input.feed(h);
                        if (out.deletes != clicks)
                        {
                            throw new IllegalStateException("-D rows " + out.deletes + ", expected one per click: " + clicks);
                        }
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
                return "W1-seed: StreamingJoinOperator(left outer, no unique key, no TTL) over W1's shows and clicks, "
                    + "changelog +I(s,null) / -D(s,null) / +I(s,c), BinaryRowData, HashMapStateBackend";
            }
        };
    }

    private static long countLeft(final EventTape tape)
    {
        long left = 0;
        for (int i = 0, n = tape.size(); i < n; i++)
        {
            if (tape.type(i) == EventTape.TYPE_LEFT)
            {
                left++;
            }
        }
        return left;
    }
}
