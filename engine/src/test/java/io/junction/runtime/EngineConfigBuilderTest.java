package io.junction.runtime;

import io.junction.join.StateConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EngineConfig#builder()}, {@link EngineConfig#toBuilder()}, the withers and the deprecated constructors are
 * one path: the same values give the same configuration, and {@link EngineConfigBuilder#build()} is where every value
 * is checked (docs/CONFIGURATION.md).
 */
class EngineConfigBuilderTest
{
    private static final StateConfig STATE = StateConfig.defaults().withMaxKeys(4096).withHashSeed(42);

    /** Every knob off its default. */
    private static EngineConfig everyKnobSet()
    {
        return EngineConfig.builder()
            .partitions(3).ringSize(2048).slotCapacity(512).waitStrategy(WaitStrategyKind.YIELDING)
            .recordLatency(false).state(STATE).idleTimeout(Duration.ofMillis(250)).closeTimeoutMillis(77)
            .threadNamePrefix("orders-").daemonThreads(true).readAhead(false).stateRoot(Path.of("state"))
            .checkpointInterval(1000, Duration.ofSeconds(5)).checkpointRoot(Path.of("shared")).watermarkSlice(8)
            .build();
    }

    @Test
    void shouldBuildTheDefaultsFromAnEmptyBuilder()
    {
        final EngineConfig built = EngineConfig.builder().build();
        final EngineConfig defaults = EngineConfig.defaults();
        assertEquals(defaults.toString(), built.toString());
        assertEquals(EngineConfig.defaultPartitions(), built.partitions());
        assertEquals(EngineConfig.RING_SIZE_DEFAULT, built.ringSize());
        assertEquals(EngineConfig.SLOT_CAPACITY_DEFAULT, built.slotCapacity());
        assertEquals(EngineConfig.WAIT_STRATEGY_DEFAULT, built.waitStrategy());
        assertFalse(built.multiProducer());
        assertTrue(built.recordLatency());
        assertEquals(Duration.ZERO, built.idleTimeout());
        assertEquals(EngineConfig.CLOSE_TIMEOUT_DEFAULT, built.closeTimeoutMillis());
        assertEquals(EngineConfig.THREAD_NAME_PREFIX_DEFAULT, built.threadNamePrefix());
        assertEquals(EngineConfig.DAEMON_THREADS_DEFAULT, built.daemonThreads());
        assertEquals(EngineConfig.READ_AHEAD_DEFAULT, built.readAhead());
        assertNull(built.stateRoot());
        assertEquals(0, built.checkpointEveryEvents());
        assertEquals(Duration.ZERO, built.checkpointInterval());
        assertNull(built.checkpointRoot());
        assertEquals(EngineConfig.WATERMARK_SLICE_DEFAULT, built.watermarkSlice());
    }

    @Test
    void shouldCarryEveryValueThroughToBuilder()
    {
        final EngineConfig config = everyKnobSet();
        assertEquals(3, config.partitions());
        assertEquals(2048, config.ringSize());
        assertEquals(512, config.slotCapacity());
        assertEquals(WaitStrategyKind.YIELDING, config.waitStrategy());
        assertFalse(config.recordLatency());
        assertEquals(STATE.toString(), config.state().toString());
        assertEquals(Duration.ofMillis(250), config.idleTimeout());
        assertEquals(77, config.closeTimeoutMillis());
        assertEquals("orders-", config.threadNamePrefix());
        assertTrue(config.daemonThreads());
        assertFalse(config.readAhead());
        assertEquals(Path.of("state"), config.stateRoot());
        assertEquals(1000, config.checkpointEveryEvents());
        assertEquals(Duration.ofSeconds(5), config.checkpointInterval());
        assertEquals(Path.of("shared"), config.checkpointRoot());
        assertEquals(8, config.watermarkSlice());
        assertEquals(config.toString(), config.toBuilder().build().toString());
    }

    @Test
    void shouldGiveTheSameConfigurationFromWithersAsFromTheBuilder()
    {
        final EngineConfig withers = EngineConfig.defaults().withPartitions(3).withRingSize(2048).withSlotCapacity(512)
            .withWaitStrategy(WaitStrategyKind.YIELDING).withRecordLatency(false).withState(STATE)
            .withIdleTimeout(Duration.ofMillis(250)).withCloseTimeoutMillis(77).withThreadNamePrefix("orders-")
            .withDaemonThreads(true).withReadAhead(false).withStateRoot(Path.of("state"))
            .withCheckpointInterval(1000, Duration.ofSeconds(5)).withCheckpointRoot(Path.of("shared")).withWatermarkSlice(8);
        assertEquals(everyKnobSet().toString(), withers.toString());
        assertTrue(EngineConfig.defaults().withMultiProducer(true).multiProducer());
    }

    @Test
    void shouldCheckTheValuesWhenBuildingNotWhenSetting()
    {
        final EngineConfigBuilder builder = EngineConfig.builder().ringSize(3);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertTrue(e.getMessage().contains(EngineConfig.RING_SIZE_PROP_NAME), e.getMessage());
        assertDoesNotThrow(() -> builder.ringSize(4).build(), "the builder is corrected and built again");
        // Settings that only go together are checked together, whatever order they were set in.
        final EngineConfigBuilder interval = EngineConfig.builder().checkpointInterval(10, Duration.ZERO);
        assertThrows(IllegalArgumentException.class, interval::build, "an interval needs a state root");
        assertDoesNotThrow(() -> interval.stateRoot(Path.of("state")).build());
        assertThrows(IllegalArgumentException.class, () -> interval.multiProducer(true).build());
        assertThrows(IllegalArgumentException.class, () -> EngineConfig.defaults().withWatermarkSlice(0),
            "a wither checks what build() checks");
    }

    @Test
    void shouldNotChangeABuiltConfigurationWhenItsBuilderGoesOn()
    {
        final EngineConfigBuilder builder = EngineConfig.builder().partitions(2);
        final EngineConfig first = builder.build();
        builder.partitions(5);
        assertEquals(2, first.partitions());
        assertEquals(5, builder.build().partitions());
        final EngineConfig copy = first.toBuilder().partitions(7).build();
        assertEquals(2, first.partitions());
        assertEquals(7, copy.partitions());
    }

    @Test
    @SuppressWarnings("deprecation")
    void shouldKeepTheDeprecatedConstructorsAsTheBuilderWithTheirValues()
    {
        final EngineConfig viaBuilder = EngineConfig.builder().partitions(2).ringSize(1024).slotCapacity(64)
            .waitStrategy(WaitStrategyKind.BLOCKING).multiProducer(true).recordLatency(false).state(STATE)
            .idleTimeout(Duration.ofMillis(9)).closeTimeoutMillis(11).threadNamePrefix("t-").daemonThreads(true)
            .readAhead(false).build();
        assertEquals(viaBuilder.toString(), new EngineConfig(2, 1024, 64, WaitStrategyKind.BLOCKING, true, false, STATE,
            Duration.ofMillis(9), 11, "t-", true, false).toString());
        assertEquals(viaBuilder.withReadAhead(true).toString(), new EngineConfig(2, 1024, 64, WaitStrategyKind.BLOCKING,
            true, false, STATE, Duration.ofMillis(9), 11, "t-", true).toString());
        final EngineConfig shortest = new EngineConfig(2, 1024, 64, WaitStrategyKind.BLOCKING, true, false, STATE);
        assertEquals(EngineConfig.builder().partitions(2).ringSize(1024).slotCapacity(64)
            .waitStrategy(WaitStrategyKind.BLOCKING).multiProducer(true).recordLatency(false).state(STATE).build().toString(),
            shortest.toString());
        assertEquals(shortest.withIdleTimeout(Duration.ofMillis(9)).toString(), new EngineConfig(2, 1024, 64,
            WaitStrategyKind.BLOCKING, true, false, STATE, Duration.ofMillis(9)).toString());
        assertThrows(IllegalArgumentException.class,
            () -> new EngineConfig(0, 1024, 64, WaitStrategyKind.BLOCKING, true, false, STATE));
    }
}
