package io.junction.examples;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * docs/DURABILITY.md's durable-state example, as a program the build compiles and runs (the lines between the
 * {@code README:begin durable} and {@code README:end durable} markers are the README's block, word for
 * word): a show is stored, checkpointed and the engine closed cleanly; a second engine on the same
 * directory reopens the state and joins a click to the show the first one stored. It prints
 * {@code resume after step 1} and {@code results 1}.
 */
public final class DurableExample
{
    private DurableExample()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path root = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("junction-durable-example");
        // README:begin durable
        Schema schema = Schema.of("id", "ts");
        JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(schema, schema)
            .leftKey("id").rightKey("id").interval(IntervalBounds.inclusive(-1000, 1000)).build();
        EngineConfig config = EngineConfig.defaults().withPartitions(2)
            .withStateRoot(root)                                                 // junction.state.dir; default: in memory
            .withCheckpointInterval(100_000, Duration.ofSeconds(30));            // optional: the publisher checkpoints too
        AtomicLong results = new AtomicLong();

        JoinEngine first = JoinEngine.builder(spec).config(config)
            .resultHandlers(p -> (kind, left, right, ts, step) -> results.incrementAndGet())
            .beforeCheckpoint(p -> { /* make what partition p emitted so far durable in the sink */ })
            .start();
        long[] from = first.restoredPositions();                                // null: nothing to resume, start at the beginning
        Publisher publisher = first.publisher();
        publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1, "ts", 1000), 1000, 0);
        first.checkpoint(new long[] {0}).get(30, TimeUnit.SECONDS);            // consistent cut after step 0 (publishing thread)
        publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 2, "ts", 1100), 1100, 1);
        first.close(new long[] {1});                                  // clean close: a last checkpoint, then reopened as is

        try (JoinEngine second = JoinEngine.builder(spec).config(config)        // same spec, same partitions, same root
            .resultHandlers(p -> (kind, left, right, ts, step) -> results.incrementAndGet()).start())
        {
            System.out.println("resume after step " + second.restoredPositions()[0]); // killed instead? the checkpoint's: 0
            second.publisher().publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", 1, "ts", 1500), 1500, 2);
        }                                                                       // close() without positions: no clean-close record
        System.out.println("results " + results.get());                         // the click joined the show stored before
        // README:end durable
        if (from != null)
        {
            throw new IllegalStateException("a new state root has nothing to resume");
        }
    }
}
