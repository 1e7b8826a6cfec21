package io.junction.runtime;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Rings larger than the JVM's direct memory are refused at start with a message, not an OutOfMemoryError. */
class RingMemoryTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k"), Schema.of("k")).leftKey("k").rightKey("k").build();

    @Test
    void ringsThatCannotFitAreRefusedBeforeAnythingIsAllocated()
    {
        // 64 x 8192 x 65,535 bytes: 32 GiB.
        final EngineConfig config = EngineConfig.defaults().withPartitions(64).withRingSize(8192).withSlotCapacity(65_535);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> JoinEngine.builder(SPEC).config(config).resultHandler((kind, left, right, ts, step) -> { }).start());
        assertTrue(e.getMessage().contains("junction.ring.size") && e.getMessage().contains("junction.ring.slotCapacity"), e.getMessage());
        assertTrue(e.getMessage().contains("direct memory"), e.getMessage());
    }

    @Test
    void sizesParseAsTheJvmWritesThem()
    {
        assertEquals(512L << 20, EngineConfig.parseSize("512m"));
        assertEquals(2L << 30, EngineConfig.parseSize("2G"));
        assertEquals(1048576, EngineConfig.parseSize("1048576"));
        assertEquals(-1, EngineConfig.parseSize("lots"));
    }
}
