package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.Field;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.RowResultHandler;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.IndexKind;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * For {@link JvmFlagsTest}: runs one path's join in a child JVM given only that path's documented flags (or
 * one fewer). Arguments: {@code memory}, {@code durable DIR} or {@code chronicle}. A durable run checkpoints,
 * closes and reopens its state, so the restore runs too. Prints {@code OK results N} and exits 0, or prints
 * {@code REFUSED} and the start's message and exits 2; anything else escapes as a trace (exit 1).
 */
public final class JvmFlagsProbe
{
    /** The probe's status when the start refused the JVM. */
    static final int REFUSED = 2;

    private JvmFlagsProbe()
    {
    }

    /**
     * @param args the path, and for {@code durable} the state root.
     * @throws Exception when the join fails other than by a refused start.
     */
    public static void main(final String[] args) throws Exception
    {
        final EngineConfig config = config(args);
        final Schema schema = Schema.of(Field.longField("id").required(), Field.string("v"));
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(schema, schema)
            .leftKey("id").rightKey("id").interval(IntervalBounds.inclusive(0, 1_000)).build();
        final AtomicLong results = new AtomicLong();
        final boolean durable = config.stateRoot() != null;
        for (int run = 0; run < (durable ? 2 : 1); run++)
        {
            final JoinEngine engine;
            try
            {
                engine = JoinEngine.builder(spec).config(config)
                    .resultHandler(RowResultHandler.of(spec, (kind, left, right, ts, step) -> results.incrementAndGet()))
                    .start();
            }
            catch (final IllegalStateException e)
            {
                System.out.println("REFUSED " + e.getMessage());
                System.exit(REFUSED);
                return;
            }
            try (engine)
            {
                final Publisher publisher = engine.publisher();
                publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1L, "v", "a"), 10, 1);
                publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1L, "v", "b"), 20, 2);
                if (durable)
                {
                    engine.checkpoint(new long[] {2}).get(30, TimeUnit.SECONDS);
                }
                publisher.endOfInput(3);
            }
        }
        System.out.println("OK results " + results.get());
    }

    static EngineConfig config(final String... args)
    {
        final EngineConfig config = EngineConfig.defaults().withPartitions(1);
        switch (args[0])
        {
            case "memory":
                return config;
            case "durable":
                return config.withStateRoot(Path.of(args[1]));
            case "chronicle":
                return config.withState(config.state().withIndex(IndexKind.CHRONICLE));
            default:
                throw new IllegalArgumentException("memory, durable DIR or chronicle: " + args[0]);
        }
    }
}
