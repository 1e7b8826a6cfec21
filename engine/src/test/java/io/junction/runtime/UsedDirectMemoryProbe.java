package io.junction.runtime;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;

import java.nio.ByteBuffer;

/**
 * Run in a JVM of its own with {@code -XX:MaxDirectMemorySize=64m} by {@link RingMemoryTest}: takes
 * {@link #TAKEN} bytes of direct memory, then starts an engine whose rings ({@link #RING_BYTES}) fit the limit
 * but not what is left of it, and prints {@link #REFUSED} and the message when the start refuses that with
 * {@link IllegalArgumentException}, {@link #OUT_OF_MEMORY} when it runs out of direct memory instead.
 */
public final class UsedDirectMemoryProbe
{
    static final String MAX_DIRECT = "-XX:MaxDirectMemorySize=64m";
    static final int TAKEN = 40 << 20;
    /** 1 partition x 1,024 slots x 32 KiB: 32 MiB, under the 64 MiB limit, over the 24 MiB left of it. */
    static final int RING_SIZE = 1024;
    static final int SLOT_CAPACITY = 32 << 10;
    static final String REFUSED = "used direct memory probe: refused: ";
    static final String OUT_OF_MEMORY = "used direct memory probe: out of memory: ";
    static final String STARTED = "used direct memory probe: started";

    private UsedDirectMemoryProbe()
    {
    }

    public static void main(final String[] args)
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
            .schemas(Schema.of("k"), Schema.of("k")).leftKey("k").rightKey("k").build();
        // Held to the end: the memory a running application's own direct buffers take.
        final ByteBuffer taken = ByteBuffer.allocateDirect(TAKEN);
        try (JoinEngine engine = JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(RING_SIZE).withSlotCapacity(SLOT_CAPACITY))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start())
        {
            System.out.println(STARTED + ": " + engine.config().ringBytes() + " bytes of rings");
        }
        catch (final IllegalArgumentException e)
        {
            System.out.println(REFUSED + e.getMessage());
        }
        catch (final OutOfMemoryError e)
        {
            System.out.println(OUT_OF_MEMORY + e.getMessage());
        }
        System.out.println("held " + taken.capacity());
    }
}
