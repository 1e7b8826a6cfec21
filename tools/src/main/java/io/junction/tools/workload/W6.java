package io.junction.tools.workload;

import java.util.Arrays;

/**
 * W6 of WORKLOADS.md: trades (left) and quotes (right) over Zipf-hot symbols, for the ASOF join (SEMANTICS 11,
 * docs/SEMANTICS.md section 11): each trade joins the quote of its symbol in force at its time, backward
 * within a tolerance of 1 s. Deterministic from its seed:
 * <pre>
 * rng = SplitMix64(0x5EED0006); cdf = zipfCdf(5000, 1.1); n = 6 * trades; q = 0
 * for i in 0 .. n-1 (one event per ms of event time):
 *     key = zipfKey(cdf, rng.nextDouble())
 *     if i % 6 == 5: +I(LEFT, key, ts = i, f1 = i / 6)                           (a trade, in order)
 *     else: d = floor(rng.nextDouble() * 50); +I(RIGHT, key, ts = max(0, i - d), f1 = q); q += 1
 *                                                                                (a quote, up to 49 ms late)
 *     after every 100th event: watermark(max_ts_seen - 100) if higher than the last one
 * end()
 * </pre>
 * No row is late: a row at position {@code j} has {@code ts >= j - 49}, a watermark after position
 * {@code i < j} is at most {@code i - 100}. Allocates nothing per event.
 */
public final class W6
{
    /** The seed. */
    public static final long SEED = 0x5EED0006L;
    /** System property: trades of W6 (quotes are {@value #QUOTES_PER_TRADE} times as many). */
    public static final String TRADES_PROP_NAME = "w6.trades";
    /** Default trades. */
    public static final int DEFAULT_TRADES = 200_000;
    /** Quotes per trade: of every six events, five are quotes, the sixth a trade. */
    public static final int QUOTES_PER_TRADE = 5;
    /** Symbols (keys 1 .. S), Zipf(1.1) as W3's. */
    public static final int SYMBOLS = 5_000;
    /** Largest delay of a quote's ts behind its position, ms: quotes are out of order within 50 ms. */
    public static final int MAX_QUOTE_DELAY_MS = 49;
    /** A watermark is considered after every this many events. */
    public static final int WATERMARK_EVERY = 100;
    /** Watermark = max ts seen minus this. */
    public static final long WATERMARK_LAG_MS = 100;
    /** The ASOF join's tolerance: a trade takes a quote at most 1 s older than itself. */
    public static final long TOLERANCE_MS = 1_000;

    private W6()
    {
    }

    /**
     * Generates W6.
     *
     * @param trades trades, at least 1 ({@code 6 * trades} events)
     * @param sink   receives the events
     */
    public static void generate(final int trades, final WorkloadSink sink)
    {
        if (trades < 1)
        {
            throw new IllegalArgumentException(TRADES_PROP_NAME + " must be at least 1: " + trades);
        }
        final double[] cdf = Workloads.zipfCdf(SYMBOLS, Workloads.W3_ZIPF_S);
        final SplitMix64 rng = new SplitMix64(SEED);
        final long n = (long) (QUOTES_PER_TRADE + 1) * trades;
        long quotes = 0;
        long maxTs = Long.MIN_VALUE;
        long lastWatermark = Long.MIN_VALUE;
        for (long i = 0; i < n; i++)
        {
            final long key = Workloads.zipfKey(cdf, rng.nextDouble());
            final long ts;
            if (i % (QUOTES_PER_TRADE + 1) == QUOTES_PER_TRADE)
            {
                ts = i;
                sink.row(WorkloadSink.LEFT, key, ts, i / (QUOTES_PER_TRADE + 1));
            }
            else
            {
                final long d = (long) (rng.nextDouble() * (MAX_QUOTE_DELAY_MS + 1));
                ts = Math.max(0, i - d);
                sink.row(WorkloadSink.RIGHT, key, ts, quotes++);
            }
            if (ts > maxTs)
            {
                maxTs = ts;
            }
            if ((i + 1) % WATERMARK_EVERY == 0)
            {
                final long w = maxTs - WATERMARK_LAG_MS;
                if (w > lastWatermark)
                {
                    lastWatermark = w;
                    sink.watermark(w);
                }
            }
        }
        sink.end();
    }

    /**
     * W6's counting model, fed the events in order (a {@link WorkloadSink}: the generator's, or a tape's
     * replay, a prefix included): the ASOF join backward with tolerance {@link #TOLERANCE_MS}, no
     * allowed lateness, as SEMANTICS 11 defines it, counting the output rows of both emission modes and
     * types. A trade waits until the first watermark above its ts; meanwhile every quote of its symbol
     * at a ts in {@code [best.ts, ts]} (an equal ts: the later arrival wins) within the tolerance is a
     * better match: eager mode retracts and re-emits ({@code -U}, {@code +U}). Rows below the watermark
     * are counted late and take no part (W6 has none). Primitive arrays, no boxing per event.
     */
    public static final class Counts implements WorkloadSink
    {
        private final long[] maxQuoteTs = new long[SYMBOLS + 1];
        /** Waiting trades per symbol: their ts and best quote ts (Long.MIN_VALUE for none). */
        private long[][] waitingTs = new long[SYMBOLS + 1][];
        private long[][] waitingBest = new long[SYMBOLS + 1][];
        private final int[] waiting = new int[SYMBOLS + 1];
        private long watermark = Long.MIN_VALUE;
        private long trades;
        private long matched;
        private long late;
        private long eagerLeft;
        private long eagerInner;

        /** A fresh model. */
        public Counts()
        {
            Arrays.fill(maxQuoteTs, Long.MIN_VALUE);
        }

        @Override
        public void row(final int side, final long key, final long ts, final long f1)
        {
            if (key < 1 || key > SYMBOLS)
            {
                throw new IllegalArgumentException("W6 symbol out of range: " + key);
            }
            final int k = (int) key;
            if (ts < watermark)
            {
                late++;
                return;
            }
            if (side == LEFT)
            {
                trades++;
                // Every quote seen so far is at or below this trade's ts when trades come in order; take the
                // greatest one at or below it within the tolerance (a tape of other orders is not W6).
                final long best = maxQuoteTs[k] != Long.MIN_VALUE && maxQuoteTs[k] <= ts && ts - maxQuoteTs[k] <= TOLERANCE_MS
                    ? maxQuoteTs[k] : Long.MIN_VALUE;
                eagerLeft++;
                if (best != Long.MIN_VALUE)
                {
                    eagerInner++;
                }
                add(k, ts, best);
                return;
            }
            if (ts > maxQuoteTs[k])
            {
                maxQuoteTs[k] = ts;
            }
            final long[] tsOf = waitingTs[k];
            final long[] bestOf = waitingBest[k];
            for (int i = 0; i < waiting[k]; i++)
            {
                final long lts = tsOf[i];
                if (lts < watermark || ts > lts || lts - ts > TOLERANCE_MS || ts < bestOf[i])
                {
                    continue;
                }
                eagerLeft += 2;
                eagerInner += bestOf[i] == Long.MIN_VALUE ? 1 : 2;
                bestOf[i] = ts;
            }
        }

        private void add(final int k, final long ts, final long best)
        {
            if (waitingTs[k] == null)
            {
                waitingTs[k] = new long[4];
                waitingBest[k] = new long[4];
            }
            else if (waiting[k] == waitingTs[k].length)
            {
                waitingTs[k] = Arrays.copyOf(waitingTs[k], waiting[k] * 2);
                waitingBest[k] = Arrays.copyOf(waitingBest[k], waiting[k] * 2);
            }
            waitingTs[k][waiting[k]] = ts;
            waitingBest[k][waiting[k]] = best;
            waiting[k]++;
        }

        @Override
        public void watermark(final long w)
        {
            if (w <= watermark)
            {
                return;
            }
            watermark = w;
            for (int k = 1; k <= SYMBOLS; k++)
            {
                finalUpTo(k, w);
            }
        }

        /** Makes the waiting trades of a symbol with ts below {@code w} final (W > ts), counting the matched ones. */
        private void finalUpTo(final int k, final long w)
        {
            int kept = 0;
            final long[] tsOf = waitingTs[k];
            final long[] bestOf = waitingBest[k];
            for (int i = 0; i < waiting[k]; i++)
            {
                if (tsOf[i] < w)
                {
                    if (bestOf[i] != Long.MIN_VALUE)
                    {
                        matched++;
                    }
                }
                else
                {
                    tsOf[kept] = tsOf[i];
                    bestOf[kept] = bestOf[i];
                    kept++;
                }
            }
            waiting[k] = kept;
        }

        @Override
        public void end()
        {
            for (int k = 1; k <= SYMBOLS; k++)
            {
                finalUpTo(k, Long.MAX_VALUE);
            }
        }

        /** @return trades (left rows) accepted: the left join's final output rows */
        public long trades()
        {
            return trades;
        }

        /** @return trades with a quote within the tolerance at the end: the inner join's final output rows */
        public long matched()
        {
            return matched;
        }

        /** @return output rows of the eager left join: one per trade, two per correction */
        public long eagerLeft()
        {
            return eagerLeft;
        }

        /** @return output rows of the eager inner join: one per first match, two per later correction */
        public long eagerInner()
        {
            return eagerInner;
        }

        /** @return rows below the watermark (none in W6) */
        public long late()
        {
            return late;
        }
    }
}
