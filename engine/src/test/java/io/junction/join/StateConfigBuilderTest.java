package io.junction.join;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StateConfig#builder()}, {@link StateConfig#toBuilder()}, the withers, {@link StateConfig#from(Map)} and the
 * deprecated constructors are one path: the same values give the same configuration, and
 * {@link StateConfig.Builder#build()} is where every value is checked (docs/CONFIGURATION.md).
 */
class StateConfigBuilderTest
{
    /** Every knob off its default. */
    private static StateConfig everyKnobSet()
    {
        return StateConfig.builder().maxKeys(4096).chunkSize(64 << 10).wheel(8, 256).maxKeyLength(64)
            .indexKind(IndexKind.CHRONICLE).preallocate(1 << 20).maxLiveRows(1000).maxStateBytes(64L << 20)
            .fullPolicy(FullPolicy.BACK_PRESSURE).hashSeed(42).hotKeys(4).stateDirectory(Path.of("state")).build();
    }

    @Test
    void shouldBuildTheDefaultsFromAnEmptyBuilder()
    {
        final StateConfig built = StateConfig.builder().build();
        assertEquals(StateConfig.defaults().toString(), built.toString());
        assertEquals(StateConfig.MAX_KEYS_DEFAULT, built.maxKeys());
        assertEquals(StateConfig.CHUNK_SIZE_DEFAULT, built.chunkSize());
        assertEquals(StateConfig.TICK_SHIFT_DEFAULT, built.tickShift());
        assertEquals(StateConfig.WHEEL_SLOTS_DEFAULT, built.wheelSlots());
        assertEquals(StateConfig.MAX_KEY_LENGTH_DEFAULT, built.maxKeyLength());
        assertEquals(StateConfig.INDEX_DEFAULT, built.indexKind());
        assertEquals(StateConfig.PREALLOCATE_DEFAULT, built.preallocate());
        assertEquals(StateConfig.MAX_LIVE_ROWS_DEFAULT, built.maxLiveRows());
        assertEquals(StateConfig.MAX_BYTES_DEFAULT, built.maxStateBytes());
        assertFalse(built.hasConfiguredMaxStateBytes());
        assertEquals(StateConfig.FULL_POLICY_DEFAULT, built.fullPolicy());
        assertFalse(built.hasFixedHashSeed());
        assertEquals(StateConfig.HOT_KEYS_DEFAULT, built.hotKeys());
        assertNull(built.stateDirectory());
        assertNull(built.restoredChunkSums());
    }

    @Test
    void shouldCarryEveryValueThroughToBuilder()
    {
        final StateConfig config = everyKnobSet();
        assertEquals(4096, config.maxKeys());
        assertEquals(64 << 10, config.chunkSize());
        assertEquals(8, config.tickShift());
        assertEquals(256, config.wheelSlots());
        assertEquals(64, config.maxKeyLength());
        assertEquals(IndexKind.CHRONICLE, config.indexKind());
        assertEquals(1 << 20, config.preallocate());
        assertEquals(1000, config.maxLiveRows());
        assertEquals(64L << 20, config.maxStateBytes());
        assertTrue(config.hasConfiguredMaxStateBytes());
        assertEquals(FullPolicy.BACK_PRESSURE, config.fullPolicy());
        assertTrue(config.hasFixedHashSeed());
        assertEquals(42, config.hashSeed());
        assertEquals(4, config.hotKeys());
        assertEquals(Path.of("state"), config.stateDirectory());
        final StateConfig copy = config.toBuilder().build();
        assertEquals(config.toString(), copy.toString());
        assertTrue(copy.hasConfiguredMaxStateBytes(), "whether the byte limit was configured travels with it");
        assertTrue(copy.hasFixedHashSeed());
    }

    @Test
    void shouldGiveTheSameConfigurationFromWithersAndFromProperties()
    {
        final StateConfig withers = StateConfig.defaults().withMaxKeys(4096).withChunkSize(64 << 10).withWheel(8, 256)
            .withIndex(IndexKind.CHRONICLE).withPreallocate(1 << 20).withMaxLiveRows(1000).withMaxStateBytes(64L << 20)
            .withFullPolicy(FullPolicy.BACK_PRESSURE).withHashSeed(42).withHotKeys(4).withStateDirectory(Path.of("state"));
        final StateConfig built = everyKnobSet();
        assertEquals(built.toBuilder().maxKeyLength(StateConfig.MAX_KEY_LENGTH_DEFAULT).build().toString(), withers.toString());
        final StateConfig read = StateConfig.from(Map.ofEntries(Map.entry(StateConfig.MAX_KEYS_PROP_NAME, "4096"),
            Map.entry(StateConfig.CHUNK_SIZE_PROP_NAME, "65536"), Map.entry(StateConfig.TICK_SHIFT_PROP_NAME, "8"),
            Map.entry(StateConfig.WHEEL_SLOTS_PROP_NAME, "256"), Map.entry(StateConfig.MAX_KEY_LENGTH_PROP_NAME, "64"),
            Map.entry(StateConfig.INDEX_PROP_NAME, "chronicle"), Map.entry(StateConfig.PREALLOCATE_PROP_NAME, "1048576"),
            Map.entry(StateConfig.MAX_LIVE_ROWS_PROP_NAME, "1000"), Map.entry(StateConfig.MAX_BYTES_PROP_NAME, "67108864"),
            Map.entry(StateConfig.FULL_POLICY_PROP_NAME, "back-pressure"), Map.entry(StateConfig.HASH_SEED_PROP_NAME, "42"),
            Map.entry(StateConfig.HOT_KEYS_PROP_NAME, "4")));
        assertEquals(built.withStateDirectory(null).toString(), read.toString());
        assertTrue(read.hasConfiguredMaxStateBytes());
        assertTrue(read.hasFixedHashSeed());
        final StateConfig unset = StateConfig.from(Map.of());
        assertFalse(unset.hasConfiguredMaxStateBytes(), "an unset byte limit is the default's, which an engine may lower");
        assertFalse(unset.hasFixedHashSeed(), "an unset seed is drawn per engine");
    }

    @Test
    void shouldCheckTheValuesWhenBuildingNotWhenSetting()
    {
        final StateConfig.Builder builder = StateConfig.builder().wheel(10, 3);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, builder::build);
        assertTrue(e.getMessage().contains(StateConfig.WHEEL_SLOTS_PROP_NAME), e.getMessage());
        assertDoesNotThrow(() -> builder.wheel(10, 4).build(), "the builder is corrected and built again");
        // The byte limit is checked against the chunk size, whichever was set first.
        final StateConfig.Builder bytes = StateConfig.builder().maxStateBytes(8192).chunkSize(16384);
        assertThrows(IllegalArgumentException.class, bytes::build);
        assertDoesNotThrow(() -> bytes.chunkSize(8192).build());
        assertThrows(IllegalArgumentException.class, () -> StateConfig.builder().indexKind(null).build());
        assertThrows(IllegalArgumentException.class, () -> StateConfig.defaults().withHotKeys(StateConfig.HOT_KEYS_MAX + 1),
            "a wither checks what build() checks");
    }

    @Test
    void shouldKeepARestoresSumsOnlyOnTheCopyThatWasHandedThem()
    {
        final byte[] sums = {1, 2, 3};
        final StateConfig restored = StateConfig.defaults().withRestoredChunkSums(sums);
        sums[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, restored.restoredChunkSums(), "a copy of the sums handed in");
        assertNull(restored.toBuilder().build().restoredChunkSums());
        assertNull(restored.withMaxKeys(64).restoredChunkSums(), "any other copy drops them");
    }

    @Test
    void shouldNotChangeABuiltConfigurationWhenItsBuilderGoesOn()
    {
        final StateConfig.Builder builder = StateConfig.builder().maxKeys(64);
        final StateConfig first = builder.build();
        builder.maxKeys(128);
        assertEquals(64, first.maxKeys());
        assertEquals(128, builder.build().maxKeys());
    }

    @Test
    @SuppressWarnings("deprecation")
    void shouldKeepTheDeprecatedConstructorsAsTheBuilderWithTheirValues()
    {
        final StateConfig.Builder values = StateConfig.builder().maxKeys(4096).chunkSize(64 << 10).wheel(8, 256).maxKeyLength(64);
        assertEquals(values.build().toString(), new StateConfig(4096, 64 << 10, 8, 256, 64).toString());
        assertEquals(values.indexKind(IndexKind.CHRONICLE).build().toString(),
            new StateConfig(4096, 64 << 10, 8, 256, 64, IndexKind.CHRONICLE).toString());
        assertEquals(values.preallocate(1 << 20).build().toString(),
            new StateConfig(4096, 64 << 10, 8, 256, 64, IndexKind.CHRONICLE, 1 << 20).toString());
        assertFalse(new StateConfig(4096, 64 << 10, 8, 256, 64).hasConfiguredMaxStateBytes());
        assertThrows(IllegalArgumentException.class, () -> new StateConfig(0, 64 << 10, 8, 256, 64));
    }
}
