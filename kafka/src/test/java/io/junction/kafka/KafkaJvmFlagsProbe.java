package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.RowResultHandler;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.IndexKind;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * For {@link KafkaJvmFlagsTest}, in a child JVM on the kafka module's test class path (where kafka-clients'
 * {@code slf4j-api} 1.7 wins over Chronicle's 2.x, as in an application that declares kafka-clients).
 * Arguments: {@code kafka BOOTSTRAP DIR} runs {@link KafkaJoinExample} (the README's Kafka join) and prints its
 * output; {@code runner BOOTSTRAP DIR} runs only its runner, with nothing of the application before it (the
 * example's producer encodes rows with Agrona, which needs the first flag itself); {@code engine DIR} runs a durable engine with the Chronicle Map index, checkpointed and restored.
 * Prints {@code OK ...} and exits 0; a failure anywhere, a member thread's included, prints {@code FAILED} and
 * its message on one line and exits 2.
 */
public final class KafkaJvmFlagsProbe
{
    /** The probe's status when the runner or the engine failed. */
    static final int FAILED = 2;

    private KafkaJvmFlagsProbe()
    {
    }

    /**
     * @param args {@code kafka BOOTSTRAP DIR} or {@code engine DIR}.
     * @throws Exception never: every failure is printed and exits {@link #FAILED}.
     */
    public static void main(final String[] args) throws Exception
    {
        // The example runs the runner on a thread of its own: its failure ends the probe too.
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> failed(e));
        try
        {
            if (args[0].equals("kafka"))
            {
                System.out.println("OK " + KafkaJoinExample.run(args[1], Path.of(args[2])));
            }
            else if (args[0].equals("runner"))
            {
                runner(args[1], Path.of(args[2])).run();                 // returns only by failing here
                System.out.println("FAILED the runner returned");
            }
            else
            {
                System.out.println("OK results " + durableChronicleJoin(Path.of(args[1])));
            }
        }
        catch (final Exception e)
        {
            failed(e);
        }
    }

    private static void failed(final Throwable e)
    {
        System.out.println("FAILED " + e.getMessage());
        System.out.flush();
        Runtime.getRuntime().halt(FAILED);
    }

    private static KafkaJoinRunner runner(final String bootstrap, final Path dir)
    {
        final Schema shows = Schema.of("log_id", "ts", "show_params");
        final Schema clicks = Schema.of("log_id", "ts", "click_params");
        return new KafkaJoinRunner(KafkaJoinConfig.builder()
            .bootstrapServers(bootstrap)
            .groupId("shows-clicks-refused")
            .leftTopic("shows").rightTopic("clicks").outputTopic("shows-clicks")
            .spec(JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(shows, clicks)
                .leftKey("log_id").rightKey("log_id").interval(IntervalBounds.inclusive(0, 60_000)).build())
            .stateDir(dir.resolve("state"))
            .checkpointDir(dir.resolve("checkpoints"))
            .build());
    }

    private static long durableChronicleJoin(final Path root) throws Exception
    {
        final Schema schema = Schema.of("id", "v");
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(schema, schema)
            .leftKey("id").rightKey("id").build();
        final EngineConfig config = EngineConfig.defaults().withPartitions(1).withStateRoot(root);
        final AtomicLong results = new AtomicLong();
        for (int run = 0; run < 2; run++)
        {
            try (JoinEngine engine = JoinEngine.builder(spec).config(config.withState(config.state().withIndex(IndexKind.CHRONICLE)))
                .resultHandler(RowResultHandler.of(spec, (kind, left, right, ts, step) -> results.incrementAndGet())).start())
            {
                final Publisher publisher = engine.publisher();
                publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", "1", "v", "a"), 10, 2 * run + 1);
                publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("id", "1", "v", "b"), 20, 2 * run + 2);
                engine.checkpoint(new long[] {2 * run + 2}).get(30, TimeUnit.SECONDS);
            }
        }
        return results.get();
    }
}
