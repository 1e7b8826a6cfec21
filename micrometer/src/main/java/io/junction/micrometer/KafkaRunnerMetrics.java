package io.junction.micrometer;

import io.junction.kafka.KafkaJoinRunner;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.function.ToDoubleFunction;

/**
 * A Micrometer {@link MeterBinder} over a {@link KafkaJoinRunner}'s own counters, as
 * {@link FunctionCounter}s: {@code junction.kafka.records.consumed}, {@code junction.kafka.outputs.produced},
 * {@code junction.kafka.dead.letters}, {@code junction.kafka.misrouted} (of the dead letters, the
 * {@code MISROUTED} ones), {@code junction.kafka.checkpoints}, {@code junction.kafka.commits}
 * and {@code junction.kafka.partitions.restored}. Bind it when the runner is built; its counters start at
 * zero and read the runner on each scrape. The runner's engine is bound with {@link JunctionMetrics}.
 * Needs {@code junction-kafka} on the class path (a {@code provided} dependency of this module).
 *
 * <p>Thread safe.
 */
public final class KafkaRunnerMetrics implements MeterBinder
{
    private final KafkaJoinRunner runner;
    private final Tags tags;

    /**
     * @param runner the group member to observe.
     * @param tags   tags on every meter.
     */
    public KafkaRunnerMetrics(final KafkaJoinRunner runner, final Iterable<Tag> tags)
    {
        this.runner = runner;
        this.tags = Tags.of(tags);
    }

    @Override
    public void bindTo(final MeterRegistry registry)
    {
        counter(registry, "records.consumed", "input records read and handled", KafkaJoinRunner::recordsConsumed);
        counter(registry, "outputs.produced", "output records the cluster acknowledged", KafkaJoinRunner::outputsProduced);
        counter(registry, "dead.letters", "records not decoded or refused, and rows the join did not process",
            KafkaJoinRunner::deadLetters);
        counter(registry, "misrouted", "of the dead letters, records whose key is null or not their row's join key",
            KafkaJoinRunner::misrouted);
        counter(registry, "checkpoints", "partition checkpoints completed by this member", KafkaJoinRunner::checkpoints);
        counter(registry, "commits", "offset commits after a checkpoint", KafkaJoinRunner::commits);
        counter(registry, "partitions.restored", "take-overs that restored a checkpoint", KafkaJoinRunner::partitionsRestored);
    }

    private void counter(final MeterRegistry registry, final String name, final String description,
        final ToDoubleFunction<KafkaJoinRunner> value)
    {
        FunctionCounter.builder("junction.kafka." + name, runner, value).description(description).tags(tags).register(registry);
    }
}
