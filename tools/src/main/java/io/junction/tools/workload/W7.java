package io.junction.tools.workload;

import java.util.List;
import java.util.TreeMap;
import java.util.Arrays;

/**
 * W7 of WORKLOADS.md: orders, payments, shipments and refunds, four upsert streams on the order id, for the
 * multi-way join (SEMANTICS 10) against a chain of binary joins. Deterministic from its seed:
 * <pre>
 * rng = SplitMix64(0x5EED0007); cdf = zipfCdf(n, 1.1); e = 0
 * repeat ops = 8 * n times:
 *     u = rng.nextDouble(); input = u &lt; 0.25 ? orders : u &lt; 0.55 ? payments : u &lt; 0.85 ? shipments : refunds
 *     key = zipfKey(cdf, rng.nextDouble())
 *     w = rng.nextDouble()
 *     no live row of (input, key): +I(key, ts = e, f1 = e); e += 1
 *     else if w &lt; 0.75: -U(the live row), then +U(key, ts = e + 1, f1 = e + 1); e += 2
 *     else: -D(the live row); e += 1
 * </pre>
 * At most one live row per (input, key): the streams are upserts keyed by order id. A row is
 * {@code key, ts, f1, f2} with {@code f2 = key * 1_000_003 + input}. Allocates its tables per call.
 */
public final class W7
{
    /** The seed. */
    public static final long SEED = 0x5EED0007L;
    /** Default order ids (keys 1 .. n); system property {@code w7.n}. */
    public static final int DEFAULT_ORDERS = 20_000;
    /** Operations per order id. */
    public static final int OPS_PER_ORDER = 8;
    /** The inputs, in the join's order. */
    public static final List<String> INPUTS = List.of("orders", "payments", "shipments", "refunds");
    /** Change kinds as the sink receives them: WorkloadSink's. */
    public static final byte INSERT = WorkloadSink.INSERT;
    /** {@code -U}. */
    public static final byte UPDATE_BEFORE = WorkloadSink.UPDATE_BEFORE;
    /** {@code +U}. */
    public static final byte UPDATE_AFTER = WorkloadSink.UPDATE_AFTER;
    /** {@code -D}. */
    public static final byte DELETE = WorkloadSink.DELETE;

    private W7()
    {
    }

    /** Receives W7's changes in order. */
    public interface Sink
    {
        /**
         * @param input the input (0 orders, 1 payments, 2 shipments, 3 refunds)
         * @param kind  {@link #INSERT}, {@link #UPDATE_BEFORE}, {@link #UPDATE_AFTER} or {@link #DELETE}
         * @param key   the order id
         * @param ts    event time, ms
         * @param f1    the version's id (its event position when inserted)
         */
        void change(int input, byte kind, long key, long ts, long f1);
    }

    /** @return {@code key * 1_000_003 + input}, wrapping */
    public static long f2(final long key, final int input)
    {
        return key * RowPayload.F2_MULTIPLIER + input;
    }

    /**
     * @param n order ids
     * @return an upper bound of the changes {@link #generate} emits for {@code n} order ids: an update is two
     */
    public static long maxChanges(final int n)
    {
        return 2L * OPS_PER_ORDER * n;
    }

    /**
     * Generates W7.
     *
     * @param n    order ids (keys 1 .. n)
     * @param sink receives the changes
     * @return the live rows at the end, per input: {@code live[input][key]} is the live version's f1, -1 for none
     */
    public static long[][] generate(final int n, final Sink sink)
    {
        if (n < 1)
        {
            throw new IllegalArgumentException("W7 needs at least one order id: " + n);
        }
        final SplitMix64 rng = new SplitMix64(SEED);
        final double[] cdf = Workloads.zipfCdf(n, Workloads.W3_ZIPF_S);
        final long[][] liveF1 = new long[INPUTS.size()][n + 1];
        final long[][] liveTs = new long[INPUTS.size()][n + 1];
        for (final long[] l : liveF1)
        {
            Arrays.fill(l, -1);
        }
        long e = 0;
        final long ops = (long) OPS_PER_ORDER * n;
        for (long op = 0; op < ops; op++)
        {
            final double u = rng.nextDouble();
            final int input = u < 0.25 ? 0 : u < 0.55 ? 1 : u < 0.85 ? 2 : 3;
            final int key = (int) Workloads.zipfKey(cdf, rng.nextDouble());
            final double w = rng.nextDouble();
            if (liveF1[input][key] < 0)
            {
                sink.change(input, INSERT, key, e, e);
                liveF1[input][key] = e;
                liveTs[input][key] = e;
                e += 1;
            }
            else if (w < 0.75)
            {
                sink.change(input, UPDATE_BEFORE, key, liveTs[input][key], liveF1[input][key]);
                sink.change(input, UPDATE_AFTER, key, e + 1, e + 1);
                liveF1[input][key] = e + 1;
                liveTs[input][key] = e + 1;
                e += 2;
            }
            else
            {
                sink.change(input, DELETE, key, liveTs[input][key], liveF1[input][key]);
                liveF1[input][key] = -1;
                e += 1;
            }
        }
        return liveF1;
    }

    /**
     * The brute force of W7's join (orders LEFT payments LEFT shipments LEFT refunds on the order id) over its
     * final live rows: every live order with each input's live row of its id, or padded ("-"), as
     * {@code "o|p|s|r"} of the rows' f1 to its count. Java only, so the peers profile checks Flink with it too.
     *
     * @param live the live rows {@link #generate} returns
     * @return the materialized result
     */
    public static TreeMap<String, Long> bruteForce(final long[][] live)
    {
        final TreeMap<String, Long> m = new TreeMap<>();
        for (int key = 0; key < live[0].length; key++)
        {
            if (live[0][key] < 0)
            {
                continue;
            }
            final StringBuilder b = new StringBuilder().append(live[0][key]);
            for (int i = 1; i < INPUTS.size(); i++)
            {
                b.append('|').append(live[i][key] < 0 ? "-" : String.valueOf(live[i][key]));
            }
            m.merge(b.toString(), 1L, Long::sum);
        }
        return m;
    }

    /**
     * W7's checksum: {@code h = h * 31 + key * 7 + ts * 3 + input + 4 * kind} over the changes in order
     * (wrapping), kind 0 {@code +I}, 1 {@code -U}, 2 {@code +U}, 3 {@code -D}; with counts per input and kind.
     */
    public static final class Checksum implements Sink
    {
        private long h;
        private long events;
        private final long[][] counts = new long[INPUTS.size()][4];

        @Override
        public void change(final int input, final byte kind, final long key, final long ts, final long f1)
        {
            h = h * 31 + key * 7 + ts * 3 + input + 4L * kind;
            events++;
            counts[input][kind]++;
        }

        /** @return the checksum as 16 lowercase hex digits */
        public String hex()
        {
            return io.junction.tools.workload.Checksum.hex16(h);
        }

        /** @return changes seen */
        public long events()
        {
            return events;
        }

        /**
         * @param input an input
         * @param kind  a change kind
         * @return changes of that input and kind
         */
        public long count(final int input, final byte kind)
        {
            return counts[input][kind];
        }
    }
}
