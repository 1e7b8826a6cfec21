package io.junction.micrometer;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.metrics.PartitionSnapshot;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static java.util.Map.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every figure of a {@link PartitionSnapshot} is a {@code junction.partition.*} meter of {@link JunctionMetrics}, or
 * is named here as one the binding leaves out, and every such meter is a figure's (or the dead letters' or the
 * latency's): a new counter cannot be added to the snapshot and forgotten here.
 */
class JunctionMetricsCoverageTest
{
    /** Each figure's meter, after {@code junction.partition.}. */
    private static final Map<String, String> METER = Map.ofEntries(
        entry("rowsIn", "rows.in"), entry("rowsOut", "rows.out"), entry("lateRows", "late"), entry("badInputs", "bad.inputs"),
        entry("expiredRows", "expired"), entry("handlerErrors", "handler.errors"), entry("events", "events"),
        entry("hashCollisions", "hash.collisions"), entry("userCodeFailures", "user.code.failures"),
        entry("watermarkSlices", "watermark.slices"), entry("checkpoints", "checkpoints"),
        entry("checkpointFailures", "checkpoint.failures"), entry("checkpointSideWaits", "checkpoint.side.waits"),
        entry("checkpointSynchronousFallbacks", "checkpoint.synchronous.fallbacks"), entry("liveLeft", "live.rows"),
        entry("liveRight", "live.rows"), entry("stateBytes", "state.bytes"), entry("usedStateBytes", "state.bytes.counted"),
        entry("liveStateBytes", "state.bytes.live"), entry("pendingTimers", "pending.timers"),
        entry("ringOccupancy", "ring.occupancy"), entry("ringCapacity", "ring.capacity"), entry("watermark", "watermark"),
        entry("failed", "failed"), entry("maxFanOut", "fanout.max"), entry("lastCheckpointPauseNanos", "checkpoint.pause.last"),
        entry("maxCheckpointPauseNanos", "checkpoint.pause.max"), entry("maxWatermarkSliceNanos", "watermark.slice.max"));
    /** Figures without a meter: the partition is a tag, the rest are read through JMX or the snapshot only. */
    private static final Set<String> NOT_A_METER = Set.of("partition", "expiredLeft", "expiredRight", "evictedRows",
        "lastCheckpointBytesWritten", "lastCheckpointBytesLinked", "checkpointWaits", "lastCheckpointWriteNanos",
        "maxCheckpointWriteNanos", "lastCheckpointBytesStaged");
    /** Meters that are not one figure. */
    private static final Set<String> NOT_A_FIELD = Set.of("dead.letters", "latency");

    @Test
    void shouldRegisterAMeterForEverySnapshotFigureNotLeftOutByName()
    {
        final Set<String> fields = new TreeSet<>();
        for (final Field field : PartitionSnapshot.class.getFields())
        {
            if (!Modifier.isStatic(field.getModifiers()))
            {
                fields.add(field.getName());
            }
        }
        final Set<String> named = new TreeSet<>(METER.keySet());
        named.addAll(NOT_A_METER);
        assertEquals(fields, named, "PartitionSnapshot's figures: each needs a meter (METER) or a reason to have none");

        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(Schema.of("k"), Schema.of("k"))
            .leftKey("k").rightKey("k").build();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler((kind, left, right, ts, step) -> { }).start())
        {
            new JunctionMetrics(engine).bindTo(registry);
        }
        final Set<String> meters = new TreeSet<>();
        for (final Meter meter : registry.getMeters())
        {
            final String name = meter.getId().getName();
            if (name.startsWith("junction.partition."))
            {
                meters.add(name.substring("junction.partition.".length()));
            }
        }
        final Set<String> expected = new TreeSet<>(new HashSet<>(METER.values()));
        expected.addAll(NOT_A_FIELD);
        assertEquals(expected, meters, "JunctionMetrics' partition meters against the snapshot's figures");
    }
}
