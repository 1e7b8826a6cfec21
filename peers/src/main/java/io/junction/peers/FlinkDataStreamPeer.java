package io.junction.peers;

import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.RowPayload;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;

import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.functions.co.ProcessJoinFunction;
import org.apache.flink.streaming.api.operators.co.IntervalJoinOperator;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;

/**
 * Flink DataStream API interval join: {@code impressions.keyBy(key).intervalJoin(clicks.keyBy(key))
 * .between(-30 s, +30 s).process(...)}, i.e. Flink's own {@link IntervalJoinOperator} with both bounds
 * inclusive, on POJO rows, heap state. W1 inner only (the DataStream interval join has no outer variant).
 */
final class FlinkDataStreamPeer implements Peer
{

    /** The W1 row as a Flink POJO (PojoTypeInfo: public no-arg constructor, public fields). */
    public static final class Row5
    {
        public long key;
        public long ts;
        public long f1;
        public long f2;
        public String f3;

        public Row5()
        {
        }

        Row5(final int side, final long key, final long ts, final long f1)
        {
            this.key = key;
            this.ts = ts;
            this.f1 = f1;
            this.f2 = RowPayload.f2(key, side);
            this.f3 = RowPayload.f3(f2, f1, new StringBuilder(32)).toString();
        }
    }

    /** A joined pair, what a typical ProcessJoinFunction emits. */
    public static final class Joined
    {
        public Row5 left;
        public Row5 right;

        public Joined()
        {
        }

        Joined(final Row5 left, final Row5 right)
        {
            this.left = left;
            this.right = right;
        }
    }

    /** keyBy(r -> r.key). */
    static final class KeyOf implements KeySelector<Row5, Long>
    {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(final Row5 r)
        {
            return r.key;
        }
    }

    /** process((l, r, ctx, out) -> out.collect(new Joined(l, r))). */
    static final class PairUp extends ProcessJoinFunction<Row5, Row5, Joined>
    {
        private static final long serialVersionUID = 1L;

        @Override
        public void processElement(final Row5 left, final Row5 right, final Context ctx, final Collector<Joined> out)
        {
            out.collect(new Joined(left, right));
        }
    }

    @Override
    public String name()
    {
        return "flink-datastream";
    }

    @Override
    public boolean supports(final Workload w, final JoinKind j)
    {
        return w == Workload.W1 && j == JoinKind.INNER;
    }

    @Override
    public long expected(final Expected e, final JoinKind j)
    {
        return e.inner;
    }

    @Override
    public Prepared prepare(final Workload w, final JoinKind j, final EventTape tape)
    {
        final FlinkInput input = new FlinkInput(tape, Row5::new);
        final long bound = Workloads.w1IntervalMillis(w);
        final TypeSerializer<Row5> ser =
            TypeInformation.of(Row5.class).createSerializer(new ExecutionConfig().getSerializerConfig());
        return new Prepared()
        {
            @Override
            @SuppressWarnings("try") // a PeerRun closes a Flink harness, whose close() declares Exception (InterruptedException among them)
            public PeerRun newRun() throws Exception
            {
                final IntervalJoinOperator<Long, Row5, Row5, Joined> op = new IntervalJoinOperator<>(
                    -bound, bound, true, true, null, null, ser, ser, new PairUp());
                final CountingOutput<Joined> out = new CountingOutput<>(false);
                final KeyedTwoInputStreamOperatorTestHarness<Long, Row5, Row5, Joined> h =
                    FlinkInput.harness(op, new KeyOf(), new KeyOf(), Types.LONG, out);
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
                return "IntervalJoinOperator [-" + bound + ", +" + bound + "] inclusive, POJO rows ("
                    + ser.getClass().getSimpleName() + "), HashMapStateBackend, "
                    + FlinkInput.MAX_PARALLELISM + " key groups";
            }
        };
    }
}
