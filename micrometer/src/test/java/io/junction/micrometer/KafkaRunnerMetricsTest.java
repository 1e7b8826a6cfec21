package io.junction.micrometer;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.kafka.KafkaJoinConfig;
import io.junction.kafka.KafkaJoinRunner;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link KafkaRunnerMetrics} registers the runner's seven counters; nothing connects until the runner runs. */
class KafkaRunnerMetricsTest
{
    @Test
    void shouldRegisterTheRunnersCountersAtZeroBeforeItRuns(@TempDir final Path dir)
    {
        final Schema schema = Schema.of("k", "v");
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(schema, schema)
            .leftKey("k").rightKey("k").build();
        final KafkaJoinRunner runner = new KafkaJoinRunner(KafkaJoinConfig.builder()
            .bootstrapServers("127.0.0.1:1").groupId("g").leftTopic("l").rightTopic("r").outputTopic("o").spec(spec)
            .stateDir(dir.resolve("state")).checkpointDir(dir.resolve("checkpoints")).build());
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new KafkaRunnerMetrics(runner, Tags.of("join", "g")).bindTo(registry);
        for (final String name : new String[] {"records.consumed", "outputs.produced", "dead.letters", "misrouted", "checkpoints",
            "commits", "partitions.restored"})
        {
            assertEquals(0.0, registry.get("junction.kafka." + name).tag("join", "g").functionCounter().count(), name);
        }
        assertEquals(7, registry.getMeters().size());
    }
}
