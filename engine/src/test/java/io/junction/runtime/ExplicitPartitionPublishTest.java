package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.RowView;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishing to a named partition (a producer whose input is partitioned already, as a Kafka topic is):
 * rows land in the partition named, not the one their key hash picks; watermarks and idleness sent to
 * one partition move only that partition. An interval left join pads a left row that found no match
 * once the join's watermark passes it, which shows which partitions heard a watermark. No sleeps:
 * results are awaited with latches, and close() drains every ring before the assertions on what did
 * not happen.
 */
@Timeout(60)
class ExplicitPartitionPublishTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final int PARTITIONS = 4;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final RowWriter writer = new RowWriter();
    /** One line per result: "partition step left-k right-k-or-null". */
    private final ConcurrentLinkedQueue<String> out = new ConcurrentLinkedQueue<>();
    private volatile CountDownLatch expected = new CountDownLatch(0);

    private int row(final long k, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v);
        return writer.finish();
    }

    private JoinEngine start(final EngineConfig base)
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();
        final EngineConfig config = base.withPartitions(PARTITIONS).withRingSize(256)
            .withState(StateConfig.defaults().withMaxKeys(1024));
        return JoinEngine.builder(spec).config(config)
            .resultHandlers(p -> (kind, left, right, ts, step) ->
            {
                out.add(p + " " + step + " " + left.getLong(0) + " " + (right == null ? "null" : Long.toString(right.getLong(0))));
                expected.countDown();
            })
            .start();
    }

    private JoinEngine start()
    {
        return start(EngineConfig.defaults());
    }

    private List<String> fromPartition(final int partition)
    {
        final List<String> lines = new ArrayList<>();
        for (final String line : out)
        {
            if (line.startsWith(partition + " "))
            {
                lines.add(line);
            }
        }
        lines.sort(null);
        return lines;
    }

    private void await(final CountDownLatch latch) throws InterruptedException
    {
        assertTrue(latch.await(30, TimeUnit.SECONDS), "expected results did not arrive: " + out);
    }

    @Test
    void aRowGoesToThePartitionNamedNotTheOneItsKeyPicks() throws InterruptedException
    {
        final JoinEngine engine = start();
        final long seed = engine.config().state().hashSeed();
        final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final KeyExtractor extractor = CompiledJoin.of(engine.spec()).key(Side.LEFT);
        final RowView view = new RowView();
        // For each partition a key its hash sends elsewhere: the row can only be there because it was named.
        final long[] keys = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++)
        {
            long k = 1000L * (p + 1);
            while (true)
            {
                // The partition the publisher would pick by the key's hash.
                final int keyLength = extractor.extract(view.wrap(buffer, 0, row(k, 0)), key, 0, key.capacity());
                if (KeyHash.partition(KeyHash.hash(seed, key, 0, keyLength), PARTITIONS) != p)
                {
                    break;
                }
                k++;
            }
            keys[p] = k;
        }
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            expected = new CountDownLatch(PARTITIONS);
            for (int p = 0; p < PARTITIONS; p++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.publish(p, Side.LEFT, ChangeKind.INSERT, buffer, 0,
                    row(keys[p], 1), 100, 10 + p, System.nanoTime()));
                assertEquals(Publisher.PUBLISHED, publisher.tryPublish(p, Side.RIGHT, ChangeKind.INSERT, buffer, 0,
                    row(keys[p], 2), 101, 20 + p, System.nanoTime()));
            }
            await(expected);
        }
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertEquals(List.of(p + " " + (20 + p) + " " + keys[p] + " " + keys[p]), fromPartition(p),
                "the pair published to partition " + p + " joined there: " + out);
        }
        final List<PartitionSnapshot> metrics = engine.metrics();
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertEquals(1, metrics.get(p).liveLeft, "partition " + p + " holds the left row named to it");
            assertEquals(1, metrics.get(p).liveRight, "partition " + p + " holds the right row named to it");
        }
    }

    @Test
    void aPartitionOutOfRangeIsAnInvalidArgumentAndNothingIsSent()
    {
        final JoinEngine engine = start();
        final int length = row(1, 1);
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publish(-1, Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 1, 1, 0));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publish(PARTITIONS, Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 1, 2, 0));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.tryPublish(PARTITIONS, Side.RIGHT, ChangeKind.INSERT, buffer, 0, length, 1, 3, 0));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.tryPublish(Integer.MIN_VALUE, Side.RIGHT, ChangeKind.INSERT, buffer, 0, length, 1, 4, 0));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.watermark(PARTITIONS, Side.LEFT, 1000, 5));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.watermark(-1, Side.LEFT, 1000, 6));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.idle(PARTITIONS, Side.RIGHT, 7));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.idle(0, null, 8));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.watermark(0, null, 1000, 9));
            assertEquals(4, engine.refusedRows(), "every refused row counted");
        }
        for (final PartitionSnapshot p : engine.metrics())
        {
            assertEquals(0, p.events, "partition " + p + " got no event from a refused call");
        }
        assertEquals(List.of(), List.copyOf(out));
    }

    /** Left rows with keys p*100..p*100+9 at ts 0 in each partition p; the right input sends nothing. */
    private void leftRowsInEveryPartition(final Publisher publisher)
    {
        for (int p = 0; p < PARTITIONS; p++)
        {
            for (int i = 0; i < 10; i++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.publish(p, Side.LEFT, ChangeKind.INSERT, buffer, 0,
                    row(p * 100 + i, 0), 0, p * 100 + i, System.nanoTime()));
            }
        }
    }

    @Test
    void aWatermarkSentToOnePartitionClosesRowsInThatPartitionOnly() throws InterruptedException
    {
        final JoinEngine engine = start();
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            leftRowsInEveryPartition(publisher);
            expected = new CountDownLatch(10);
            assertEquals(Publisher.PUBLISHED, publisher.watermark(1, Side.LEFT, 1000, 500));
            assertEquals(Publisher.PUBLISHED, publisher.watermark(1, Side.RIGHT, 1000, 501));
            await(expected);
            // Partition 2 hears one input's watermark only: the other still holds its join back.
            assertEquals(Publisher.PUBLISHED, publisher.watermark(2, Side.LEFT, 1000, 502));
        }
        final List<String> padded = fromPartition(1);
        assertEquals(10, padded.size(), out.toString());
        for (final String line : padded)
        {
            assertTrue(line.startsWith("1 501 1") && line.endsWith(" null"), "padded at the watermark's step: " + line);
        }
        assertEquals(10, out.size(), "no other partition closed a row: " + out);
        final List<PartitionSnapshot> metrics = engine.metrics();
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertEquals(p == 1 ? 0 : 10, metrics.get(p).liveLeft, "partition " + p);
        }
    }

    @Test
    void anInputMarkedIdleInOnePartitionStopsHoldingBackThatPartitionOnlyUntilItsNextRow() throws InterruptedException
    {
        final JoinEngine engine = start();
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            leftRowsInEveryPartition(publisher);
            for (int p = 0; p < PARTITIONS; p++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.watermark(p, Side.LEFT, 1000, 400 + p));
            }
            expected = new CountDownLatch(10);
            assertEquals(Publisher.PUBLISHED, publisher.idle(2, Side.RIGHT, 600));
            await(expected);

            // The right input comes back in partition 2 with a row: it holds that partition's join back again,
            // so a left row at 2000 stays open however far the left watermark runs.
            assertEquals(Publisher.PUBLISHED, publisher.publish(2, Side.LEFT, ChangeKind.INSERT, buffer, 0,
                row(777, 0), 2000, 700, System.nanoTime()));
            assertEquals(Publisher.PUBLISHED, publisher.publish(2, Side.RIGHT, ChangeKind.INSERT, buffer, 0,
                row(888, 0), 1500, 701, System.nanoTime()));
            assertEquals(Publisher.PUBLISHED, publisher.watermark(2, Side.LEFT, 5000, 702));
        }
        final List<String> padded = fromPartition(2);
        assertEquals(10, padded.size(), "only the rows at ts 0, padded at the idle mark: " + out);
        for (final String line : padded)
        {
            assertTrue(line.startsWith("2 600 2") && line.endsWith(" null"), line);
        }
        assertEquals(10, out.size(), "no other partition closed a row: " + out);
        final List<PartitionSnapshot> metrics = engine.metrics();
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertEquals(p == 2 ? 1 : 10, metrics.get(p).liveLeft, "partition " + p);
        }
    }

    @Test
    void perPartitionCallsCannotBeMixedWithTheEngineWideIdleTimeoutOrGeneratedWatermarks()
    {
        final int length = row(1, 1);
        try (JoinEngine engine = start(EngineConfig.defaults().withIdleTimeout(Duration.ofSeconds(1))))
        {
            final Publisher publisher = engine.publisher();
            assertThrows(IllegalStateException.class, () -> publisher.watermark(0, Side.LEFT, 10, 1));
            assertThrows(IllegalStateException.class, () -> publisher.idle(0, Side.LEFT, 1));
            assertThrows(IllegalStateException.class,
                () -> publisher.publish(0, Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 1, 1, 0));
        }
        try (JoinEngine engine = start())
        {
            final Publisher generating = engine.publisher().generateWatermarks(0, 1, 1);
            assertThrows(IllegalStateException.class,
                () -> generating.tryPublish(1, Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 1, 1, 0));
        }
        try (JoinEngine engine = start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.idle(3, Side.LEFT, 1));
            assertThrows(IllegalStateException.class, () -> publisher.generateWatermarks(0, 1, 1));
            assertNotEquals(Publisher.PUBLISHED, publisher.watermark(PARTITIONS, Side.LEFT, 1, 2));
        }
    }

    @Test
    void namedPartitionRowsWatermarksAndIdleMarksAllocateNothingOnTheProducer()
    {
        final ThreadMXBean threads =
            (ThreadMXBean)ManagementFactory.getThreadMXBean();
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();
        final AtomicLong results = new AtomicLong();
        final JoinEngine engine = JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(PARTITIONS).withRingSize(4096)
                .withState(StateConfig.defaults().withMaxKeys(4096)))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .start();
        try (engine)
        {
            final Publisher publisher = engine.publisher();
            long ts = 0;
            long least = Long.MAX_VALUE;
            // The first windows warm the code up (and JIT compilation may allocate): the quietest one is asserted.
            for (int window = 0; window < 8; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                assertNotEquals(-1, before, "thread allocation measurement is off");
                for (int i = 0; i < 50_000; i++, ts++)
                {
                    final int partition = (int)(ts & (PARTITIONS - 1));
                    final int length = row(ts % 1000, ts);
                    assertEquals(Publisher.PUBLISHED, publisher.publish(partition, Side.LEFT, ChangeKind.INSERT, buffer, 0,
                        length, ts, ts, 0));
                    if ((ts & 63) == 63)
                    {
                        for (int p = 0; p < PARTITIONS; p++)
                        {
                            assertEquals(Publisher.PUBLISHED, publisher.watermark(p, Side.LEFT, ts - 10, ts));
                            assertEquals(Publisher.PUBLISHED, (ts & 1023) == 1023
                                ? publisher.idle(p, Side.RIGHT, ts) : publisher.watermark(p, Side.RIGHT, ts - 10, ts));
                        }
                    }
                }
                least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
            }
            assertTrue(least < 16 * 1024, "the producer allocated at least " + least + " bytes in each window of 50,000 rows");
        }
        assertTrue(results.get() > 300_000, "rows closed as the per-partition watermarks passed them: " + results.get());
    }
}
