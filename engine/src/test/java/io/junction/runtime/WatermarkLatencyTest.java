package io.junction.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.metrics.PartitionSnapshot;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The latency of results that watermark work emitted is recorded apart ({@link JoinEngine#sampleWatermarkLatency}):
 * a pair emitted at its row's arrival is not among them; a padded row a watermark closes, or the end of input, is.
 */
final class WatermarkLatencyTest
{
    private static final Schema SCHEMA = Schema.of("id", "ts");

    @Test
    void countsTheResultsOfWatermarkWorkApartFromThoseOfTheirOwnRow()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA).leftKey("id").rightKey("id")
            .interval(IntervalBounds.inclusive(0, 100)).build();
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2).withRecordLatency(true))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            final Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 0L), 0, 0);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "ts", 50L), 50, 1);    // a pair, at its own row
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 2L, "ts", 10L), 10, 2);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 3L, "ts", 20L), 20, 3);
            p.watermark(1_000, 4);                                                             // pads ids 2 and 3
            awaitResults(engine, 3);
            final Histogram all = engine.sampleLatency();
            final Histogram byWatermarks = engine.sampleWatermarkLatency();
            assertEquals(3, all.getTotalCount(), "every result is timed");
            assertEquals(2, byWatermarks.getTotalCount(), "the two padded rows the watermark closed");
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 4L, "ts", 2_000L), 2_000, 5);
            p.endOfInput(6);                                                                   // pads id 4
            awaitResults(engine, 4);
            assertEquals(1, engine.sampleLatency().getTotalCount());
            assertEquals(1, engine.sampleWatermarkLatency().getTotalCount(), "the end of input's padded row");
        }
    }

    private static void awaitResults(final JoinEngine engine, final long expected)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true)
        {
            long out = 0;
            for (final PartitionSnapshot s : engine.metrics())
            {
                out += s.rowsOut;
            }
            if (out >= expected)
            {
                return;
            }
            if (System.nanoTime() - deadline > 0)
            {
                fail("results " + out + ", expected " + expected);
            }
            Thread.onSpinWait();
        }
    }
}
