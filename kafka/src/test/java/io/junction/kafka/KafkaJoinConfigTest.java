package io.junction.kafka;

import io.junction.api.Expansion;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.runtime.EngineConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.util.List;

class KafkaJoinConfigTest
{
    private static KafkaJoinConfig.Builder complete()
    {
        return KafkaJoinConfig.builder()
            .bootstrapServers("127.0.0.1:9092").groupId("g")
            .leftTopic("l").rightTopic("r").outputTopic("o")
            .spec(JoinFixture.INNER)
            .stateDir(Path.of("state")).checkpointDir(Path.of("checkpoints"));
    }

    private static void assertRefused(final KafkaJoinConfig.Builder builder, final String message)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void shouldApplyTheDefaults()
    {
        final KafkaJoinConfig config = complete().build();
        assertSame(RowDecoder.binary(), config.leftDecoder());
        assertSame(RowDecoder.binary(), config.rightDecoder());
        assertEquals(KafkaJoinConfig.CHECKPOINT_INTERVAL_DEFAULT, config.checkpointInterval());
        assertEquals(0, config.idleTimeoutMillis());
        assertEquals(0, config.watermarkDelayMillis());
        assertTrue(config.clientProperties().isEmpty());
        assertFalse(config.exactlyOnce(), "at least once unless asked");
        assertTrue(complete().exactlyOnce(true).build().exactlyOnce());
        assertEquals(KafkaJoinConfig.InputKeys.ANY, config.inputKeys(), "only null keys are misrouted unless asked");
        assertEquals(KafkaJoinConfig.InputKeys.BINARY_KEY_ROW,
            complete().inputKeys(KafkaJoinConfig.InputKeys.BINARY_KEY_ROW).build().inputKeys());
        assertThrows(IllegalArgumentException.class, () -> complete().inputKeys(null));
    }

    @Test
    void shouldNameWhatIsMissing()
    {
        assertRefused(complete().groupId(null), "groupId is required");
        assertRefused(complete().checkpointDir(null), "checkpointDir is required");
        assertRefused(complete().spec(null), "spec is required");
    }

    @Test
    void shouldRefuseSettingsThatBreakTheRunnersGuarantees()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> complete().clientProperty("enable.auto.commit", true));
        assertTrue(e.getMessage().contains("enable.auto.commit is set by the runner"), e.getMessage());
        assertRefused(complete().rightTopic("l"), "must differ");
        assertRefused(complete().outputTopic("r"), "must not be an input topic");
        assertRefused(complete().checkpointDir(Path.of("state")), "stateDir and checkpointDir must differ");
        assertRefused(complete().watermarkDelayMillis(-1), "watermarkDelayMillis");
        assertRefused(complete().checkpointInterval(Duration.ZERO), "checkpointInterval must be positive");
        assertRefused(complete().engineConfig(EngineConfig.defaults().withIdleTimeout(Duration.ofSeconds(1))),
            "the engine's idle timeout must be off");
        assertRefused(complete().engineConfig(EngineConfig.defaults().withMultiProducer(true)), "single-producer");
    }

    @Test
    void shouldRefuseAnExpansionThatMakesAKeyFieldAndRunOneThatDoesNot()
    {
        final Schema schema = Schema.of("k", "tags", "v");
        final JoinSpec keyed = JoinSpec.builder(JoinKind.REGULAR,
                JoinType.LEFT).schemas(schema, schema).leftKey("k").rightKey("k")
            .leftExpand(Expansion.unnest("tags", "k2")).build();
        complete().spec(keyed).build();
        final JoinSpec expandedKey = JoinSpec.builder(JoinKind.REGULAR,
                JoinType.LEFT).schemas(schema, schema).leftKey("k").rightKey("k")
            .rightExpand(Expansion.unnest("tags", "k")).build();
        assertRefused(complete().spec(expandedKey), "the expansion of right rows makes the key field 'k'");
    }

    @Test
    void shouldPassOtherClientPropertiesThrough()
    {
        assertEquals(6_000, complete().clientProperty("session.timeout.ms", 6_000).build().clientProperties().get("session.timeout.ms"));
    }

    @Test
    void shouldTakeTheInputsOfAMultiWayJoinAsAList()
    {
        final KafkaJoinConfig.Builder multi = KafkaJoinConfig.builder()
            .bootstrapServers("127.0.0.1:9092").groupId("g")
            .inputs("a", "b", "c").outputTopic("o")
            .spec(JoinFixture.INNER)
            .stateDir(Path.of("state")).checkpointDir(Path.of("checkpoints"));
        final KafkaJoinConfig config = multi.build();
        assertEquals(List.of("a", "b", "c"), config.inputTopics());
        assertTrue(config.hasInputList());
        assertSame(RowDecoder.binary(), config.inputDecoder(2));
        assertEquals(List.of("l", "r"), complete().build().inputTopics());
        assertFalse(complete().build().hasInputList());
        assertRefused(multi.leftTopic("l"), "not both");
        assertRefused(multi.leftTopic(null).inputs("a", "b", "a"), "inputs[2]: topic 'a' is given twice");
        assertRefused(multi.inputs("a"), "at least two");
        assertRefused(multi.inputs("a", "o"), "must not be an input topic");
        assertRefused(multi.inputs("a", "b").inputDecoders(List.of(RowDecoder.binary())), "1 decoders for 2 inputs");
        assertRefused(complete().inputDecoders(List.of(RowDecoder.binary())), "only with inputs");
    }
}
