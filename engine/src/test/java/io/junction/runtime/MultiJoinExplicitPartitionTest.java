package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.IntervalBounds;
import io.junction.join.StateConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A multi-way join (SEMANTICS 10) published to named partitions, as the Kafka runner does with N co-partitioned
 * topics: {@link Publisher#publishInput(int, int, ChangeKind, org.agrona.DirectBuffer, int, int, long, long, long)}
 * puts a row in the partition named, {@link Publisher#watermarkInput(int, int, long, long)} moves one input's
 * watermark in one partition only, and {@link Publisher#idleInput(int, int, long)} lets that partition's join
 * watermark pass an input that sends nothing. Payments expire after 10 ms of event time (their state TTL),
 * which shows which partitions' join watermark moved, and by which event (the outputs' step). close() drains
 * every ring before the assertions, so nothing sleeps.
 */
@Timeout(60)
class MultiJoinExplicitPartitionTest
{
    private static final Schema SCHEMA = Schema.of("k", "ts", "v");
    private static final int PARTITIONS = 3;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final RowWriter writer = new RowWriter();
    /** One line per result: "partition step op v0 v1 v2" ("-" for a padded input). */
    private final ConcurrentLinkedQueue<String> out = new ConcurrentLinkedQueue<>();

    private int row(final long k, final long ts, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 3).putLong(0, k).putLong(1, ts).putLong(2, v);
        return writer.finish();
    }

    private JoinEngine start()
    {
        final JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA)
            .input("orders", "k")
            .input("payments", JoinType.LEFT, "k")
            .input("shipments", JoinType.LEFT, "k")
            .stateTtl("payments", 10)
            .build());
        return JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(PARTITIONS).withRingSize(256)
                .withState(StateConfig.defaults().withMaxKeys(1024)))
            .resultHandlers(p -> new ResultHandler()
            {
                @Override
                public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long ts, final long step)
                {
                    throw new AssertionError("a multi-way join's results are multi results");
                }

                @Override
                public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long ts, final long step)
                {
                    final StringBuilder b = new StringBuilder().append(p).append(' ').append(step).append(' ')
                        .append(kind.shortString());
                    for (final RowView r : rows)
                    {
                        b.append(' ').append(r == null ? "-" : Long.toString(r.getLong(2)));
                    }
                    out.add(b.toString());
                }
            })
            .start();
    }

    private void publish(final Publisher publisher, final int partition, final int input, final long k, final long ts, final long v,
        final long step)
    {
        final int length = row(k, ts, v);
        assertEquals(Publisher.PUBLISHED,
            publisher.publishInput(partition, input, ChangeKind.INSERT, buffer, 0, length, ts, step, System.nanoTime()));
    }

    private List<String> of(final int partition)
    {
        final List<String> lines = new ArrayList<>();
        for (final String line : out)
        {
            if (line.startsWith(partition + " "))
            {
                lines.add(line);
            }
        }
        return lines;
    }

    @Test
    void rowsWatermarksAndIdlenessGoToThePartitionNamed()
    {
        try (JoinEngine engine = start())
        {
            final Publisher publisher = engine.publisher();
            // The same key in every partition: only naming them puts it in more than one.
            for (int p = 0; p < PARTITIONS; p++)
            {
                publish(publisher, p, 0, 7, 0, 100 + p, 10 * p + 1);
                publish(publisher, p, 1, 7, 0, 200 + p, 10 * p + 2);
            }
            // Partition 0: every input's watermark passes the payment's TTL; it expires with the last watermark's step.
            assertEquals(Publisher.PUBLISHED, publisher.watermarkInput(0, 0, 100, 101));
            assertEquals(Publisher.PUBLISHED, publisher.watermarkInput(0, 1, 100, 102));
            assertEquals(Publisher.PUBLISHED, publisher.watermarkInput(0, 2, 100, 103));
            // Partition 1: the shipments input sends no watermark; marked idle, it stops holding the join back.
            assertEquals(Publisher.PUBLISHED, publisher.watermarkInput(1, 0, 100, 111));
            assertEquals(Publisher.PUBLISHED, publisher.watermarkInput(1, 1, 100, 112));
            assertEquals(Publisher.PUBLISHED, publisher.idleInput(1, 2, 113));
            // Partition 2: two of three inputs' watermarks, the third active: nothing expires.
            assertEquals(Publisher.PUBLISHED, publisher.watermarkInput(2, 0, 100, 121));
            assertEquals(Publisher.PUBLISHED, publisher.watermarkInput(2, 1, 100, 122));

            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publishInput(PARTITIONS, 0, ChangeKind.INSERT, buffer, 0,
                row(7, 0, 0), 0, 200, System.nanoTime()));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publishInput(-1, 0, ChangeKind.INSERT, buffer, 0,
                row(7, 0, 0), 0, 200, System.nanoTime()));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.watermarkInput(0, 3, 100, 201));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.idleInput(PARTITIONS, 0, 202));
        }
        assertEquals(List.of("0 1 +I 100 - -", "0 2 +I 100 200 -", "0 2 -D 100 - -", "0 103 -D 100 200 -", "0 103 +I 100 - -"),
            of(0));
        assertEquals(List.of("1 11 +I 101 - -", "1 12 +I 101 201 -", "1 12 -D 101 - -", "1 113 -D 101 201 -", "1 113 +I 101 - -"),
            of(1));
        assertEquals(List.of("2 21 +I 102 - -", "2 22 +I 102 202 -", "2 22 -D 102 - -"), of(2));
    }

    @Test
    void theInputIndexedCallsAreRefusedByATwoInputJoin()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-5, 5)).build();
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2).withRingSize(64)
            .withState(StateConfig.defaults().withMaxKeys(1024))).resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.watermarkInput(0, 0, 100, 1));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.idleInput(0, 0, 2));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publishInput(0, 0, ChangeKind.INSERT, buffer, 0, row(1, 0, 0), 0, 3,
                System.nanoTime()));
        }
    }
}
