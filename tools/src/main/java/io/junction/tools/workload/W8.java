package io.junction.tools.workload;

import io.junction.api.Expansion;
import io.junction.api.Field;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import java.util.Arrays;
import org.agrona.MutableDirectBuffer;

/**
 * W8 of WORKLOADS.md: shows that carry the 1 to 8 ads they displayed, left joined to the ads' clicks by
 * ad id through a pre-join unnest ({@code leftExpand}, docs/SEMANTICS.md 12). Deterministic from its seed:
 * <pre>
 * rng = SplitMix64(0x5EED0008)
 * for i in 0 .. n-1:
 *     show i: ts = i, ads(i) = 1 + (mix64(i ^ 0x5EED0008) &gt;&gt;&gt; 61) ad ids, ad j (0-based) = mix64(8 i + j + 1)
 *     for j in 0 .. ads(i)-1:
 *         if rng.nextDouble() &lt; 0.2:
 *             d = floor(rng.nextDouble() * 30001)
 *             click of (i, j): key = ad j of show i, ts = i + d                           (right)
 * clicks sorted by (ts, 8 i + j); the click of rank c gets f1 = c
 * merge by ts, the show before the clicks of equal ts; W1's watermark rule (every 1000 events, max ts - 5000)
 * </pre>
 * A show is a tape row with {@code key = f1 = i} (its ads follow from {@code i}); ad ids are distinct, so each
 * click meets exactly its own ad. {@link #flatten} gives W8-flat, the same events with every show replaced by
 * its ads' rows (one per ad, in slot order, {@code key} the ad id and {@code f1 = 8 i + j}), as a producer that
 * expands rows itself would feed the join: the baseline the expansion's cost is measured against.
 */
public final class W8
{
    /** The seed. */
    public static final long SEED = 0x5EED0008L;
    /** Default shows; system property {@value #SHOWS_PROP_NAME}. */
    public static final int DEFAULT_SHOWS = 500_000;
    /** System property: shows of W8. */
    public static final String SHOWS_PROP_NAME = "w8.shows";
    /** The most ads of a show. */
    public static final int MAX_ADS = 8;
    /** The most shows: {@code 8 n + j} and {@code ts} must pack into one sortable long. */
    public static final int MAX_SHOWS = 1 << 26;
    /** The probability that an ad is clicked. */
    public static final double CLICK_PROBABILITY = 0.2;
    /** The most ms between a show and a click of one of its ads. */
    public static final int MAX_CLICK_DELAY_MS = 30_000;
    /** The join's interval: a click within 30 s of its show either way, both bounds inclusive (W1's). */
    public static final long INTERVAL_MS = 30_000;
    /** A show: its id, its time and its ads' ids. */
    public static final Schema SHOWS = Schema.of(Field.longField("show"), Field.longField("ts"), Field.array("ads"));
    /** A show pre-expanded: a show's fields and the ad of this row, as the expansion makes them. */
    public static final Schema FLAT_SHOWS = Schema.of(Field.longField("show"), Field.longField("ts"), Field.array("ads"),
        Field.longField("ad"));
    /** A click: the ad's id, its time and its rank among the clicks. */
    public static final Schema CLICKS = Schema.of(Field.longField("ad"), Field.longField("ts"), Field.longField("click"));

    private static final int SHIFT = 35;

    private W8()
    {
    }

    /**
     * @param show a show's index
     * @return how many ads it displayed, 1 to {@value #MAX_ADS}
     */
    public static int ads(final long show)
    {
        return 1 + (int) (SplitMix64.mix64(show ^ SEED) >>> 61);
    }

    /**
     * @param show a show's index
     * @param slot the ad's 0-based position in the show's list
     * @return the ad's id (distinct for every show and slot)
     */
    public static long ad(final long show, final int slot)
    {
        return SplitMix64.mix64(MAX_ADS * show + slot + 1);
    }

    /**
     * Generates W8.
     *
     * @param n    shows, 1 .. {@value #MAX_SHOWS}
     * @param sink receives the events: shows left, clicks right
     */
    public static void generate(final int n, final WorkloadSink sink)
    {
        if (n < 1 || n > MAX_SHOWS)
        {
            throw new IllegalArgumentException("W8 shows=" + n + " out of range [1, " + MAX_SHOWS + "]");
        }
        final SplitMix64 rng = new SplitMix64(SEED);
        long[] clicks = new long[n + 1024];
        int count = 0;
        for (int i = 0; i < n; i++)
        {
            for (int j = 0, k = ads(i); j < k; j++)
            {
                if (rng.nextDouble() < CLICK_PROBABILITY)
                {
                    final long d = (long) (rng.nextDouble() * (MAX_CLICK_DELAY_MS + 1));
                    if (count == clicks.length)
                    {
                        clicks = Arrays.copyOf(clicks, clicks.length + (clicks.length >> 1));
                    }
                    // ts below 2^27 and 8 i + j below 2^29: the packed order is (ts, 8 i + j)
                    clicks[count++] = ((i + d) << SHIFT) | ((long) MAX_ADS * i + j);
                }
            }
        }
        Arrays.sort(clicks, 0, count);
        final Merger merger = new Merger(sink);
        int c = 0;
        for (int i = 0; i < n; i++)
        {
            while (c < count && (clicks[c] >>> SHIFT) < i)
            {
                merger.click(clicks[c], c);
                c++;
            }
            merger.emit(WorkloadSink.LEFT, i, i, i);
        }
        while (c < count)
        {
            merger.click(clicks[c], c);
            c++;
        }
        sink.end();
    }

    /**
     * W8-flat: {@code tape}'s events with each show replaced by one left row per ad ({@code key} the ad's id,
     * {@code ts} the show's, {@code f1 = 8 i + j}), watermarks where they were.
     *
     * @param tape W8's events (or a prefix)
     * @param sink receives the flattened events
     */
    public static void flatten(final EventTape tape, final WorkloadSink sink)
    {
        for (int i = 0, n = tape.size(); i < n; i++)
        {
            final byte type = tape.type(i);
            if (type == EventTape.TYPE_LEFT)
            {
                final long show = tape.f1(i);
                for (int j = 0, k = ads(show); j < k; j++)
                {
                    sink.row(WorkloadSink.LEFT, ad(show, j), tape.ts(i), MAX_ADS * show + j);
                }
            }
            else if (type == EventTape.TYPE_RIGHT)
            {
                sink.row(WorkloadSink.RIGHT, tape.key(i), tape.ts(i), tape.f1(i));
            }
            else if (type == EventTape.TYPE_WATERMARK)
            {
                sink.watermark(tape.ts(i));
            }
            else
            {
                sink.end();
            }
        }
    }

    /**
     * @param type inner or left
     * @return W8's join: shows, their ads unnested as {@code ad}, joined to clicks on the ad within
     *         {@value #INTERVAL_MS} ms either way
     */
    public static JoinSpec spec(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.INTERVAL, type).schemas(SHOWS, CLICKS).leftKey("ad").rightKey("ad")
            .interval(IntervalBounds.inclusive(-INTERVAL_MS, INTERVAL_MS))
            .leftExpand(Expansion.unnest("ads", "ad"))
            .build();
    }

    /**
     * @param type inner or left
     * @return W8-flat's join: the same join over the shows pre-expanded, without the expansion
     */
    public static JoinSpec flatSpec(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.INTERVAL, type).schemas(FLAT_SHOWS, CLICKS).leftKey("ad").rightKey("ad")
            .interval(IntervalBounds.inclusive(-INTERVAL_MS, INTERVAL_MS))
            .build();
    }

    /**
     * Encodes one event of a W8 or W8-flat tape as the join's row.
     *
     * @param writer the writer to use
     * @param buffer where to write
     * @param offset where the row starts
     * @param capacity the room there
     * @param flat whether the tape is W8-flat's
     * @param type {@link EventTape#TYPE_LEFT} or {@link EventTape#TYPE_RIGHT}
     * @param key the tape row's key
     * @param f1 the tape row's f1
     * @param ts the tape row's time
     * @return the row's length
     */
    static int encode(final RowWriter writer, final MutableDirectBuffer buffer, final int offset, final int capacity,
        final boolean flat, final byte type, final long key, final long f1, final long ts)
    {
        if (type == EventTape.TYPE_RIGHT)
        {
            return writer.wrap(buffer, offset, capacity, CLICKS.size()).putLong(0, key).putLong(1, ts).putLong(2, f1).finish();
        }
        final long show = flat ? f1 / MAX_ADS : f1;
        writer.wrap(buffer, offset, capacity, flat ? FLAT_SHOWS.size() : SHOWS.size()).putLong(0, show).putLong(1, ts).beginArray(2);
        for (int j = 0, k = ads(show); j < k; j++)
        {
            writer.elementLong(ad(show, j));
        }
        writer.endArray();
        if (flat)
        {
            writer.putLong(3, key);
        }
        return writer.finish();
    }

    /**
     * The counting model: W8's join emits, inner, one row per click (each meets exactly its own ad's
     * show); left, one row per ad (with its click, or padded when the watermark closes it), for any prefix
     * of the events as well, since a click never precedes its show.
     */
    public static final class Counts implements WorkloadSink
    {
        private long shows;
        private long ads;
        private long clicks;

        @Override
        public void row(final int side, final long key, final long ts, final long f1)
        {
            if (side == LEFT)
            {
                shows++;
                ads += W8.ads(f1);
            }
            else
            {
                clicks++;
            }
        }

        @Override
        public void watermark(final long watermark)
        {
        }

        @Override
        public void end()
        {
        }

        /** @return the shows */
        public long shows()
        {
            return shows;
        }

        /** @return their ads: the rows the expansion makes, and the left join's output rows */
        public long ads()
        {
            return ads;
        }

        /** @return the clicks: the inner join's output rows */
        public long clicks()
        {
            return clicks;
        }
    }

    /** Emits merged events and applies W1's watermark rule. */
    private static final class Merger
    {
        private final WorkloadSink sink;
        private long events;
        private long maxTs = Long.MIN_VALUE;
        private long lastWatermark = Long.MIN_VALUE;

        Merger(final WorkloadSink sink)
        {
            this.sink = sink;
        }

        void click(final long packed, final int rank)
        {
            final long slotOfAll = packed & ((1L << SHIFT) - 1);
            emit(WorkloadSink.RIGHT, ad(slotOfAll / MAX_ADS, (int) (slotOfAll % MAX_ADS)), packed >>> SHIFT, rank);
        }

        void emit(final int side, final long key, final long ts, final long f1)
        {
            sink.row(side, key, ts, f1);
            if (ts > maxTs)
            {
                maxTs = ts;
            }
            if (++events % Workloads.W1_WATERMARK_EVERY == 0)
            {
                final long w = maxTs - Workloads.W1_WATERMARK_LAG_MS;
                if (w > lastWatermark)
                {
                    lastWatermark = w;
                    sink.watermark(w);
                }
            }
        }
    }
}
