package io.junction.tools.perf;

import io.junction.metrics.PartitionSnapshot;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.FieldFilter;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.join.StateConfig;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.workload.NexmarkGenerator;
import io.junction.tools.workload.NexmarkSink;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * The Nexmark join queries (NEXMARK.md) through the engine, on events of our seeded Nexmark
 * generator, pre-encoded into a {@link RowTape} before timing starts.
 * <ul>
 *   <li>q3: auctions of category 10 (left, pre-join filter) joined with their seller among persons of
 *       OR, ID or CA (right): {@code auction.seller = person.id}, a regular inner join. Both filters are
 *       the join's own pre-join filters ({@code state IN (OR, ID, CA)} an IN list), so every person is
 *       published.</li>
 *   <li>q8: persons (left) and auctions (right) in the same 10 s tumbling window,
 *       {@code person.id = auction.seller}: a window inner join (Nexmark's query first deduplicates each
 *       side per window; the join itself is this).</li>
 *   <li>q20: bids (left) joined with their auction (right, category 10 only): {@code bid.auction = auction.id},
 *       a regular inner join; bids are 92% of the events and all of them stay in state.</li>
 * </ul>
 * Events not read by a query (bids in q3 and q8, persons in q20) are not published.
 */
public final class NexmarkRun
{
    /** The queries supported. */
    public enum Query
    {
        Q3,
        Q8,
        Q20
    }

    static final Schema PERSON = Schema.of("id", "name", "emailAddress", "creditCard", "city", "state", "dateTime", "extra");
    static final Schema AUCTION = Schema.of("id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires",
        "seller", "category", "extra");
    static final Schema BID = Schema.of("auction", "bidder", "price", "channel", "url", "dateTime", "extra");

    private NexmarkRun()
    {
    }

    /** @return the join of a query. */
    public static JoinSpec spec(final Query query)
    {
        switch (query)
        {
            case Q3:
                return JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(AUCTION, PERSON)
                    .leftKey("seller").rightKey("id").leftFilter("category", CompareOp.EQ, Literal.of(10))
                    .rightFilter(FieldFilter.in("state", Literal.of("OR"), Literal.of("ID"), Literal.of("CA"))).build();
            case Q8:
                return JoinSpec.builder(JoinKind.WINDOW, JoinType.INNER).schemas(PERSON, AUCTION)
                    .leftKey("id").rightKey("seller").window(WindowSpec.tumbling(10_000, 0)).build();
            default:
                return JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(BID, AUCTION)
                    .leftKey("auction").rightKey("id").rightFilter("category", CompareOp.EQ, Literal.of(10)).build();
        }
    }

    /** Generates {@code events} Nexmark events and encodes what the query reads. */
    public static RowTape generate(final Query query, final long events, final long seed)
    {
        final RowTape tape = new RowTape();
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        final RowWriter writer = new RowWriter();
        final RowView view = new RowView();
        final NexmarkGenerator generator = new NexmarkGenerator(seed);
        generator.generate(events, new NexmarkSink()
        {
            @Override
            public void person(final long id, final CharSequence name, final CharSequence emailAddress,
                final CharSequence creditCard, final CharSequence city, final CharSequence state, final long dateTime,
                final CharSequence extra)
            {
                if (query == Query.Q20)
                {
                    return;
                }
                writer.wrap(buffer, 0, buffer.capacity(), 8).putLong(0, id).putAscii(1, name).putAscii(2, emailAddress)
                    .putAscii(3, creditCard).putAscii(4, city).putAscii(5, state).putLong(6, dateTime).putAscii(7, extra);
                tape.row(query == Query.Q3 ? RowTape.RIGHT : RowTape.LEFT, dateTime, view.wrap(buffer, 0, writer.finish()));
            }

            @Override
            public void auction(final long id, final CharSequence itemName, final CharSequence description,
                final long initialBid, final long reserve, final long dateTime, final long expires, final long seller,
                final long category, final CharSequence extra)
            {
                writer.wrap(buffer, 0, buffer.capacity(), 10).putLong(0, id).putAscii(1, itemName).putAscii(2, description)
                    .putLong(3, initialBid).putLong(4, reserve).putLong(5, dateTime).putLong(6, expires).putLong(7, seller)
                    .putLong(8, category).putAscii(9, extra);
                tape.row(query == Query.Q3 ? RowTape.LEFT : RowTape.RIGHT, dateTime, view.wrap(buffer, 0, writer.finish()));
            }

            @Override
            public void bid(final long auction, final long bidder, final long price, final CharSequence channel,
                final CharSequence url, final long dateTime, final CharSequence extra)
            {
                if (query != Query.Q20)
                {
                    return;
                }
                writer.wrap(buffer, 0, buffer.capacity(), 7).putLong(0, auction).putLong(1, bidder).putLong(2, price)
                    .putAscii(3, channel).putAscii(4, url).putLong(5, dateTime).putAscii(6, extra);
                tape.row(RowTape.LEFT, dateTime, view.wrap(buffer, 0, writer.finish()));
            }

            @Override
            public void watermark(final long watermark)
            {
                tape.watermark(watermark);
            }
        });
        return tape;
    }

    /** Runs a query's tape at max rate; prints and returns a one-line summary. */
    public static String run(final Query query, final RowTape tape, final long generatedEvents, final int partitions,
        final WaitStrategyKind waitStrategy)
    {
        final long[] outputs = new long[partitions];
        final JoinEngine engine = JoinEngine.builder(spec(query))
            .config(EngineConfig.defaults().withPartitions(partitions).withWaitStrategy(waitStrategy).withSlotCapacity(2048)
                .withState(StateConfig.fromSystemProperties().withMaxKeys(Math.max(1 << 16, tape.rows() / partitions + 4096))))
            .resultHandlers(p -> (kind, left, right, ts, step) -> outputs[p]++)
            .start();
        final Publisher publisher = engine.publisher();
        final long start = System.nanoTime();
        try
        {
            tape.replay(new RowTape.Visitor()
            {
                @Override
                public void onRow(final byte side, final long ts, final RowView row, final long index)
                {
                    publisher.publish(side == RowTape.LEFT ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT,
                        row.buffer(), row.offset(), row.length(), ts, index, System.nanoTime());
                }

                @Override
                public void onWatermark(final long watermark, final long index)
                {
                    publisher.watermark(watermark, index);
                }
            });
            publisher.endOfInput(tape.entries());
        }
        finally
        {
            engine.close();
        }
        final double seconds = (System.nanoTime() - start) / 1e9;
        final Histogram latency = engine.sampleLatency();
        long out = 0;
        for (final long o : outputs)
        {
            out += o;
        }
        long live = 0;
        long bytes = 0;
        for (final PartitionSnapshot s : engine.metrics())
        {
            live += s.liveLeft + s.liveRight;
            bytes += s.stateBytes;
        }
        return String.format(Locale.ROOT,
            "nexmark %s p=%d: %,d generated events, %,d published rows in %.2f s: %,.0f generated events/s, %,.0f rows/s; " +
                "%,d results; latency p50 %.1f us p99 %.1f us p99.9 %.1f us max %.1f us; live rows %,d, state %.1f MiB",
            query.name().toLowerCase(Locale.ROOT), partitions, generatedEvents, tape.rows(), seconds, generatedEvents / seconds,
            tape.rows() / seconds, out, latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3,
            latency.getValueAtPercentile(99.9) / 1e3, Math.min(latency.getMaxValue(), LatencyRecorder.HIGHEST_TRACKABLE_NANOS) / 1e3,
            live, bytes / 1048576.0);
    }
}
