package io.junction.micrometer;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.metrics.PartitionSnapshot;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.DeadLetterReason;
import java.util.Collection;

/** {@link JunctionMetrics} on a {@link SimpleMeterRegistry}: the meters read what the engine's metrics say. */
class JunctionMetricsTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");

    @Test
    void shouldExposeEveryPartitionsCountersLevelsDeadLettersAndLatency()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-10, 10)).build();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final List<PartitionSnapshot> metrics;
        final long refused;
        final JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start();
        try
        {
            new JunctionMetrics(engine, Tags.of("join", "test")).bindTo(registry);
            final Publisher publisher = engine.publisher();
            long step = 0;
            for (long k = 0; k < 20; k++)
            {
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", k, "v", 1L), 100, step++));
                if (k % 2 == 0)
                {
                    publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("k", k, "v", 2L), 105, step++);
                }
            }
            publisher.watermark(1_000, step++);
            publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", 99L, "v", 1L), 10, step++); // late
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            final int length = new RowWriter().wrap(buffer, 0, 64, 5).putLong(0, 1).finish();
            assertEquals(Publisher.SCHEMA_MISMATCH,                                                  // 5 slots, 2 fields: refused
                publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 2_000, step++, 0));
            publisher.endOfInput(step);
        }
        finally
        {
            engine.close(); // drains: the metrics below are final
        }
        metrics = engine.metrics();
        refused = engine.refusedRows();

        assertEquals(1, refused);
        assertEquals(1.0, registry.get("junction.engine.refused.rows").tag("join", "test").functionCounter().count());
        // every right row joined the one left row of its key, published before it: the largest fan-out is 1
        assertEquals(1, metrics.stream().mapToLong(s -> s.maxFanOut).max().orElse(0));
        double rowsIn = 0;
        double rowsOut = 0;
        double late = 0;
        for (final PartitionSnapshot snapshot : metrics)
        {
            final String p = Integer.toString(snapshot.partition);
            final double in = registry.get("junction.partition.rows.in").tags("partition", p, "join", "test").functionCounter().count();
            assertEquals(snapshot.rowsIn, (long)in, "partition " + p);
            rowsIn += in;
            rowsOut += registry.get("junction.partition.rows.out").tag("partition", p).functionCounter().count();
            late += registry.get("junction.partition.dead.letters").tags("partition", p, "reason", "late").functionCounter().count();
            assertEquals(snapshot.ringCapacity, (long)registry.get("junction.partition.ring.capacity").tag("partition", p).gauge().value());
            assertEquals(0.0, registry.get("junction.partition.failed").tag("partition", p).gauge().value());
            assertEquals(snapshot.maxFanOut, (long)registry.get("junction.partition.fanout.max").tag("partition", p).gauge().value());
            assertEquals(snapshot.liveLeft,
                (long)registry.get("junction.partition.live.rows").tags("partition", p, "side", "left").gauge().value());
        }
        assertEquals(31, (long)rowsIn, "20 left and 10 right rows, one late");
        assertEquals(20, (long)rowsOut, "10 pairs and 10 padded shows");
        assertEquals(1, (long)late);

        // the latency gauges: one per percentile and partition, in the registry's base unit
        final Collection<Meter> latency = registry.find("junction.partition.latency").meters();
        assertEquals(2 * 4, latency.size(), "p50, p99, p99.9 and max for each of 2 partitions");
        final double max = registry.get("junction.partition.latency").tags("partition", "0", "percentile", "max").timeGauge()
            .value(TimeUnit.NANOSECONDS);
        assertTrue(max >= 0, "a latency: " + max);
        assertTrue(registry.find("junction.partition.dead.letters").meters().size() == 2 * DeadLetterReason.values().length,
            "every reason of every partition");
    }

    /**
     * The binder is bound in one line and dropped (the Javadoc's usage): the registry must keep it live through
     * garbage collections. Micrometer holds a meter's object weakly by default; without a strong path every meter
     * read NaN after a collection (CI saw rows.in 0 for 19).
     */
    @Test
    void shouldKeepMetersLiveAfterTheBinderIsDroppedAndCollected()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-10, 10)).build();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start();
        try
        {
            new JunctionMetrics(engine).bindTo(registry);
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", 1L, "v", 1L), 100, 0));
            publisher.endOfInput(1);
        }
        finally
        {
            engine.close();
        }
        final WeakReference<Object> probe = new WeakReference<>(new Object());
        while (probe.get() != null)
        {
            System.gc(); // a full collection has run once the probe is cleared
        }
        assertEquals(1.0, registry.get("junction.partition.rows.in").tag("partition", "0").functionCounter().count());
        assertTrue(registry.get("junction.partition.ring.capacity").tag("partition", "0").gauge().value() > 0);
        assertEquals(0.0, registry.get("junction.engine.refused.rows").functionCounter().count());
        assertTrue(registry.get("junction.partition.latency").tags("partition", "0", "percentile", "max").timeGauge()
            .value(TimeUnit.NANOSECONDS) >= 0);
    }

    /** The percentile tag is the exact decimal ("0.999"), never a double's rounding artefact. */
    @Test
    void shouldTagEachLatencyPercentileExactly()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").build();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            new JunctionMetrics(engine, Tags.empty()).bindTo(registry);
            final Set<String> tags = new TreeSet<>();
            for (final Meter meter : registry.find("junction.partition.latency").meters())
            {
                tags.add(meter.getId().getTag("percentile"));
            }
            assertEquals(Set.of("0.5", "0.99", "0.999", "max"), tags);
        }
    }

    /**
     * The two state byte gauges measure different things, as docs/OPERATIONS.md says: {@code state.bytes} what the
     * state has taken from the OS now, {@code state.bytes.counted} what the byte limit counts (live records plus the
     * key index at its full capacity, counted from the first row). So for one row the counted bytes exceed the taken
     * ones, and stay under the limit; the live bytes are part of the counted.
     */
    @Test
    void shouldCountTheKeyIndexAtCapacityAgainstTheLimitNotAsBytesTaken()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").build();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler((kind, left, right, ts, step) -> { }).start();
        final long limit = engine.config().state().maxStateBytes();
        try
        {
            new JunctionMetrics(engine, Tags.empty()).bindTo(registry);
            assertEquals(Publisher.PUBLISHED, engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", 1L, "v", 1L), 1, 0));
            engine.publisher().endOfInput(1);
        }
        finally
        {
            engine.close(); // drains: the metrics below are final
        }
        final PartitionSnapshot snapshot = engine.metrics().get(0);
        assertEquals(1, snapshot.liveLeft);
        final double taken = registry.get("junction.partition.state.bytes").gauge().value();
        final double counted = registry.get("junction.partition.state.bytes.counted").gauge().value();
        final double live = registry.get("junction.partition.state.bytes.live").gauge().value();
        assertEquals(snapshot.stateBytes, (long)taken);
        assertEquals(snapshot.usedStateBytes, (long)counted);
        assertEquals(snapshot.liveStateBytes, (long)live);
        assertTrue(counted > taken, "one row: the index at capacity is counted, not yet taken: " + counted + " > " + taken);
        assertTrue(live > 0 && live <= counted, live + " <= " + counted);
        assertTrue(counted <= limit, counted + " <= " + limit);
        assertTrue(registry.find("junction.partition.state.bytes.used").meters().isEmpty(), "no gauge named as if part of state.bytes");
    }
}
