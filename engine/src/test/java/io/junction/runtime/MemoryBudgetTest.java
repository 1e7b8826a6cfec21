package io.junction.runtime;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.join.StateConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The state cap against the machine at start (the hardening work, docs/CONFIGURATION.md): a configured cap
 * that can never fit the physical memory (or, durable, the state root's disk) is refused naming the
 * setting; the default is lowered to half the physical memory, less the rings, shared by the partitions.
 */
class MemoryBudgetTest
{
    private static final long GIB = 1L << 30;

    @TempDir
    Path temp;

    private static JoinSpec spec()
    {
        final Schema schema = Schema.of("k", "v");
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(schema, schema).leftKey("k").rightKey("k").build();
    }

    @Test
    void aConfiguredCapThatCannotFitThePhysicalMemoryIsRefusedNamingTheSetting()
    {
        final EngineConfig config = EngineConfig.defaults().withPartitions(4).withRingSize(1024)
            .withState(StateConfig.defaults().withMaxStateBytes(4 * GIB));
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new MemoryBudget(8 * GIB).apply(config));
        assertTrue(refused.getMessage().contains(StateConfig.MAX_BYTES_PROP_NAME) && refused.getMessage().contains("lower") &&
            refused.getMessage().contains("physical memory") && !refused.getMessage().contains("\n"), refused.getMessage());
        // Configured through the properties too: the same refusal.
        final EngineConfig fromMap = EngineConfig.defaults().withPartitions(4).withRingSize(1024)
            .withState(StateConfig.from(Map.of(StateConfig.MAX_BYTES_PROP_NAME, Long.toString(4 * GIB))));
        assertThrows(IllegalArgumentException.class, () -> new MemoryBudget(8 * GIB).apply(fromMap));
        // One that fits is kept as it is.
        final EngineConfig fits = config.withState(StateConfig.defaults().withMaxStateBytes(GIB));
        assertEquals(GIB, new MemoryBudget(8 * GIB).apply(fits).state().maxStateBytes());
    }

    @Test
    void theDefaultCapIsLoweredToHalfThePhysicalMemoryLessTheRingsAndKeptWhereItFits()
    {
        final EngineConfig config = EngineConfig.defaults().withPartitions(4).withRingSize(1024);
        assertFalse(config.state().hasConfiguredMaxStateBytes());
        final long chunk = config.state().chunkSize();
        final long expected = (8 * GIB / 2 - config.ringBytes()) / 4 / chunk * chunk;
        assertEquals(expected, new MemoryBudget(8 * GIB).apply(config).state().maxStateBytes());
        assertTrue(expected < StateConfig.MAX_BYTES_DEFAULT);
        assertEquals(StateConfig.MAX_BYTES_DEFAULT, new MemoryBudget(64 * GIB).apply(config).state().maxStateBytes(),
            "4 partitions x 4 GiB fit half of 64 GiB");
        assertEquals(StateConfig.MAX_BYTES_DEFAULT, new MemoryBudget(0).apply(config).state().maxStateBytes(),
            "an unknown memory size checks nothing");
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new MemoryBudget(config.ringBytes()).apply(config));
        assertTrue(refused.getMessage().contains("less than one arena chunk"), refused.getMessage());
    }

    @Test
    void anEngineStartLowersTheDefaultCapAndRefusesAnImpossibleOne()
    {
        final EngineConfig config = EngineConfig.defaults().withPartitions(2).withRingSize(1024);
        try (JoinEngine engine = JoinEngine.builder(spec()).config(config).resultHandlers(p -> (k, l, r, t, s) -> { })
            .memoryBudget(new MemoryBudget(4 * GIB)).start())
        {
            final long chunk = config.state().chunkSize();
            assertEquals((2 * GIB - config.ringBytes()) / 2 / chunk * chunk, engine.config().state().maxStateBytes());
        }
        assertImpossibleCapRefused(config);
    }

    /** On this machine: no machine has 2 x 2^60 bytes of memory. */
    private static void assertImpossibleCapRefused(final EngineConfig config)
    {
        final EngineConfig impossible = config.withState(StateConfig.defaults().withMaxStateBytes(1L << 60));
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> JoinEngine.builder(spec()).config(impossible).resultHandlers(p -> (k, l, r, t, s) -> { }).start().close());
        assertTrue(refused.getMessage().contains(StateConfig.MAX_BYTES_PROP_NAME), refused.getMessage());
    }

    @Test
    void aDurableCapBeyondTheStateRootsDiskIsRefusedAndTheDurableDefaultIsNeverLowered()
    {
        final EngineConfig durable = EngineConfig.defaults().withPartitions(2).withRingSize(1024)
            .withStateRoot(temp.resolve("root"));
        assertEquals(StateConfig.MAX_BYTES_DEFAULT, new MemoryBudget(GIB).apply(durable).state().maxStateBytes(),
            "the cap is part of the files' layout: never lowered");
        final EngineConfig impossible = durable.withState(StateConfig.defaults().withMaxStateBytes(1L << 60));
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
            () -> new MemoryBudget(GIB).apply(impossible));
        assertTrue(refused.getMessage().contains(StateConfig.MAX_BYTES_PROP_NAME) &&
            refused.getMessage().contains(temp.resolve("root").toString()), refused.getMessage());
        final EngineConfig fits = durable.withState(StateConfig.defaults().withMaxStateBytes(64L << 20));
        assertEquals(64L << 20, new MemoryBudget(GIB).apply(fits).state().maxStateBytes());
    }
}
