package io.junction.kafka;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A group member in a child JVM, for {@link KafkaJoinFailoverTest}: runs a {@link KafkaJoinRunner} on the
 * fixture's inner join until its standard input closes (then closes the runner cleanly and exits 0), or
 * until it is killed. Exits 1 when the runner fails.
 *
 * <p>Arguments: bootstrap servers, topic prefix, state directory, checkpoint directory and optionally
 * {@value #EXACTLY_ONCE}: then the runner runs {@link KafkaJoinExactlyOnceTest}'s regular left join with
 * exactly-once output.
 */
public final class RunnerMain
{
    /** The optional fifth argument: exactly-once output, the regular left join of {@link KafkaJoinExactlyOnceTest}. */
    static final String EXACTLY_ONCE = "exactly-once";

    private RunnerMain()
    {
    }

    /**
     * @param args bootstrap servers, topic prefix, state directory, checkpoint directory.
     */
    public static void main(final String[] args)
    {
        final String prefix = args[1];
        final boolean exactlyOnce = args.length > 4 && EXACTLY_ONCE.equals(args[4]);
        final KafkaJoinConfig.Builder builder = KafkaJoinConfig.builder();
        if (exactlyOnce)
        {
            // A killed member's open transaction holds read_committed readers back until it times out.
            builder.exactlyOnce(true).clientProperty("transaction.timeout.ms", 10_000)
                // The test finds this member's partitions in the group by its client id: the state directory's name.
                .clientProperty("client.id", Path.of(args[2]).getFileName().toString());
        }
        final KafkaJoinRunner runner = new KafkaJoinRunner(builder
            .bootstrapServers(args[0])
            .spec(exactlyOnce ? KafkaJoinExactlyOnceTest.REGULAR_LEFT : JoinFixture.INNER)
            .groupId(prefix + "-group")
            .leftTopic(prefix + "-left").rightTopic(prefix + "-right").outputTopic(prefix + "-out")
            .stateDir(Path.of(args[2]))
            .checkpointDir(Path.of(args[3]))
            .checkpointInterval(Duration.ofMillis(500))
            .metadataCheckInterval(Duration.ofSeconds(1))
            .engineConfig(JoinFixture.engineConfig())
            .clientProperty("session.timeout.ms", 3_000)
            .clientProperty("heartbeat.interval.ms", 300)
            .build());
        final CountDownLatch runReturned = new CountDownLatch(1);
        final Thread watchdog = new Thread(() ->
        {
            try
            {
                while (System.in.read() >= 0)
                {
                    // The parent never writes: only the end of input matters.
                }
            }
            catch (final IOException e)
            {
                // A broken pipe is the parent gone.
            }
            // close() waits (a minute at most) for run() to return, and main exits then; a member whose run()
            // has not returned soon after must not outlive its parent: halt, with a status that says so.
            runner.close();
            try
            {
                if (!runReturned.await(30, TimeUnit.SECONDS))
                {
                    Runtime.getRuntime().halt(3);
                }
            }
            catch (final InterruptedException e)
            {
                Runtime.getRuntime().halt(3);
            }
        }, "stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try
        {
            runner.run();
            runReturned.countDown();
            System.out.println("RunnerMain: closed after " + runner.recordsConsumed() + " records, " + runner.outputsProduced() +
                " outputs, " + runner.checkpoints() + " checkpoints, " + runner.partitionsRestored() + " partitions restored");
            System.out.flush();
            System.exit(0);
        }
        catch (final RuntimeException e)
        {
            runReturned.countDown();
            e.printStackTrace();
            System.exit(1);
        }
    }
}
