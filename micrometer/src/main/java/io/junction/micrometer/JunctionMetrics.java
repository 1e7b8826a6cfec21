package io.junction.micrometer;

import io.junction.api.DeadLetterReason;
import io.junction.metrics.PartitionSnapshot;
import io.junction.runtime.JoinEngine;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.HdrHistogram.Histogram;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * A Micrometer {@link MeterBinder} over one {@link JoinEngine}: every partition metric of
 * {@link PartitionSnapshot} (counters as {@link FunctionCounter}s, levels as {@link Gauge}s, each tagged
 * {@code partition}), dead letters by reason (tag {@code reason}, the {@link DeadLetterReason} name in
 * lower case), the engine's refused rows, and the ingest-to-emit latency percentiles of each partition
 * ({@link TimeGauge}s tagged {@code percentile}: 0.5, 0.99, 0.999 and max, over the results since the
 * previous scrape).
 *
 * <pre>{@code
 * new JunctionMetrics(engine, Tags.of("join", "orders")).bindTo(registry);
 * }</pre>
 *
 * <p>Reading: the meters read {@link JoinEngine#metrics()}, taken at most once per scrape (a snapshot
 * younger than {@link #SNAPSHOT_MAX_AGE_NANOS} is reused), never on the partition threads. The latency
 * gauges take over {@link JoinEngine#sampleLatency(int)}: bind at most one {@code JunctionMetrics} per
 * engine, and do not sample the engine's latency elsewhere, or each sees only part of the results.
 *
 * <p>Meter names: {@code junction.partition.*} ({@code rows.in}, {@code rows.out}, {@code late},
 * {@code bad.inputs}, {@code expired}, {@code handler.errors}, {@code events}, {@code hash.collisions},
 * {@code user.code.failures}, {@code watermark.slices}, {@code checkpoints}, {@code checkpoint.failures},
 * {@code checkpoint.side.waits}, {@code checkpoint.synchronous.fallbacks}, {@code dead.letters} (tag
 * {@code reason}) counters; {@code live.rows} (tag {@code side}), {@code state.bytes} (off-heap bytes taken from
 * the OS), {@code state.bytes.counted} (what the byte limit counts: live records plus the key index at its
 * capacity, which a young index has not taken yet, so it can exceed {@code state.bytes}: alert on it against
 * {@code junction.state.maxBytes}, never against {@code state.bytes}), {@code state.bytes.live},
 * {@code pending.timers}, {@code ring.occupancy}, {@code ring.capacity}, {@code watermark}, {@code failed},
 * {@code fanout.max} gauges; {@code checkpoint.pause.last}, {@code checkpoint.pause.max},
 * {@code watermark.slice.max} and {@code latency} (tag {@code percentile}) time gauges), and
 * {@code junction.engine.refused.rows}.
 *
 * <p>Lifetime: the registry holds the binder strongly (gauges by {@code strongReference}, counters through
 * their function, since a {@code FunctionCounter} has no such option), so the one-line binding above stays
 * live after the caller drops the binder: Micrometer's default weak reference would let a garbage
 * collection turn every meter into NaN.
 *
 * <p>Thread safe: scrapes may come from any thread.
 */
public final class JunctionMetrics implements MeterBinder
{
    /** A snapshot of the engine's metrics younger than this is reused by the meters of one scrape. */
    public static final long SNAPSHOT_MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The latency percentiles, as HdrHistogram takes them. */
    private static final double[] PERCENTILES = {50, 99, 99.9};
    /**
     * The {@code percentile} tag of each, written out: {@code Double.toString(99.9 / 100)} would be
     * {@code 0.9990000000000001}, a tag no query would spell.
     */
    private static final String[] PERCENTILE_TAGS = {"0.5", "0.99", "0.999"};

    private final JoinEngine engine;
    private final Tags tags;
    private List<PartitionSnapshot> snapshots;
    private long snapshotNanos;
    private final Histogram[] latency;
    private final long[] latencyNanos;

    /**
     * @param engine the engine to observe.
     * @param tags   tags on every meter (for example the join's name).
     */
    public JunctionMetrics(final JoinEngine engine, final Iterable<Tag> tags)
    {
        this.engine = engine;
        this.tags = Tags.of(tags);
        final int partitions = engine.config().partitions();
        this.latency = new Histogram[partitions];
        this.latencyNanos = new long[partitions];
    }

    /** @param engine the engine to observe, with no extra tags. */
    public JunctionMetrics(final JoinEngine engine)
    {
        this(engine, Tags.empty());
    }

    @Override
    public void bindTo(final MeterRegistry registry)
    {
        FunctionCounter.builder("junction.engine.refused.rows", this, m -> engine.refusedRows())
            .description("rows publishers refused at the door (too large, malformed, not fitting the schema)")
            .tags(tags).register(registry);
        FunctionCounter.builder("junction.engine.expansion.inputs", this, m -> engine.expansions().inputs())
            .description("input rows expanded before the join (array unnest, split, table functions) and routed")
            .tags(tags).register(registry);
        FunctionCounter.builder("junction.engine.expansion.rows", this, m -> engine.expansions().rows())
            .description("rows the expanded input rows made")
            .tags(tags).register(registry);
        FunctionCounter.builder("junction.engine.expansion.failed", this, m -> engine.expansions().failed())
            .description("input rows refused because their expansion failed (dead letters expansion_failed)")
            .tags(tags).register(registry);
        final int partitions = engine.config().partitions();
        for (int p = 0; p < partitions; p++)
        {
            final int partition = p;
            final Tags t = tags.and("partition", Integer.toString(p));
            counter(registry, "rows.in", "input rows received, both sides", t, partition, s -> s.rowsIn);
            counter(registry, "rows.out", "output rows emitted", t, partition, s -> s.rowsOut);
            counter(registry, "late", "rows dead-lettered as late", t, partition, s -> s.lateRows);
            counter(registry, "bad.inputs", "rows dead-lettered as bad input", t, partition, s -> s.badInputs);
            counter(registry, "expired", "rows removed from state by expiry", t, partition, s -> s.expiredRows);
            counter(registry, "handler.errors", "exceptions thrown by result or dead-letter handlers", t, partition,
                s -> s.handlerErrors);
            counter(registry, "events", "ring events processed", t, partition, s -> s.events);
            counter(registry, "hash.collisions", "rows passed over for an equal key hash of another key", t, partition,
                s -> s.hashCollisions);
            counter(registry, "user.code.failures", "user filters, conditions and functions that threw", t, partition,
                s -> s.userCodeFailures);
            counter(registry, "watermark.slices", "slices of watermark work (expiry, outer padding)", t, partition,
                s -> s.watermarkSlices);
            counter(registry, "checkpoints", "checkpoints written", t, partition, s -> s.checkpoints);
            counter(registry, "checkpoint.failures", "checkpoints that failed", t, partition, s -> s.checkpointFailures);
            counter(registry, "checkpoint.side.waits", "writes that waited for the writer's capture of a frozen chunk", t,
                partition, s -> s.checkpointSideWaits);
            counter(registry, "checkpoint.synchronous.fallbacks", "checkpoints whose cut was refused and ran synchronously",
                t, partition, s -> s.checkpointSynchronousFallbacks);
            for (final DeadLetterReason reason : DeadLetterReason.values())
            {
                counter(registry, "dead.letters", "dead letters by reason", t.and("reason", reason.name().toLowerCase(Locale.ROOT)),
                    partition, s -> s.deadLetters(reason));
            }
            gauge(registry, "live.rows", "live rows in state", t.and("side", "left"), partition, s -> s.liveLeft);
            gauge(registry, "live.rows", "live rows in state", t.and("side", "right"), partition, s -> s.liveRight);
            // Named apart on purpose: the counted bytes are not a part of the taken ones (the key index is counted
            // at its capacity from the first row), so a used-versus-taken ratio would mislead.
            gauge(registry, "state.bytes", "off-heap bytes the partition's state has taken from the OS", t, partition,
                s -> s.stateBytes);
            gauge(registry, "state.bytes.counted", "bytes the state byte limit counts: live records plus the key index at its " +
                "capacity (can exceed state.bytes; compare with junction.state.maxBytes)", t, partition, s -> s.usedStateBytes);
            gauge(registry, "state.bytes.live", "bytes the live rows account for (at most state.bytes.counted)", t, partition,
                s -> s.liveStateBytes);
            gauge(registry, "pending.timers", "timers pending", t, partition, s -> s.pendingTimers);
            gauge(registry, "ring.occupancy", "ring slots in use", t, partition, s -> s.ringOccupancy);
            gauge(registry, "ring.capacity", "ring slots in all", t, partition, s -> s.ringCapacity);
            gauge(registry, "watermark", "the join's watermark, ms (NaN before both inputs have one)", t, partition,
                s -> s.watermark == Long.MIN_VALUE ? Double.NaN : s.watermark);
            gauge(registry, "failed", "1 when the partition's thread died", t, partition, s -> s.failed ? 1 : 0);
            gauge(registry, "fanout.max", "the largest fan-out of an inserted row: the stored rows it joins", t, partition,
                s -> s.maxFanOut);
            TimeGauge.builder("junction.partition.checkpoint.pause.last", this, TimeUnit.NANOSECONDS,
                m -> m.snapshot(partition).lastCheckpointPauseNanos).tags(t).strongReference(true).register(registry);
            TimeGauge.builder("junction.partition.checkpoint.pause.max", this, TimeUnit.NANOSECONDS,
                m -> m.snapshot(partition).maxCheckpointPauseNanos).tags(t).strongReference(true).register(registry);
            TimeGauge.builder("junction.partition.watermark.slice.max", this, TimeUnit.NANOSECONDS,
                m -> m.snapshot(partition).maxWatermarkSliceNanos)
                .description("the longest slice of watermark work: the most a watermark held the partition thread")
                .tags(t).strongReference(true).register(registry);
            for (int i = 0; i < PERCENTILES.length; i++)
            {
                final double percentile = PERCENTILES[i];
                TimeGauge.builder("junction.partition.latency", this, TimeUnit.NANOSECONDS,
                        m -> m.latency(partition).getValueAtPercentile(percentile))
                    .description("ingest-to-emit latency of the results since the previous scrape")
                    .tags(t.and("percentile", PERCENTILE_TAGS[i])).strongReference(true).register(registry);
            }
            TimeGauge.builder("junction.partition.latency", this, TimeUnit.NANOSECONDS, m -> m.latency(partition).getMaxValue())
                .description("ingest-to-emit latency of the results since the previous scrape")
                .tags(t.and("percentile", "max")).strongReference(true).register(registry);
        }
    }

    private void counter(final MeterRegistry registry, final String name, final String description, final Tags t,
        final int partition, final ToDoubleFunction<PartitionSnapshot> value)
    {
        FunctionCounter.builder("junction.partition." + name, this, m -> value.applyAsDouble(snapshot(partition)))
            .description(description).tags(t).register(registry);
    }

    private void gauge(final MeterRegistry registry, final String name, final String description, final Tags t,
        final int partition, final ToDoubleFunction<PartitionSnapshot> value)
    {
        Gauge.builder("junction.partition." + name, this, m -> value.applyAsDouble(m.snapshot(partition)))
            .description(description).tags(t).strongReference(true).register(registry);
    }

    private synchronized PartitionSnapshot snapshot(final int partition)
    {
        final long now = System.nanoTime();
        if (snapshots == null || now - snapshotNanos > SNAPSHOT_MAX_AGE_NANOS)
        {
            snapshots = engine.metrics();
            snapshotNanos = now;
        }
        return snapshots.get(partition);
    }

    /** @return the partition's latencies since the previous scrape: sampled once per scrape for all its gauges. */
    private synchronized Histogram latency(final int partition)
    {
        final long now = System.nanoTime();
        if (latency[partition] == null || now - latencyNanos[partition] > SNAPSHOT_MAX_AGE_NANOS)
        {
            latency[partition] = engine.sampleLatency(partition);
            latencyNanos[partition] = now;
        }
        return latency[partition];
    }
}
