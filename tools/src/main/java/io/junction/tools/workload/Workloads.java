package io.junction.tools.workload;

import java.util.Arrays;
import java.util.Properties;

/**
 * Generators of the benchmark workloads W1, W2, W3, W4 and W5, bit-exact with WORKLOADS.md (v1).
 * <p>
 * The same events (same seeds, same order) were run through Flink 1.20 and Kafka Streams 4.4, so each
 * generator must reproduce the counts and checksums of the WORKLOADS.md table; the tests check them. Every
 * generator emits ONE globally ordered sequence to a {@link WorkloadSink} and finishes with
 * {@link WorkloadSink#end()}. Generation loops use primitives only (no boxing, no streams); the only
 * allocations are per call (W1's click array, W3's and W4's Zipf table, W4's per-id arrays).
 * <p>
 * Knobs, each a system property with a default ({@link #generate(Workload, WorkloadSink)}):
 * <ul>
 *   <li>{@value #W2_N_PROP_NAME}: rows per side of W2, default {@value #W2_N_DEFAULT}</li>
 *   <li>{@value #W2_KEYS_PROP_NAME}: distinct W2 keys, default {@value #W2_KEYS_DEFAULT}</li>
 *   <li>{@value #W3_N_PROP_NAME}: rows per side of W3, default {@value #W3_N_DEFAULT} (the run size;
 *       the briefed 1,000,000 gives 22.8 billion inner rows)</li>
 * </ul>
 */
public final class Workloads
{
    /** W1 PRNG seed. */
    public static final long W1_SEED = 0x5EED0001L;
    /** W2 PRNG seed. */
    public static final long W2_SEED = 0x5EED0002L;
    /** W3 PRNG seed. */
    public static final long W3_SEED = 0x5EED0003L;
    /** W4 PRNG seed. */
    public static final long W4_SEED = 0x5EED0004L;

    /** Impressions of W1. */
    public static final int W1_N_DEFAULT = 2_000_000;
    /** Impressions of W1-big. */
    public static final int W1_BIG_N_DEFAULT = 10_000_000;
    /** Probability that an impression is clicked. */
    public static final double W1_CLICK_PROBABILITY = 0.2;
    /** Largest click delay in ms (delays are uniform integers in [0, 30000]). */
    public static final int W1_MAX_CLICK_DELAY_MS = 30_000;
    /** A W1 watermark is considered after every this many events (both sides counted). */
    public static final int W1_WATERMARK_EVERY = 1000;
    /** W1 watermark = max ts seen minus this. */
    public static final long W1_WATERMARK_LAG_MS = 5000;
    /** W1 join half-interval (both bounds inclusive). */
    public static final long W1_INTERVAL_MS = 30_000;
    /** W1-big join half-interval (both bounds inclusive). */
    public static final long W1_BIG_INTERVAL_MS = 3_600_000;

    /** System property: rows per side of W2. */
    public static final String W2_N_PROP_NAME = "w2.n";
    /** Default rows per side of W2. */
    public static final int W2_N_DEFAULT = 1_000_000;
    /** System property: number of distinct W2 keys (keys are 0 .. K-1). */
    public static final String W2_KEYS_PROP_NAME = "w2.keys";
    /** Default number of distinct W2 keys. */
    public static final int W2_KEYS_DEFAULT = 200_000;
    /** System property: rows per side of W3. */
    public static final String W3_N_PROP_NAME = "w3.n";
    /** Default rows per side of W3 (the run size of WORKLOADS.md). */
    public static final int W3_N_DEFAULT = 50_000;
    /** Number of W3 ids (keys are 1 .. M). */
    public static final int W3_M_DEFAULT = 1_000_000;
    /** Zipf exponent of W3 (and W4). */
    public static final double W3_ZIPF_S = 1.1;
    /** System property: ids per side of W4. */
    public static final String W4_N_PROP_NAME = "w4.n";
    /** Default ids per side of W4. */
    public static final int W4_N_DEFAULT = 20_000;
    /** Number of W4 ids a join key is drawn from (keys are 1 .. M, Zipf as W3). */
    public static final int W4_M_DEFAULT = 1_000_000;
    /** Updates per W4 id: each a {@code -U} of the previous version immediately followed by a {@code +U}. */
    public static final int W4_UPDATES = 3;
    /** The field of the workload schema that is unique per live W4 row of a side: its id, {@code f1}. */
    public static final String W4_UNIQUE_KEY_FIELD = "f1";
    /** W5 PRNG seed. */
    public static final long W5_SEED = 0x5EED0005L;
    /** System property: orders of W5. */
    public static final String W5_N_PROP_NAME = "w5.n";
    /** Default orders of W5 (one per ms of event time). */
    public static final int W5_N_DEFAULT = 1_000_000;
    /** System property: ms of event time between two W5 rate updates. */
    public static final String W5_RATE_EVERY_PROP_NAME = "w5.rateEveryMs";
    /** Default ms between two W5 rate updates. */
    public static final int W5_RATE_EVERY_DEFAULT = 10;
    /** Currencies of W5 (keys 1 .. C): orders draw them from Zipf(1.1), rate updates uniformly. */
    public static final int W5_CURRENCIES = 1_000;
    /** Largest delay of a W5 row's ts behind its position (ms): rows, rates included, arrive out of order. */
    public static final int W5_MAX_DELAY_MS = 999;

    private Workloads()
    {
    }

    /**
     * Generates a workload with its defaults, overridden by the system properties
     * {@value #W2_N_PROP_NAME}, {@value #W2_KEYS_PROP_NAME}, {@value #W3_N_PROP_NAME} and {@value #W4_N_PROP_NAME}.
     *
     * @param w    the workload
     * @param sink receives the events
     */
    public static void generate(final Workload w, final WorkloadSink sink)
    {
        generate(w, System.getProperties(), sink);
    }

    /**
     * Generates a workload with its defaults, overridden by {@code props} (same names as the system
     * properties of {@link #generate(Workload, WorkloadSink)}).
     *
     * @param w     the workload
     * @param props overrides; missing names take the default
     * @param sink  receives the events
     */
    public static void generate(final Workload w, final Properties props, final WorkloadSink sink)
    {
        switch (w)
        {
            case W1:
                w1(W1_N_DEFAULT, sink);
                break;
            case W1_BIG:
                w1(W1_BIG_N_DEFAULT, sink);
                break;
            case W2:
                w2(intProp(props, W2_N_PROP_NAME, W2_N_DEFAULT), intProp(props, W2_KEYS_PROP_NAME, W2_KEYS_DEFAULT),
                    sink);
                break;
            case W3:
                w3(intProp(props, W3_N_PROP_NAME, W3_N_DEFAULT), W3_M_DEFAULT, sink);
                break;
            case W4:
                w4(intProp(props, W4_N_PROP_NAME, W4_N_DEFAULT), W4_M_DEFAULT, W4_UPDATES, sink);
                break;
            case W5:
                w5(intProp(props, W5_N_PROP_NAME, W5_N_DEFAULT), intProp(props, W5_RATE_EVERY_PROP_NAME, W5_RATE_EVERY_DEFAULT),
                    sink);
                break;
            case W6:
                W6.generate(intProp(props, W6.TRADES_PROP_NAME, W6.DEFAULT_TRADES), sink);
                break;
            case W8:
                W8.generate(intProp(props, W8.SHOWS_PROP_NAME, W8.DEFAULT_SHOWS), sink);
                break;
            case W8_FLAT:
            {
                final EventTape shows = new EventTape();
                W8.generate(intProp(props, W8.SHOWS_PROP_NAME, W8.DEFAULT_SHOWS), shows);
                W8.flatten(shows, sink);
                break;
            }
            default:
                throw new IllegalArgumentException("unknown workload " + w);
        }
    }

    /**
     * Number of events {@link #generate(Workload, Properties, WorkloadSink)} will emit as rows, or -1 when
     * it is only known after generation (W1: the click count is random). Handy to size an {@link EventTape}.
     *
     * @param w     the workload
     * @param props overrides
     * @return rows of both sides, or -1
     */
    public static long rowCount(final Workload w, final Properties props)
    {
        switch (w)
        {
            case W2:
                return 2L * intProp(props, W2_N_PROP_NAME, W2_N_DEFAULT);
            case W3:
                return 2L * intProp(props, W3_N_PROP_NAME, W3_N_DEFAULT);
            case W4:
                return 2L * intProp(props, W4_N_PROP_NAME, W4_N_DEFAULT) * (1 + 2L * W4_UPDATES);
            case W5:
            {
                final long n = intProp(props, W5_N_PROP_NAME, W5_N_DEFAULT);
                final long every = intProp(props, W5_RATE_EVERY_PROP_NAME, W5_RATE_EVERY_DEFAULT);
                return W5_CURRENCIES + n + (n + every - 1) / every;
            }
            case W6:
                return (W6.QUOTES_PER_TRADE + 1L) * intProp(props, W6.TRADES_PROP_NAME, W6.DEFAULT_TRADES);
            default:
                return -1;
        }
    }

    /**
     * The half-width of the W1 interval join: {@code right.ts ∈ [left.ts - x, left.ts + x]}, both bounds
     * inclusive.
     *
     * @param w {@link Workload#W1} or {@link Workload#W1_BIG}
     * @return 30,000 for W1, 3,600,000 for W1-big
     * @throws IllegalArgumentException for W2, W3 and W4 (regular joins, no interval)
     */
    public static long w1IntervalMillis(final Workload w)
    {
        switch (w)
        {
            case W1:
                return W1_INTERVAL_MS;
            case W1_BIG:
                return W1_BIG_INTERVAL_MS;
            default:
                throw new IllegalArgumentException(w + " is a regular join, it has no interval; expected W1 or W1-big");
        }
    }

    /**
     * W1, show-click interval join (WORKLOADS.md "W1").
     * <pre>
     * rng = SplitMix64(0x5EED0001)
     * for i in 0 .. n-1:
     *     impression i: key = mix64(i), ts = i, f1 = i               (left)
     *     if rng.nextDouble() &lt; 0.2:
     *         d = floor(rng.nextDouble() * 30001)                     (uniform in [0, 30000])
     *         click of i: key = mix64(i), ts = i + d                   (right)
     * clicks sorted by (ts, i); the click of rank c gets f1 = c
     * merge by ts, the impression before the clicks of equal ts
     * after the e-th event (1-based, both sides) with e % 1000 == 0:
     *     watermark(max_ts_seen - 5000) if higher than the last one
     * end()
     * </pre>
     * Clicks are kept as packed longs {@code ts << 32 | i} and sorted with {@link Arrays#sort(long[], int, int)}
     * (primitive, no boxing; ts and i are non-negative and below 2^31, so the signed order is (ts, i)).
     *
     * @param n    number of impressions, 1 .. {@value Integer#MAX_VALUE} - 30000
     * @param sink receives the events
     */
    public static void w1(final int n, final WorkloadSink sink)
    {
        if (n < 1 || n > Integer.MAX_VALUE - W1_MAX_CLICK_DELAY_MS)
        {
            throw new IllegalArgumentException("W1 n=" + n + " out of range [1, " + (Integer.MAX_VALUE - W1_MAX_CLICK_DELAY_MS) + "]");
        }
        final SplitMix64 rng = new SplitMix64(W1_SEED);
        long[] clicks = new long[n / 5 + 1024];
        int clickCount = 0;
        for (int i = 0; i < n; i++)
        {
            if (rng.nextDouble() < W1_CLICK_PROBABILITY)
            {
                final long d = (long) (rng.nextDouble() * (W1_MAX_CLICK_DELAY_MS + 1));
                if (clickCount == clicks.length)
                {
                    clicks = Arrays.copyOf(clicks, clicks.length + (clicks.length >> 1) + 16);
                }
                clicks[clickCount++] = ((i + d) << 32) | i;
            }
        }
        Arrays.sort(clicks, 0, clickCount);

        final W1Merger m = new W1Merger(sink);
        int c = 0;
        for (int i = 0; i < n; i++)
        {
            while (c < clickCount && (clicks[c] >>> 32) < i)
            {
                m.emit(WorkloadSink.RIGHT, SplitMix64.mix64(clicks[c] & 0xFFFF_FFFFL), clicks[c] >>> 32, c);
                c++;
            }
            m.emit(WorkloadSink.LEFT, SplitMix64.mix64(i), i, i);
        }
        while (c < clickCount)
        {
            m.emit(WorkloadSink.RIGHT, SplitMix64.mix64(clicks[c] & 0xFFFF_FFFFL), clicks[c] >>> 32, c);
            c++;
        }
        sink.end();
    }

    /** Counts merged W1 events and applies the watermark rule. */
    private static final class W1Merger
    {
        private final WorkloadSink sink;
        private long events;
        private long maxTs = Long.MIN_VALUE;
        private long lastWatermark = Long.MIN_VALUE;

        W1Merger(final WorkloadSink sink)
        {
            this.sink = sink;
        }

        void emit(final int side, final long key, final long ts, final long f1)
        {
            sink.row(side, key, ts, f1);
            if (ts > maxTs)
            {
                maxTs = ts;
            }
            if (++events % W1_WATERMARK_EVERY == 0)
            {
                final long w = maxTs - W1_WATERMARK_LAG_MS;
                if (w > lastWatermark)
                {
                    lastWatermark = w;
                    sink.watermark(w);
                }
            }
        }
    }

    /**
     * W2, orders-payments regular join with uniform keys (WORKLOADS.md "W2"): a uniformly random interleaving
     * of n left and n right rows, keys uniform over 0 .. keys-1, ts = global event index, no watermarks.
     * <pre>
     * rng = SplitMix64(0x5EED0002); remL = remR = n
     * for t in 0 .. 2n-1:
     *     left = rng.nextDouble() &lt; remL / (double) (remL + remR)
     *     key  = floor(rng.nextDouble() * keys)
     *     row(left ? LEFT : RIGHT, key, ts = t, f1 = running number of that side)
     * end()
     * </pre>
     *
     * @param n    rows per side, at least 1
     * @param keys number of distinct keys, at least 1
     * @param sink receives the events
     */
    public static void w2(final int n, final int keys, final WorkloadSink sink)
    {
        requirePositive("W2 n", n);
        requirePositive("W2 keys", keys);
        final SplitMix64 rng = new SplitMix64(W2_SEED);
        final double k = keys;
        long remL = n;
        long remR = n;
        final long total = 2L * n;
        for (long t = 0; t < total; t++)
        {
            final boolean left = rng.nextDouble() < (double) remL / (double) (remL + remR);
            final long key = (long) (rng.nextDouble() * k);
            if (left)
            {
                sink.row(WorkloadSink.LEFT, key, t, n - remL);
                remL--;
            }
            else
            {
                sink.row(WorkloadSink.RIGHT, key, t, n - remR);
                remR--;
            }
        }
        sink.end();
    }

    /**
     * W3, skewed regular join (WORKLOADS.md "W3"): the W2 algorithm with seed {@code 0x5EED0003} and keys
     * drawn from Zipf(s = 1.1) over 1 .. m (see {@link #zipfCdf(int, double)} and {@link #zipfKey(double[], double)}).
     * Note that the interleaving depends on n, so a smaller n is not a prefix of a larger one.
     *
     * @param n    rows per side, at least 1 (the run size is 50,000)
     * @param m    number of ids, at least 1 (1,000,000)
     * @param sink receives the events
     */
    public static void w3(final int n, final int m, final WorkloadSink sink)
    {
        requirePositive("W3 n", n);
        requirePositive("W3 m", m);
        final double[] cdf = zipfCdf(m, W3_ZIPF_S);
        final SplitMix64 rng = new SplitMix64(W3_SEED);
        long remL = n;
        long remR = n;
        final long total = 2L * n;
        for (long t = 0; t < total; t++)
        {
            final boolean left = rng.nextDouble() < (double) remL / (double) (remL + remR);
            final long key = zipfKey(cdf, rng.nextDouble());
            if (left)
            {
                sink.row(WorkloadSink.LEFT, key, t, n - remL);
                remL--;
            }
            else
            {
                sink.row(WorkloadSink.RIGHT, key, t, n - remR);
                remR--;
            }
        }
        sink.end();
    }

    /**
     * W4, orders and payments as upsert streams (WORKLOADS.md "W4"): {@code n} ids per side, each inserted once
     * ({@code +I}) with a join key drawn from W3's Zipf(1.1) over 1 .. m, then updated {@code updates} times, each
     * update a {@code -U} of the id's current version immediately followed by a {@code +U} of its new version
     * (same key, same {@code f1} = id, new ts). ts is the event's 0-based position in the sequence (the {@code -U}
     * carries the ts of the version it retracts). No watermarks.
     * <pre>
     * rng = SplitMix64(0x5EED0004); per side: ins = n (ids not yet inserted), pend = 0 (updates left of inserted
     * ids), pool = [] (inserted ids with updates left); opsL = opsR = n * (1 + updates); t = 0
     * while opsL + opsR &gt; 0:
     *     side = rng.nextDouble() &lt; opsL / (double) (opsL + opsR) ? LEFT : RIGHT
     *     insert = rng.nextDouble() &lt; ins / (double) (ins + pend)          (of that side)
     *     v = rng.nextDouble()
     *     if insert: id = n - ins; key[id] = zipfKey(cdf, v); ts[id] = t
     *                +I(side, key[id], t, f1 = id); t += 1; ins -= 1
     *                if updates &gt; 0: pool.append(id), left[id] = updates; pend += updates
     *     else:      j = floor(v * pool.size); id = pool[j]
     *                -U(side, key[id], ts[id], id); +U(side, key[id], t + 1, id); ts[id] = t + 1; t += 2
     *                pend -= 1; left[id] -= 1; if left[id] == 0: pool[j] = pool.last; pool.removeLast()
     *     ops[side] -= 1
     * end()
     * </pre>
     * Every operation uses exactly three draws. A row's join key never changes, so {@code f1} is the unique key of
     * a side and the join key does not contain it (Flink's "input side has unique key" shape).
     *
     * @param n       ids per side, at least 1 (the run size is {@value #W4_N_DEFAULT})
     * @param m       number of join-key ids, at least 1 ({@value #W4_M_DEFAULT})
     * @param updates updates per id, 0 .. 127 ({@value #W4_UPDATES})
     * @param sink    receives the events; must take changelog rows ({@link WorkloadSink#change})
     */
    public static void w4(final int n, final int m, final int updates, final WorkloadSink sink)
    {
        requirePositive("W4 n", n);
        requirePositive("W4 m", m);
        if (updates < 0 || updates > Byte.MAX_VALUE)
        {
            throw new IllegalArgumentException("W4 updates=" + updates + " out of range [0, " + Byte.MAX_VALUE + "]");
        }
        final double[] cdf = zipfCdf(m, W3_ZIPF_S);
        final SplitMix64 rng = new SplitMix64(W4_SEED);
        final UpsertSide[] sides = {new UpsertSide(n), new UpsertSide(n)};
        final long opsPerSide = (long) n * (1 + updates);
        long opsL = opsPerSide;
        long opsR = opsPerSide;
        long t = 0;
        while (opsL + opsR > 0)
        {
            final int side = rng.nextDouble() < (double) opsL / (double) (opsL + opsR) ? WorkloadSink.LEFT : WorkloadSink.RIGHT;
            final UpsertSide s = sides[side];
            final boolean insert = rng.nextDouble() < (double) s.ins / (double) (s.ins + s.pend);
            final double v = rng.nextDouble();
            if (insert)
            {
                final int id = n - s.ins;
                s.key[id] = zipfKey(cdf, v);
                s.ts[id] = t;
                sink.row(side, s.key[id], t, id);
                t++;
                s.ins--;
                if (updates > 0)
                {
                    s.left[id] = (byte) updates;
                    s.pool[s.poolSize++] = id;
                    s.pend += updates;
                }
            }
            else
            {
                final int j = (int) (v * s.poolSize);
                final int id = s.pool[j];
                sink.change(side, WorkloadSink.UPDATE_BEFORE, s.key[id], s.ts[id], id);
                sink.change(side, WorkloadSink.UPDATE_AFTER, s.key[id], t + 1, id);
                s.ts[id] = t + 1;
                t += 2;
                s.pend--;
                if (--s.left[id] == 0)
                {
                    s.pool[j] = s.pool[--s.poolSize];
                }
            }
            if (side == WorkloadSink.LEFT)
            {
                opsL--;
            }
            else
            {
                opsR--;
            }
        }
        sink.end();
    }

    /**
     * W5, orders joined with a currency-rate table (WORKLOADS.md "W5"): a temporal join of an append-only order
     * stream (left) with the changelog of a rate table keyed by currency (right).
     * <pre>
     * rng = SplitMix64(0x5EED0005); cdf = zipfCdf(1000, 1.1)
     * for c in 1 .. 1000: +I(RIGHT, key = c, ts = 0, f1 = c - 1)                 (the table's first versions)
     * for i in 0 .. n-1:
     *     if i % every == 0:
     *         c = 1 + floor(rng.nextDouble() * 1000); d = floor(rng.nextDouble() * 1000)
     *         +U(RIGHT, key = c, ts = max(0, i - d), f1 = 1000 + i / every)       (a rate update, up to 999 ms late)
     *     c = zipfKey(cdf, rng.nextDouble()); d = floor(rng.nextDouble() * 1000)
     *     +I(LEFT, key = c, ts = max(0, i - d), f1 = i)                             (an order)
     *     after every event (both sides, the table's first versions included) e with e % 1000 == 0:
     *         watermark(max_ts_seen - 5000) if higher than the last one
     * end()
     * </pre>
     * No row is late (a row's ts is at least its position minus 999, the watermark at most the position minus
     * 5000), and every currency has a version from ts 0, so every order joins one: n output rows, inner or left.
     *
     * @param n     orders, at least 1
     * @param every ms (positions) between two rate updates, at least 1
     * @param sink  receives the events; must take changelog rows ({@link WorkloadSink#change})
     */
    public static void w5(final int n, final int every, final WorkloadSink sink)
    {
        requirePositive("W5 n", n);
        requirePositive("W5 rateEveryMs", every);
        final double[] cdf = zipfCdf(W5_CURRENCIES, W3_ZIPF_S);
        final SplitMix64 rng = new SplitMix64(W5_SEED);
        final W5Merger m = new W5Merger(sink);
        for (int c = 1; c <= W5_CURRENCIES; c++)
        {
            m.emit(WorkloadSink.RIGHT, WorkloadSink.INSERT, c, 0, c - 1);
        }
        for (int i = 0; i < n; i++)
        {
            if (i % every == 0)
            {
                final long c = 1 + (long) (rng.nextDouble() * W5_CURRENCIES);
                final long d = (long) (rng.nextDouble() * (W5_MAX_DELAY_MS + 1));
                m.emit(WorkloadSink.RIGHT, WorkloadSink.UPDATE_AFTER, c, Math.max(0, i - d), W5_CURRENCIES + i / every);
            }
            final long c = zipfKey(cdf, rng.nextDouble());
            final long d = (long) (rng.nextDouble() * (W5_MAX_DELAY_MS + 1));
            m.emit(WorkloadSink.LEFT, WorkloadSink.INSERT, c, Math.max(0, i - d), i);
        }
        sink.end();
    }

    /** Counts W5 events and applies W1's watermark rule (every 1000 events, max ts seen - 5000). */
    private static final class W5Merger
    {
        private final WorkloadSink sink;
        private long events;
        private long maxTs = Long.MIN_VALUE;
        private long lastWatermark = Long.MIN_VALUE;

        W5Merger(final WorkloadSink sink)
        {
            this.sink = sink;
        }

        void emit(final int side, final byte kind, final long key, final long ts, final long f1)
        {
            if (kind == WorkloadSink.INSERT)
            {
                sink.row(side, key, ts, f1);
            }
            else
            {
                sink.change(side, kind, key, ts, f1);
            }
            if (ts > maxTs)
            {
                maxTs = ts;
            }
            if (++events % W1_WATERMARK_EVERY == 0)
            {
                final long w = maxTs - W1_WATERMARK_LAG_MS;
                if (w > lastWatermark)
                {
                    lastWatermark = w;
                    sink.watermark(w);
                }
            }
        }
    }

    /** One side of W4 while it is generated: the current version of every id and the ids with updates left. */
    private static final class UpsertSide
    {
        final long[] key;
        final long[] ts;
        final byte[] left;
        final int[] pool;
        int poolSize;
        int ins;
        long pend;

        UpsertSide(final int n)
        {
            key = new long[n];
            ts = new long[n];
            left = new byte[n];
            pool = new int[n];
            ins = n;
        }
    }

    /**
     * The Zipf cumulative distribution of W3, exactly as WORKLOADS.md computes it: prefix sums of
     * {@code Math.pow(i, -s)} for ascending i = 1 .. m in doubles, each prefix then divided by the total H.
     *
     * @param m number of ids
     * @param s exponent
     * @return {@code cdf} with {@code cdf[k]} for k = 1 .. m at index k (index 0 unused, 0.0)
     */
    public static double[] zipfCdf(final int m, final double s)
    {
        final double[] cdf = new double[m + 1];
        double sum = 0.0;
        for (int i = 1; i <= m; i++)
        {
            sum += Math.pow(i, -s);
            cdf[i] = sum;
        }
        final double h = sum;
        for (int i = 1; i <= m; i++)
        {
            cdf[i] = cdf[i] / h;
        }
        return cdf;
    }

    /**
     * The smallest k in 1 .. m with {@code v < cdf[k]} (binary search), m if none.
     *
     * @param cdf a table from {@link #zipfCdf(int, double)}
     * @param v   a uniform draw in [0, 1)
     * @return the key
     */
    public static long zipfKey(final double[] cdf, final double v)
    {
        final int m = cdf.length - 1;
        int lo = 1;
        int hi = m;
        // invariant: answer in [lo, hi]; hi = m also covers "none"
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (v < cdf[mid])
            {
                hi = mid;
            }
            else
            {
                lo = mid + 1;
            }
        }
        return lo;
    }

    private static void requirePositive(final String what, final int value)
    {
        if (value < 1)
        {
            throw new IllegalArgumentException(what + "=" + value + " out of range [1, " + Integer.MAX_VALUE + "]");
        }
    }

    private static int intProp(final Properties props, final String name, final int defaultValue)
    {
        final String s = props.getProperty(name);
        if (s == null || s.isBlank())
        {
            return defaultValue;
        }
        final int v;
        try
        {
            v = Integer.parseInt(s.trim().replace("_", "").replace(",", ""));
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("-D" + name + "=" + s + " is not an integer in [1, " + Integer.MAX_VALUE + "]", e);
        }
        if (v < 1)
        {
            throw new IllegalArgumentException("-D" + name + "=" + s + " out of range [1, " + Integer.MAX_VALUE + "]");
        }
        return v;
    }
}
