package io.junction.runtime;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Rings larger than the direct memory the JVM has left are refused at start with a message naming the sizes and
 * the options, before anything is allocated, not an OutOfMemoryError (docs/SEMANTICS.md 1).
 */
class RingMemoryTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k"), Schema.of("k")).leftKey("k").rightKey("k").build();
    private static final long MIB = 1L << 20;

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
    void ringsAreComparedWithTheDirectMemoryLeftNotWithTheLimit()
    {
        // 1 x 16,384 x 32,767 bytes: 99.997% of 512 MiB, with 64 KiB of it in use already.
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withRingSize(16_384).withSlotCapacity(32_767);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> config.checkRingMemory(512 * MIB, 64 << 10));
        final String message = e.getMessage();
        assertTrue(message.contains(Long.toString(config.ringBytes())), "the rings' bytes: " + message);
        assertTrue(message.contains(Long.toString(512 * MIB - (64 << 10))), "what is left: " + message);
        assertTrue(message.contains(Long.toString(512 * MIB)) && message.contains(Long.toString(64 << 10)),
            "the limit and what is in use: " + message);
        assertTrue(message.contains("junction.ring.size") && message.contains("junction.ring.slotCapacity") &&
            message.contains("-XX:MaxDirectMemorySize"), "the options: " + message);
        assertDoesNotThrow(() -> config.checkRingMemory(512 * MIB, 0), "they fit an unused limit");
    }

    @Test
    void ringsThatFitWhatIsLeftPass()
    {
        final EngineConfig config = EngineConfig.defaults().withPartitions(2).withRingSize(1024).withSlotCapacity(1024);
        assertDoesNotThrow(() -> config.checkRingMemory(64 * MIB, 60 * MIB));
        assertThrows(IllegalArgumentException.class, () -> config.checkRingMemory(64 * MIB, 63 * MIB));
        // More in use than the limit (a limit the JVM's options do not say right): nothing is left.
        assertThrows(IllegalArgumentException.class, () -> config.checkRingMemory(64 * MIB, 65 * MIB));
    }

    @Test
    void durableStateBuffersCountBesideTheRings()
    {
        final EngineConfig memory = EngineConfig.defaults().withPartitions(4).withRingSize(1024).withSlotCapacity(1024);
        final EngineConfig durable = memory.withStateRoot(Path.of("unused"));
        final long rings = memory.ringBytes();
        assertDoesNotThrow(() -> memory.checkRingMemory(rings + MIB, 0));
        // Each durable partition holds a chunk buffer of its own from the start.
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> durable.checkRingMemory(rings + MIB, 0));
        assertTrue(e.getMessage().contains("durable"), e.getMessage());
    }

    /**
     * With direct memory already in use (the application's own buffers), rings within the limit but beyond what
     * is left are refused cleanly: in a JVM of its own, whose limit is known.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void directMemoryInUseMakesTheStartRefuseCleanly() throws Exception
    {
        final String output = ChildJvm.run(List.of(UsedDirectMemoryProbe.MAX_DIRECT, "-Xmx256m"), UsedDirectMemoryProbe.class);
        assertTrue(output.contains(UsedDirectMemoryProbe.REFUSED), output);
        assertTrue(output.contains("junction.ring.size") && output.contains(Long.toString(64 * MIB)), output);
    }

    @Test
    void sizesParseAsTheJvmWritesThem()
    {
        assertEquals(512L << 20, DirectMemory.parseSize("512m"));
        assertEquals(2L << 30, DirectMemory.parseSize("2G"));
        assertEquals(1048576, DirectMemory.parseSize("1048576"));
        assertEquals(-1, DirectMemory.parseSize("lots"));
    }
}
