package io.junction.kafka;

import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * Junction as a member of a Kafka consumer group: joins a left and a right topic that are co-partitioned
 * (equal partition counts, each keyed by its join key with the same partitioner, Kafka's default) and writes
 * the results to an output topic. Run several processes with the same {@link KafkaJoinConfig#groupId()} and
 * {@link KafkaJoinConfig#checkpointDir()} to spread the partitions over them.
 *
 * <h2>Partitions</h2>
 * Engine partition {@code p} is partition {@code p} of both input topics. The group uses the classic protocol
 * with the range assignor, which gives left-{@code p} and right-{@code p} to the same member; a member serves
 * {@code p} only while it holds both (a half-held partition is paused). On revocation it checkpoints {@code p}
 * (its state and both next offsets) into the shared checkpoint directory, commits those offsets and lets the
 * partition go; on assignment it takes {@code p} over from its newest complete checkpoint and seeks both inputs
 * to the checkpoint's offsets (the committed offsets, or the earliest, when {@code p} has none); on loss (its
 * session lapsed) it drops {@code p} without committing. Each served partition is also checkpointed every
 * {@link KafkaJoinConfig#checkpointInterval()}, its offsets committed once the checkpoint is complete.
 *
 * <h2>Multi-way joins</h2>
 * A multi-way join ({@link io.junction.api.JoinKind#MULTI}, SEMANTICS 10) reads N co-partitioned topics, named in the spec's input
 * order by {@link KafkaJoinConfig.Builder#inputs(List)}: everything above and below holds with "both inputs"
 * read as "every input". Engine partition {@code p} is served only while this member holds partition
 * {@code p} of every input topic (the range assignor gives them to one member; a partly held {@code p} is
 * paused), each (partition, input) has its own watermark and idleness, a checkpoint holds N next offsets (and
 * the exactly-once token), and the provenance header {@code junction.side} of an output names the causing
 * input ({@code W:} and the name when a watermark or idleness mark caused it). The start refuses, with a
 * {@link KafkaJoinException}, an input list whose size is not the spec's input count and topics whose
 * partition counts differ. docs/KAFKA-MULTI.md.
 *
 * <h2>Event time</h2>
 * A row's event time is its record's timestamp. Each (partition, input) has its own watermark: the highest
 * timestamp read from it minus {@link KafkaJoinConfig#watermarkDelayMillis()}; the join watermark of
 * {@code p} is the lower of its two inputs'. An input partition without a record for
 * {@link KafkaJoinConfig#idleTimeoutMillis()} is marked idle and stops holding the join watermark back until
 * its next record.
 *
 * <h2>Output</h2>
 * Each result is a record of the output topic (in its partition {@code p} when it has as many partitions as
 * the inputs, else partitioned by key), with the result's event time as timestamp and its {@link Provenance}
 * in headers. Delivery is at least once (exactly once with {@link KafkaJoinConfig#exactlyOnce()}, below):
 * the producer ({@code acks=all}, idempotent) is flushed before each
 * checkpoint, so everything a checkpoint covers was acknowledged before its offsets are committed; after a
 * failover the new owner replays from the last checkpoint and writes those results again. The input change
 * kind is {@code +I} unless the record has a {@code junction.kind} header ({@code +I}, {@code -U},
 * {@code +U}, {@code -D}).
 *
 * <h2>Exactly-once output</h2>
 * With {@link KafkaJoinConfig#exactlyOnce()} the producer is transactional ({@code transactional.id} =
 * the group id, a dash and a random UUID per runner: fencing of zombies is by the consumer group
 * metadata passed to {@code sendOffsetsToTransaction}, KIP-447, so per-instance ids are right) and the
 * outputs, the input offsets and the checkpoints move together, once per
 * {@link KafkaJoinConfig#checkpointInterval()} (and on revocation, and at close): the consumer thread stops
 * publishing, checkpoints every partition it serves and waits for all (each checkpoint flushes the producer
 * first), then sends the offsets of every served partition's two inputs into the transaction with the
 * consumer's group metadata and commits it, and begins the next. No separate offset commit. The offsets
 * carry a token of the commit in their metadata, and the checkpoint's positions are the two offsets and that
 * token; on assignment a partition is taken over at exactly the checkpoint whose positions are the committed
 * ones ({@link JoinEngine#takeOverPartition(int, long[])}), not at the newest: a newer checkpoint was written
 * by an owner that died before its commit, and its outputs are not visible. A partition never committed
 * starts empty from its inputs' beginning. When partitions are lost (the member's session lapsed), the open
 * transaction is aborted, after the lost partitions are dropped and what they still had queued was sent into
 * it, and the other partitions the member served are taken over again at their committed checkpoints too
 * (their uncommitted outputs went with the abort). A killed member's open transaction is aborted by the
 * transaction coordinator after {@code transaction.timeout.ms} or fenced; either way its outputs never
 * become visible to {@code read_committed} consumers. A failed commit (fenced, a stale group generation, a
 * timeout) or checkpoint stops {@link #run()} with a {@link KafkaJoinException}, the transaction aborted
 * where the producer still can. What it covers: the output topic's committed content is one run's changelog
 * of the join, each result exactly once, however members fail or move partitions, provided consumers read
 * it with {@code isolation.level=read_committed}. Its cost: outputs become visible only at each commit (up
 * to a checkpoint interval of latency), and the consumer thread waits for each cycle.
 *
 * <h2>Errors</h2>
 * Records that cannot be decoded or that the engine refuses, and rows the join does not process (late rows),
 * are counted dead letters ({@link KafkaDeadLetterHandler}), never a crash. Missing or non-co-partitioned
 * topics, an unreachable cluster at start, a topic deleted while running, an output that could not be
 * written and a failed checkpoint stop {@link #run()} with a {@link KafkaJoinException}.
 *
 * <h2>Threads</h2>
 * {@link #run()} runs the consumer on the calling thread, which is the engine's single producer (rows,
 * watermarks, idleness, checkpoints and take-overs all go from it); the engine's partition threads encode
 * and send the results. {@link #close()} may be called from any thread; the metrics getters too.
 *
 * <h2>Parts</h2>
 * The runner starts the clients and the engine, runs the poll loop and shuts down; its package-private parts
 * do the rest: {@code TopicLayout} (the topics, their checks at the start and the metadata watch),
 * {@code ServedPartition} and {@code InputPartition} (what this member serves, with watermarks and idleness),
 * {@code RecordIngest} (records into the engine), {@code CommitPolicy} ({@code AtLeastOnceCommits} or
 * {@code TransactionalCommits}: checkpoints, then commits), {@code GroupRebalance} (revocation, assignment,
 * loss), {@code ResultSink} (results out, on the partition threads), {@code Steps} (the step codec),
 * {@code KafkaJoinRunnerBean} (the counters and their MXBean) and {@code RunnerFailure} (the first fatal error).
 */
public final class KafkaJoinRunner implements AutoCloseable
{
    /** Header of an input record naming its change kind; absent: {@code +I}. */
    public static final String INPUT_KIND_HEADER = "junction.kind";

    /** The runner's log, which its parts write to as well. */
    static final System.Logger LOG = System.getLogger(KafkaJoinRunner.class.getName());
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final Duration CLIENT_CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /** Numbers the engines of this JVM's runners, whose names (and JMX beans) must differ. */
    private static final AtomicLong INSTANCES = new AtomicLong();

    private final KafkaJoinConfig config;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final RunnerFailure failure = new RunnerFailure();
    /** The counters, read by anyone; registered as the runner's MXBean while the engine runs. */
    private final KafkaJoinRunnerBean counters = new KafkaJoinRunnerBean();
    private volatile boolean closeRequested;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Thread runThread;

    // The consumer thread's own state, set up by run(): not thread safe, touched by that thread only.
    private Admin admin;
    private KafkaProducer<byte[], byte[]> producer;
    private JoinEngine engine;
    private Publisher publisher;
    private TopicLayout layout;
    private ServedPartition[] partitions;
    private CommitPolicy commits;
    private GroupRebalance rebalance;
    private RecordIngest ingest;

    /**
     * A runner; nothing connects until {@link #run()}.
     *
     * @param config what to join and how.
     */
    public KafkaJoinRunner(final KafkaJoinConfig config)
    {
        if (config == null)
        {
            throw new IllegalArgumentException("config is required");
        }
        this.config = config;
    }

    /** @return the configuration. */
    public KafkaJoinConfig config()
    {
        return config;
    }

    /**
     * Checks the topics, starts the engine and consumes until {@link #close()} or a fatal error: blocks the
     * calling thread, which becomes the group member's consumer thread. Once.
     *
     * @throws KafkaJoinException when the topics are missing or not co-partitioned, the cluster does not
     *         answer within {@link KafkaJoinConfig#startTimeout()}, or the runner cannot go on (a topic
     *         deleted, an output not written, a checkpoint failed); the message says which.
     * @throws IllegalStateException when called a second time.
     */
    public void run()
    {
        if (!started.compareAndSet(false, true))
        {
            throw new IllegalStateException("run() is called once per runner");
        }
        runThread = Thread.currentThread();
        try
        {
            if (!closeRequested)
            {
                start();
                loop();
            }
        }
        catch (final WakeupException e)
        {
            // close() woke a blocking call of the start: the loop's exit below does the rest.
        }
        catch (final KafkaJoinException e)
        {
            failure.record(e);
        }
        catch (final RuntimeException e)
        {
            failure.record(new KafkaJoinException("the runner failed: " + e, e));
        }
        finally
        {
            try
            {
                shutDown();
            }
            finally
            {
                finished.countDown();
            }
        }
        final KafkaJoinException error = failure.error();
        if (error != null)
        {
            throw error;
        }
    }

    /**
     * Stops {@link #run()}: the consumer thread takes a last checkpoint of each partition it serves, commits
     * their offsets, leaves the group and returns. From another thread this waits (up to a minute) until
     * {@code run()} has returned. Idempotent.
     */
    @Override
    public void close()
    {
        closeRequested = true;
        final KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null)
        {
            c.wakeup();
        }
        if (started.get() && Thread.currentThread() != runThread)
        {
            try
            {
                if (!finished.await(60, TimeUnit.SECONDS))
                {
                    LOG.log(System.Logger.Level.WARNING, "the runner's consumer thread did not stop within 60 s");
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return input records read and handled (published or dead-lettered). */
    public long recordsConsumed()
    {
        return counters.getRecordsConsumed();
    }

    /** @return output records the cluster acknowledged. */
    public long outputsProduced()
    {
        return counters.getOutputsProduced();
    }

    /** @return dead letters: records not decoded or refused, and rows the join did not process. */
    public long deadLetters()
    {
        return counters.getDeadLetters();
    }

    /**
     * @return of {@link #deadLetters()}, the records dead-lettered {@code MISROUTED}: a null key, or one that is
     *         not the row's join key under {@link KafkaJoinConfig#inputKeys()}.
     */
    public long misrouted()
    {
        return counters.getMisrouted();
    }

    /** @return partition checkpoints completed by this member. */
    public long checkpoints()
    {
        return counters.getCheckpoints();
    }

    /** @return offset commits this member made after a checkpoint (periodic, at revocation and at close). */
    public long commits()
    {
        return counters.getCommits();
    }

    /** @return take-overs of a partition that restored a checkpoint (another member's, or this one's own earlier). */
    public long partitionsRestored()
    {
        return counters.getPartitionsRestored();
    }

    /** @return the partitions this member serves now (holding both inputs). */
    public int servedPartitions()
    {
        return counters.getServedPartitions();
    }

    /** @return the input topics' partition count, or -1 before the start has described them. */
    public int partitions()
    {
        return counters.getPartitions();
    }

    /**
     * @param engineName the runner's engine's name.
     * @return the name of the runner's {@link KafkaJoinRunnerMXBean}: {@code io.junction:type=KafkaJoinRunner,name=<engine name>}.
     */
    public static ObjectName mbeanName(final String engineName)
    {
        try
        {
            // Quoted only when needed, as the engine's own beans are (EngineBeans).
            final String quoted = engineName.matches("[A-Za-z0-9._\\-]+") ? engineName : ObjectName.quote(engineName);
            return new ObjectName("io.junction:type=KafkaJoinRunner,name=" + quoted);
        }
        catch (final MalformedObjectNameException e)
        {
            throw new IllegalArgumentException("no JMX name for engine " + engineName + ": " + e.getMessage(), e);
        }
    }

    /** @return the name this runner's {@link KafkaJoinRunnerMXBean} is registered under while it runs; null before its engine starts. */
    public ObjectName mbeanName()
    {
        return counters.name();
    }

    // ------------------------------------------------------------------------------------------ start

    private Map<String, Object> clientProperties()
    {
        final Map<String, Object> props = new HashMap<>(config.clientProperties());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        return props;
    }

    private void start()
    {
        layout = new TopicLayout(config, failure);
        final Map<String, Object> adminProps = clientProperties();
        final int timeoutMillis = (int)Math.min(Integer.MAX_VALUE, config.startTimeout().toMillis());
        adminProps.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMillis);
        adminProps.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeoutMillis, 30_000));
        admin = Admin.create(adminProps);
        layout.connect(admin);
        counters.partitionCount = layout.partitions();
        partitions = ServedPartition.table(layout, failure);
        commits = CommitPolicy.of(config, layout, partitions, counters, failure);
        // The producer first: the partition threads send through it from their first result.
        startProducer();
        startEngine();
        startConsumer();
        LOG.log(System.Logger.Level.INFO, "joining " + String.join(" x ", layout.inputTopics()) + " -> " +
            config.outputTopic() + " over " + layout.partitions() + " partitions as a member of group " + config.groupId());
    }

    private void startProducer()
    {
        final Map<String, Object> props = clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        producer = commits.startProducer(props);
    }

    private void startEngine()
    {
        final ResultSink sink = new ResultSink(config, layout, partitions, producer, counters, failure);
        final EngineConfig engineConfig = config.engineConfig()
            .withPartitions(layout.partitions())
            .withStateRoot(config.stateDir())
            .withCheckpointRoot(config.checkpointDir());
        engine = JoinEngine.builder(config.spec())
            .name(config.engineName() != null ? config.engineName() : "kafka-" + config.groupId() + "-" + INSTANCES.incrementAndGet())
            .config(engineConfig)
            .resultHandlers(sink::results)
            .deadLetterHandlers(sink::deadLetters)
            .beforeCheckpoint(sink::beforeCheckpoint)
            .start();
        publisher = engine.publisher();
        counters.register(engine.name());
    }

    private void startConsumer()
    {
        final Map<String, Object> props = clientProperties();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        final KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer = c;
        rebalance = new GroupRebalance(config, layout, partitions, commits, engine, c, counters, failure,
            () -> closeRequested = true);
        ingest = new RecordIngest(config, layout, partitions, publisher, counters, failure);
        c.subscribe(layout.inputTopics(), rebalance);
        if (closeRequested)
        {
            // close() may have looked before the consumer existed.
            c.wakeup();
        }
        final long now = System.nanoTime();
        commits.start(engine, c, now);
        layout.watchFrom(now);
    }

    // ------------------------------------------------------------------------------------------ loop

    private void loop()
    {
        while (!closeRequested && !failure.failed())
        {
            final ConsumerRecords<byte[], byte[]> records;
            try
            {
                records = consumer.poll(POLL_TIMEOUT);
            }
            catch (final WakeupException e)
            {
                continue;
            }
            final long now = System.nanoTime();
            for (final ConsumerRecord<byte[], byte[]> record : records)
            {
                if (failure.failed())
                {
                    break;
                }
                ingest.onRecord(record, now);
            }
            publishWatermarks();
            markIdle(now);
            commits.afterPoll(now);
            layout.checkMetadata(now);
        }
    }

    /** After each poll: the watermark of each (partition, input) that advanced. */
    private void publishWatermarks()
    {
        final long delay = config.watermarkDelayMillis();
        for (final ServedPartition partition : partitions)
        {
            partition.publishWatermarks(publisher, delay);
        }
    }

    /** After each poll: an idleness mark for each (partition, input) silent for the idle timeout. */
    private void markIdle(final long now)
    {
        final long timeout = TimeUnit.MILLISECONDS.toNanos(config.idleTimeoutMillis());
        if (timeout == 0)
        {
            return;
        }
        for (final ServedPartition partition : partitions)
        {
            partition.markIdle(publisher, consumer, now, timeout);
        }
    }

    // ------------------------------------------------------------------------------------------ shutdown

    private void shutDown()
    {
        if (consumer != null && !failure.failed())
        {
            // A clean close: a last checkpoint and commit of each served partition, so nothing is replayed.
            commits.commitAtClose();
        }
        if (rebalance != null)
        {
            rebalance.stop();
        }
        counters.servedPartitions = 0;
        if (consumer != null)
        {
            closeQuietly(() -> consumer.close(CloseOptions.timeout(CLIENT_CLOSE_TIMEOUT)), "consumer");
        }
        if (engine != null)
        {
            // Before the producer: whatever the rings still hold is joined and sent.
            closeQuietly(engine::close, "engine");
        }
        if (producer != null)
        {
            commits.afterEngineClosed();
            closeQuietly(() -> producer.close(CLIENT_CLOSE_TIMEOUT), "producer");
        }
        if (admin != null)
        {
            closeQuietly(() -> admin.close(CLIENT_CLOSE_TIMEOUT), "admin client");
        }
        counters.unregister();
    }

    private static void closeQuietly(final Runnable close, final String what)
    {
        try
        {
            close.run();
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "closing the " + what + " failed: " + e);
        }
    }

    @Override
    public String toString()
    {
        return "KafkaJoinRunner[" + config.groupId() + ": " + String.join(" x ", config.inputTopics()) + " -> " +
            config.outputTopic() + ", " + counters.servedPartitions + " of " + counters.partitionCount + " partitions served]";
    }
}
