package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Run in a JVM of its own with {@code -Dagrona.disable.bounds.checks=true} by
 * {@link PublisherMisuseTest}: publishes rows whose offset or length leave the caller's buffer and
 * prints {@link #OK} when every one was refused and none reached a partition.
 */
public final class UncheckedBoundsProbe
{
    static final String OK = "unchecked bounds probe: all refused";

    private UncheckedBoundsProbe()
    {
    }

    public static void main(final String[] args)
    {
        // Without the flag Agrona would check the bounds itself, and the probe would prove nothing.
        if (!"true".equals(System.getProperty(UnsafeBuffer.DISABLE_BOUNDS_CHECKS_PROP_NAME)) || UnsafeBuffer.SHOULD_BOUNDS_CHECK)
        {
            System.out.println("unchecked bounds probe: run without -D" + UnsafeBuffer.DISABLE_BOUNDS_CHECKS_PROP_NAME +
                "=true (" + System.getProperty(UnsafeBuffer.DISABLE_BOUNDS_CHECKS_PROP_NAME) + ")");
            System.exit(2);
        }
        final Schema schema = Schema.of("k", "v");
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(schema, schema)
            .leftKey("k").rightKey("k").build();
        final AtomicInteger results = new AtomicInteger();
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final int length = new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, 1).putLong(1, 2).finish();
        final int[] codes = new int[4];
        try (JoinEngine engine = JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(16)
                .withState(StateConfig.defaults().withMaxKeys(1024)))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .start())
        {
            final Publisher publisher = engine.publisher();
            codes[0] = publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 1 << 30, length, 0, 0, System.nanoTime());
            codes[1] = publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, -(1 << 30), length, 0, 1, System.nanoTime());
            codes[2] = publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, 4096, 0, 2, System.nanoTime());
            codes[3] = publisher.tryPublish(
                Side.LEFT, ChangeKind.INSERT, buffer, buffer.capacity() - length + 1, length, 0, 3, System.nanoTime());
        }
        for (final int code : codes)
        {
            if (code != Publisher.INVALID_ARGUMENT)
            {
                System.out.println("unchecked bounds probe: code " + code + " for a row outside the buffer");
                System.exit(1);
            }
        }
        if (results.get() != 0)
        {
            System.out.println("unchecked bounds probe: " + results.get() + " results from refused rows");
            System.exit(1);
        }
        System.out.println(OK);
    }
}
