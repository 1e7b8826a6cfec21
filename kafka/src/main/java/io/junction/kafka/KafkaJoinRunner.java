package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.ResultHandler;
import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Side;
import io.junction.runtime.CompletedCheckpoint;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import javax.management.JMException;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import io.junction.api.Schema;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.concurrent.CompletionException;

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
 * A multi-way join ({@link JoinKind#MULTI}, SEMANTICS 10) reads N co-partitioned topics, named in the spec's input
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
 */
public final class KafkaJoinRunner implements AutoCloseable
{
    /** Header of an input record naming its change kind; absent: {@code +I}. */
    public static final String INPUT_KIND_HEADER = "junction.kind";
    private static final int MAX_UNDECODABLE_WARNINGS = 10;

    private static final System.Logger LOG = System.getLogger(KafkaJoinRunner.class.getName());
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final long ENGINE_WAIT_SECONDS = 120;
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLIENT_CLOSE_TIMEOUT = Duration.ofSeconds(10);
    private static final long NONE = Long.MIN_VALUE;
    private static final byte[][] KIND_BYTES = kindBytes();
    /** Numbers the engines of this JVM's runners, whose names (and JMX beans) must differ. */
    private static final AtomicLong INSTANCES = new AtomicLong();

    private final KafkaJoinConfig config;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final AtomicReference<KafkaJoinException> fatal = new AtomicReference<>();
    private volatile boolean closeRequested;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile Thread runThread;

    // Metrics: written by the consumer thread (or the producer's callbacks), read by anyone.
    private final AtomicLong recordsConsumed = new AtomicLong();
    private final LongAdder outputsProduced = new LongAdder();
    private final LongAdder deadLetters = new LongAdder();
    private final LongAdder misrouted = new LongAdder();
    private final AtomicLong checkpoints = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong restored = new AtomicLong();
    private volatile int servedPartitions;
    private volatile int partitionCount = -1;
    /** The runner's JMX bean's name while it is registered (from the engine's start to the shut-down). */
    private volatile ObjectName bean;

    // The consumer thread's own state, set up by run(): not thread safe, touched by that thread only.
    private Admin admin;
    private KafkaProducer<byte[], byte[]> producer;
    private JoinEngine engine;
    private Publisher publisher;
    private int partitions;
    private boolean sameOutputPartitions;
    /** The inputs: 2 for the binary kinds (left, right), the spec's input count for a multi-way join. */
    private int n;
    /** A multi-way join: rows, watermarks and idleness go through the publisher's input-indexed calls. */
    private boolean multi;
    /** The input topics, in the engine's input order. */
    private String[] topics;
    /** Per input, per partition. */
    private TopicPartition[][] inputPartitions;
    /** The provenance side of each input ({@code [0, n)}) and of its watermarks ({@code [n, 2n)}). */
    private byte[][] sideBytes;
    /** Per (partition, input), index {@code n * p + input}. */
    private boolean[] held;
    private long[] nextOffset;
    private long[] maxTimestamp;
    private long[] maxTimestampStep;
    private long[] sentWatermark;
    private long[] lastRecordNanos;
    private boolean[] idle;
    /** Per partition. */
    private boolean[] served;
    private boolean[] parked;
    private long[] lastStep;
    /** Exactly-once: the producer is transactional and each commit cycle is one transaction. */
    private boolean transactional;
    /** Exactly-once: a transaction is open (begun and neither committed nor aborted). */
    private boolean inTransaction;
    /** The periodic checkpoint under way per partition, or null. */
    private PendingCheckpoint[] pendingCheckpoint;
    private int parkedGeneration = -1;
    /** Warnings given for undecodable records so far (consumer thread only). */
    private int undecodableWarnings;
    private long nextCheckpointNanos;
    private long nextMetadataCheckNanos;
    private Map<String, KafkaFuture<TopicDescription>> pendingMetadata;
    private boolean stopping;
    private final UnsafeBuffer decoded = new UnsafeBuffer(ByteBuffer.allocateDirect(RowFormat.MAX_ROW_LENGTH));
    private final UnsafeBuffer wrapped = new UnsafeBuffer(new byte[0]);
    /** The record's row, to read its join key from (the consumer thread's). */
    private final RowView keySource = new RowView();
    /** The join key the record's key should be, in {@link KafkaJoinConfig.InputKeys#BINARY_KEY_ROW}: reused. */
    private final byte[] expectedKey = new byte[RowFormat.MAX_ROW_LENGTH];
    private final UnsafeBuffer expectedKeyBuffer = new UnsafeBuffer(expectedKey);
    private final RowWriter keyWriter = new RowWriter();
    /** Per input, its join-key fields' indexes in its schema. */
    private int[][] keyFields;

    /** Bumped by the consumer thread on each take-over of a partition: its sink restarts its ordinals. */
    private AtomicIntegerArray epochs;
    /** The first failed send per partition, checked before that partition's next checkpoint. */
    private AtomicReferenceArray<Exception> sendErrors;

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
            fatal.compareAndSet(null, e);
        }
        catch (final RuntimeException e)
        {
            fatal.compareAndSet(null, new KafkaJoinException("the runner failed: " + e, e));
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
        final KafkaJoinException error = fatal.get();
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
        return recordsConsumed.get();
    }

    /** @return output records the cluster acknowledged. */
    public long outputsProduced()
    {
        return outputsProduced.sum();
    }

    /** @return dead letters: records not decoded or refused, and rows the join did not process. */
    public long deadLetters()
    {
        return deadLetters.sum();
    }

    /**
     * @return of {@link #deadLetters()}, the records dead-lettered {@code MISROUTED}: a null key, or one that is
     *         not the row's join key under {@link KafkaJoinConfig#inputKeys()}.
     */
    public long misrouted()
    {
        return misrouted.sum();
    }

    /** @return partition checkpoints completed by this member. */
    public long checkpoints()
    {
        return checkpoints.get();
    }

    /** @return offset commits this member made after a checkpoint (periodic, at revocation and at close). */
    public long commits()
    {
        return commits.get();
    }

    /** @return take-overs of a partition that restored a checkpoint (another member's, or this one's own earlier). */
    public long partitionsRestored()
    {
        return restored.get();
    }

    /** @return the partitions this member serves now (holding both inputs). */
    public int servedPartitions()
    {
        return servedPartitions;
    }

    /** @return the input topics' partition count, or -1 before the start has described them. */
    public int partitions()
    {
        return partitionCount;
    }

    // ------------------------------------------------------------------------------------------ start

    private Map<String, Object> clientProperties()
    {
        final Map<String, Object> props = new HashMap<>(config.clientProperties());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        return props;
    }

    /** The spec against the configured inputs, before anything connects: a clear error for each mismatch. */
    private void checkInputs()
    {
        final boolean multiSpec = config.spec().kind() == JoinKind.MULTI;
        final List<String> inputs = config.inputTopics();
        if (config.hasInputList() && !multiSpec)
        {
            throw new KafkaJoinException("inputs " + inputs + " are for a multi-way join (JoinKind.MULTI); a " +
                config.spec().kind() + " join reads a leftTopic and a rightTopic");
        }
        if (multiSpec && config.spec().multi().inputs() != inputs.size())
        {
            throw new KafkaJoinException("the multi-way join has " + config.spec().multi().inputs() + " inputs " +
                config.spec().multi().names() + " but " + inputs.size() + " input topics are configured " + inputs +
                ": give one topic per input, in the spec's order (KafkaJoinConfig.Builder.inputs)");
        }
        multi = multiSpec;
        n = inputs.size();
        topics = inputs.toArray(new String[0]);
        sideBytes = new byte[2 * n][];
        for (int s = 0; s < n; s++)
        {
            final String name = multi ? config.spec().multi().names().get(s) : s == 0 ? "L" : "R";
            sideBytes[s] = name.getBytes(StandardCharsets.UTF_8);
            sideBytes[n + s] = ((multi ? Provenance.MULTI_WATERMARK_PREFIX : "W") + name).getBytes(StandardCharsets.UTF_8);
        }
        keyFields = new int[n][];
        for (int s = 0; s < n; s++)
        {
            final List<String> fields = multi ? config.spec().multi().key(s) : (s == 0 ? config.spec().leftKey() : config.spec().rightKey());
            final Schema schema = multi ? config.spec().multi().schema(s) : config.spec().schema(side(s));
            keyFields[s] = new int[fields.size()];
            for (int f = 0; f < fields.size(); f++)
            {
                keyFields[s][f] = schema.indexOf(fields.get(f));
            }
        }
    }

    private void start()
    {
        checkInputs();
        final Map<String, Object> adminProps = clientProperties();
        final int timeoutMillis = (int)Math.min(Integer.MAX_VALUE, config.startTimeout().toMillis());
        adminProps.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMillis);
        adminProps.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeoutMillis, 30_000));
        admin = Admin.create(adminProps);
        final Map<String, TopicDescription> topics = describeTopics(config.startTimeout().toNanos());
        final int left = topics.get(this.topics[0]).partitions().size();
        final int output = topics.get(config.outputTopic()).partitions().size();
        for (int s = 1; s < n; s++)
        {
            final int count = topics.get(this.topics[s]).partitions().size();
            if (count == left)
            {
                continue;
            }
            if (!multi)
            {
                throw new KafkaJoinException("the input topics are not co-partitioned: left topic '" + config.leftTopic() +
                    "' has " + left + " partitions, right topic '" + config.rightTopic() + "' has " + count + "; both must " +
                    "have the same partition count and be keyed by the join key with the same partitioner");
            }
            throw new KafkaJoinException("the input topics are not co-partitioned: topic '" + this.topics[0] + "' (input " +
                inputName(0) + ") has " + left + " partitions, topic '" + this.topics[s] + "' (input " + inputName(s) +
                ") has " + count + "; every input topic must have the same partition count and be keyed by the common " +
                "key with the same partitioner");
        }
        partitions = left;
        partitionCount = left;
        sameOutputPartitions = output == partitions;
        allocate();
        // The producer first: the partition threads send through it from their first result.
        startProducer();
        startEngine();
        startConsumer();
        LOG.log(System.Logger.Level.INFO, "joining " + String.join(" x ", this.topics) + " -> " +
            config.outputTopic() + " over " + partitions + " partitions as a member of group " + config.groupId());
    }

    private String inputName(final int s)
    {
        return multi ? config.spec().multi().names().get(s) : s == 0 ? "left" : "right";
    }

    /** The input topics and the output topic. */
    private List<String> allTopics()
    {
        final List<String> names = new ArrayList<>(Arrays.asList(topics));
        names.add(config.outputTopic());
        return names;
    }

    /** The index of an input topic, or -1. */
    private int inputOf(final String topic)
    {
        for (int s = 0; s < n; s++)
        {
            if (topics[s].equals(topic))
            {
                return s;
            }
        }
        return -1;
    }

    /** Describes the input and output topics, waiting at most {@code timeoutNanos}; a clear error for each way it fails. */
    private Map<String, TopicDescription> describeTopics(final long timeoutNanos)
    {
        final long deadline = System.nanoTime() + timeoutNanos;
        final List<String> names = allTopics();
        final Map<String, KafkaFuture<TopicDescription>> futures = admin.describeTopics(names).topicNameValues();
        final Map<String, TopicDescription> described = new HashMap<>();
        for (final String name : names)
        {
            try
            {
                described.put(name, futures.get(name).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            }
            catch (final ExecutionException e)
            {
                if (e.getCause() instanceof UnknownTopicOrPartitionException)
                {
                    throw new KafkaJoinException("topic '" + name + "' does not exist on " + config.bootstrapServers() +
                        ": create the " + role(name) + " topic first", e.getCause());
                }
                if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException)
                {
                    throw unreachable(e.getCause());
                }
                throw new KafkaJoinException("could not describe topic '" + name + "': " + e.getCause(), e.getCause());
            }
            catch (final TimeoutException e)
            {
                throw unreachable(e);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new KafkaJoinException("interrupted while describing the topics", e);
            }
        }
        return described;
    }

    private KafkaJoinException unreachable(final Throwable cause)
    {
        return new KafkaJoinException("the Kafka cluster at " + config.bootstrapServers() + " did not describe the topics within " +
            config.startTimeout().toMillis() + " ms: is it reachable?", cause);
    }

    private String role(final String topic)
    {
        final int s = inputOf(topic);
        if (s < 0)
        {
            return "output";
        }
        return multi ? "input '" + inputName(s) + "'" : s == 0 ? "left input" : "right input";
    }

    private void allocate()
    {
        final int sides = partitions * n;
        inputPartitions = new TopicPartition[n][partitions];
        for (int s = 0; s < n; s++)
        {
            for (int p = 0; p < partitions; p++)
            {
                inputPartitions[s][p] = new TopicPartition(topics[s], p);
            }
        }
        held = new boolean[sides];
        nextOffset = new long[sides];
        maxTimestamp = new long[sides];
        maxTimestampStep = new long[sides];
        sentWatermark = new long[sides];
        lastRecordNanos = new long[sides];
        idle = new boolean[sides];
        served = new boolean[partitions];
        parked = new boolean[partitions];
        lastStep = new long[partitions];
        pendingCheckpoint = new PendingCheckpoint[partitions];
        epochs = new AtomicIntegerArray(partitions);
        sendErrors = new AtomicReferenceArray<>(partitions);
    }

    private void startEngine()
    {
        final EngineConfig engineConfig = config.engineConfig()
            .withPartitions(partitions)
            .withStateRoot(config.stateDir())
            .withCheckpointRoot(config.checkpointDir());
        engine = JoinEngine.builder(config.spec())
            .name(config.engineName() != null ? config.engineName() : "kafka-" + config.groupId() + "-" + INSTANCES.incrementAndGet())
            .config(engineConfig)
            .resultHandlers(PartitionSink::new)
            .deadLetterHandlers(this::engineDeadLetters)
            .beforeCheckpoint(this::beforeCheckpoint)
            .start();
        publisher = engine.publisher();
        registerBean(engine.name());
    }

    /** The MXBean over this runner's counters; the runner itself keeps its public API free of JMX getters. */
    private static final class RunnerBean implements KafkaJoinRunnerMXBean
    {
        private final KafkaJoinRunner runner;

        RunnerBean(final KafkaJoinRunner runner)
        {
            this.runner = runner;
        }

        @Override
        public long getRecordsConsumed()
        {
            return runner.recordsConsumed();
        }

        @Override
        public long getOutputsProduced()
        {
            return runner.outputsProduced();
        }

        @Override
        public long getDeadLetters()
        {
            return runner.deadLetters();
        }

        @Override
        public long getMisrouted()
        {
            return runner.misrouted();
        }

        @Override
        public long getCheckpoints()
        {
            return runner.checkpoints();
        }

        @Override
        public long getCommits()
        {
            return runner.commits();
        }

        @Override
        public long getPartitionsRestored()
        {
            return runner.partitionsRestored();
        }

        @Override
        public int getServedPartitions()
        {
            return runner.servedPartitions();
        }

        @Override
        public int getPartitions()
        {
            return runner.partitions();
        }
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
        return bean;
    }

    /** Registers the runner's bean; a failure is logged: monitoring must not stop a runner. */
    private void registerBean(final String engineName)
    {
        final ObjectName name = mbeanName(engineName);
        try
        {
            ManagementFactory.getPlatformMBeanServer().registerMBean(new RunnerBean(this), name);
            bean = name;
        }
        catch (final JMException | RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "could not register JMX bean " + name + "; the runner runs without it", e);
        }
    }

    private void unregisterBean()
    {
        final ObjectName name = bean;
        if (name == null)
        {
            return;
        }
        try
        {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        }
        catch (final JMException | RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "could not unregister JMX bean " + name, e);
        }
    }

    private void startProducer()
    {
        final Map<String, Object> props = clientProperties();
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        transactional = config.exactlyOnce();
        if (transactional)
        {
            // Per instance: zombies are fenced by the group metadata sent with the offsets (KIP-447), not by the id.
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.groupId() + "-" + UUID.randomUUID());
        }
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        if (transactional)
        {
            try
            {
                producer.initTransactions();
                // Before the engine starts: the partition threads send into it from their first result.
                producer.beginTransaction();
                inTransaction = true;
            }
            catch (final KafkaException e)
            {
                throw new KafkaJoinException("the transactional producer could not start (exactly-once needs a cluster " +
                    "with transactions): " + e, e);
            }
        }
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
        c.subscribe(Arrays.asList(topics), new Rebalance());
        if (closeRequested)
        {
            // close() may have looked before the consumer existed.
            c.wakeup();
        }
        final long now = System.nanoTime();
        nextCheckpointNanos = now + config.checkpointInterval().toNanos();
        nextMetadataCheckNanos = now + config.metadataCheckInterval().toNanos();
    }

    // ------------------------------------------------------------------------------------------ loop

    private void loop()
    {
        while (!closeRequested && fatal.get() == null)
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
                if (fatal.get() != null)
                {
                    break;
                }
                onRecord(record, now);
            }
            publishWatermarks();
            markIdle(now);
            if (transactional)
            {
                if (now - nextCheckpointNanos >= 0 && fatal.get() == null)
                {
                    commitCycle(true);
                    nextCheckpointNanos = System.nanoTime() + config.checkpointInterval().toNanos();
                }
            }
            else
            {
                completeCheckpoints();
                if (now - nextCheckpointNanos >= 0)
                {
                    nextCheckpointNanos = now + config.checkpointInterval().toNanos();
                    requestCheckpoints();
                }
            }
            checkMetadata(now);
        }
    }

    private void onRecord(final ConsumerRecord<byte[], byte[]> record, final long now)
    {
        final int p = record.partition();
        final int s = inputOf(record.topic());
        if (s < 0 || p >= partitions || !served[p])
        {
            // Fetched before its partition left this member: its next owner reads it from the checkpoint.
            return;
        }
        final int i = n * p + s;
        final long offset = record.offset();
        // The binary kinds' (offset << 1) | side when n is 2.
        final long step = offset * n + s;
        final long ts = record.timestamp();
        nextOffset[i] = offset + 1;
        lastStep[p] = step;
        lastRecordNanos[i] = now;
        idle[i] = false;
        recordsConsumed.lazySet(recordsConsumed.get() + 1);

        final byte[] value = record.value();
        final ChangeKind kind = kindOf(record);
        if (value == null)
        {
            deadLetter(p, s, offset, ts, DeadLetterReason.MALFORMED_ROW);
            return;
        }
        if (kind == null)
        {
            // The header, not the value, is what cannot be read: say so, and what it holds.
            warnUndecodable(record, badKindHeader(record.headers().lastHeader(INPUT_KIND_HEADER).value()));
            deadLetter(p, s, offset, ts, DeadLetterReason.UNDECODABLE_VALUE);
            return;
        }
        final RowDecoder decoder = config.inputDecoder(s);
        final UnsafeBuffer row;
        final int length;
        if (decoder == RowDecoder.binary())
        {
            wrapped.wrap(value);
            row = wrapped;
            length = value.length;
        }
        else
        {
            row = decoded;
            length = decoder.decode(value, decoded);
        }
        if (length < 0)
        {
            warnUndecodable(record, decoder.lastError());
            deadLetter(p, s, offset, ts, length == RowDecoder.UNDECODABLE ? DeadLetterReason.UNDECODABLE_VALUE
                : length == RowDecoder.TOO_LARGE ? DeadLetterReason.ROW_TOO_LARGE : DeadLetterReason.MALFORMED_ROW);
            return;
        }
        if (!keyMatches(s, record.key(), row, length))
        {
            misrouted.increment();
            deadLetter(p, s, offset, ts, DeadLetterReason.MISROUTED);
            return;
        }
        final int result = multi ? publisher.publishInput(p, s, kind, row, 0, length, ts, step, System.nanoTime()) :
            publisher.publish(p, side(s), kind, row, 0, length, ts, step, System.nanoTime());
        switch (result)
        {
            case Publisher.PUBLISHED:
                if (ts > maxTimestamp[i])
                {
                    maxTimestamp[i] = ts;
                    maxTimestampStep[i] = step;
                }
                break;
            case Publisher.ROW_TOO_LARGE:
                deadLetter(p, s, offset, ts, DeadLetterReason.ROW_TOO_LARGE);
                break;
            case Publisher.MALFORMED_ROW:
            case Publisher.INVALID_ARGUMENT:
                deadLetter(p, s, offset, ts, DeadLetterReason.MALFORMED_ROW);
                break;
            case Publisher.SCHEMA_MISMATCH:
                deadLetter(p, s, offset, ts, DeadLetterReason.SCHEMA_MISMATCH);
                break;
            case Publisher.CLOSED:
                fail(new KafkaJoinException("the engine closed under the runner"));
                break;
            case Publisher.PARTITION_FAILED:
                fail(new KafkaJoinException("engine partition " + p + " failed (see the engine's error log): the runner stops; " +
                    "its partitions restart from their last checkpoints on the group's other members or a restart"));
                break;
            default:
                fail(new KafkaJoinException("the engine answered " + result + " to a publish of partition " + p));
                break;
        }
    }

    /**
     * Whether a record's key is its row's join key under {@link KafkaJoinConfig#inputKeys()}: never for a null
     * key; in {@code BINARY_KEY_ROW}, when the key's bytes equal the binary row of the row's key fields, written
     * into a reused buffer (no allocation). A row that is not well formed passes here: the publisher refuses it.
     */
    private boolean keyMatches(final int s, final byte[] key, final UnsafeBuffer row, final int length)
    {
        if (key == null)
        {
            return false;
        }
        if (config.inputKeys() == KafkaJoinConfig.InputKeys.ANY)
        {
            return true;
        }
        keySource.wrap(row, 0, length);
        if (keySource.validate() != null)
        {
            return true;
        }
        final int[] fields = keyFields[s];
        keyWriter.wrap(expectedKeyBuffer, 0, expectedKey.length, fields.length);
        for (int f = 0; f < fields.length; f++)
        {
            keyWriter.putField(f, keySource, fields[f]);
        }
        final int expected = keyWriter.finish();
        return expected >= 0 && Arrays.equals(expectedKey, 0, expected, key, 0, key.length);
    }

    /**
     * The first undecodable records get a warning that says why (the JSON parser's message, the bad header), beside
     * their dead letter's reason; later ones are only counted, as the dead-letter log samples too.
     */
    private void warnUndecodable(final ConsumerRecord<byte[], byte[]> record, final String why)
    {
        if (why != null && undecodableWarnings < MAX_UNDECODABLE_WARNINGS)
        {
            undecodableWarnings++;
            LOG.log(System.Logger.Level.WARNING, "undecodable record " + record.topic() + "-" + record.partition() + "@" +
                record.offset() + ": " + why);
        }
    }

    /** @return what is wrong with a {@link #INPUT_KIND_HEADER} value that is no change kind, naming the value */
    static String badKindHeader(final byte[] value)
    {
        if (value == null)
        {
            return "its " + INPUT_KIND_HEADER + " header has no value, not one of +I, -U, +U or -D";
        }
        final String text = new String(value, 0, Math.min(value.length, 32), StandardCharsets.UTF_8);
        return "its " + INPUT_KIND_HEADER + " header is \"" + text + (value.length > 32 ? "..." : "") +
            "\", not one of +I, -U, +U or -D";
    }

    private static ChangeKind kindOf(final ConsumerRecord<byte[], byte[]> record)
    {
        final Header header = record.headers().lastHeader(INPUT_KIND_HEADER);
        if (header == null)
        {
            return ChangeKind.INSERT;
        }
        final byte[] v = header.value();
        if (v == null || v.length != 2)
        {
            return null;
        }
        for (int kind = 0; kind < KIND_BYTES.length; kind++)
        {
            final byte[] k = KIND_BYTES[kind];
            if (k[0] == v[0] && k[1] == v[1])
            {
                return ChangeKind.fromOrdinal(kind);
            }
        }
        return null;
    }

    private void deadLetter(final int p, final int s, final long offset, final long ts, final DeadLetterReason reason)
    {
        deadLetters.increment();
        try
        {
            if (multi)
            {
                config.deadLetterHandler().onMultiDeadLetter(p, s, offset, ts, reason, null);
            }
            else
            {
                config.deadLetterHandler().onDeadLetter(p, side(s), offset, ts, reason, null);
            }
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.WARNING, "the dead-letter handler threw", e);
        }
    }

    /** After each poll: the watermark of each (partition, input) that advanced, with the step of the record that advanced it. */
    private void publishWatermarks()
    {
        final long delay = config.watermarkDelayMillis();
        for (int i = 0; i < maxTimestamp.length; i++)
        {
            final long max = maxTimestamp[i];
            final int p = i / n;
            if (max == NONE || !served[p])
            {
                continue;
            }
            final long watermark = max >= NONE + delay ? max - delay : NONE;
            if (watermark > sentWatermark[i])
            {
                sentWatermark[i] = watermark;
                final int s = i % n;
                final int result = multi ? publisher.watermarkInput(p, s, watermark, ~maxTimestampStep[i]) :
                    publisher.watermark(p, side(s), watermark, ~maxTimestampStep[i]);
                checkControl(result, "watermark", p);
            }
        }
    }

    private void markIdle(final long now)
    {
        final long timeout = TimeUnit.MILLISECONDS.toNanos(config.idleTimeoutMillis());
        if (timeout == 0)
        {
            return;
        }
        for (int i = 0; i < idle.length; i++)
        {
            final int p = i / n;
            if (served[p] && !idle[i] && now - lastRecordNanos[i] >= timeout && caughtUp(i))
            {
                idle[i] = true;
                final int s = i % n;
                checkControl(multi ? publisher.idleInput(p, s, ~lastStep[p]) : publisher.idle(p, side(s), ~lastStep[p]),
                    "idleness mark", p);
            }
        }
    }

    /**
     * Whether the consumer has read input partition {@code i} to its end: only then is its silence idleness. While a
     * take-over replays, fetches may favour one input for longer than the idle timeout; marking the other idle then
     * would let the join watermark pass rows still waiting in Kafka, which would arrive late. An unknown lag (no
     * fetch answered yet) is not idleness either.
     */
    private boolean caughtUp(final int i)
    {
        final OptionalLong lag = consumer.currentLag(inputPartitions[i % n][i / n]);
        return lag.isPresent() && lag.getAsLong() == 0;
    }

    private void checkControl(final int result, final String what, final int p)
    {
        if (result == Publisher.PARTITION_FAILED)
        {
            fail(new KafkaJoinException("engine partition " + p + " failed (see the engine's error log) at a " + what));
        }
        else if (result != Publisher.PUBLISHED && result != Publisher.CLOSED)
        {
            fail(new KafkaJoinException("the engine answered " + result + " to a " + what + " of partition " + p));
        }
    }

    /** The binary kinds' side of input {@code s}. */
    private static Side side(final int s)
    {
        return s == 0 ? Side.LEFT : Side.RIGHT;
    }

    /** Whether this member holds partition {@code p} of every input topic. */
    private boolean allHeld(final int p)
    {
        for (int s = 0; s < n; s++)
        {
            if (!held[n * p + s])
            {
                return false;
            }
        }
        return true;
    }

    /** Partition {@code p} of every input topic. */
    private List<TopicPartition> inputPartitionsOf(final int p)
    {
        final List<TopicPartition> tps = new ArrayList<>(n);
        for (int s = 0; s < n; s++)
        {
            tps.add(inputPartitions[s][p]);
        }
        return tps;
    }

    /** Checkpoint positions for the log: the binary kinds' "left L, right R", a multi-way join's input=offset list. */
    private String describe(final long[] positions)
    {
        if (!multi)
        {
            return "left " + positions[0] + ", right " + positions[1];
        }
        final StringBuilder b = new StringBuilder();
        for (int s = 0; s < n; s++)
        {
            b.append(s == 0 ? "" : ", ").append(inputName(s)).append(' ').append(positions[s]);
        }
        return b.toString();
    }

    // ------------------------------------------------------------------------------------------ checkpoints

    private long[] positions(final int p)
    {
        final long[] positions = new long[n];
        System.arraycopy(nextOffset, n * p, positions, 0, n);
        return positions;
    }

    /** Prefix of the offsets' metadata in exactly-once mode, before the commit's token. */
    static final String TOKEN_PREFIX = "junction-eos ";

    /**
     * Exactly-once: one commit cycle, on the consumer thread (the only publisher, so nothing is published
     * meanwhile). Checkpoints every served partition at its two next offsets and a fresh token, waits for all
     * (each flushes the producer first), sends those offsets (the token in their metadata) into the
     * transaction with the group metadata, commits it and, unless {@code next} is false, begins the next.
     * Any failure fails the runner (the caller's shutdown aborts the transaction where it can).
     *
     * @return whether the cycle committed.
     */
    private boolean commitCycle(final boolean next)
    {
        final long token = ThreadLocalRandom.current().nextLong();
        final long[][] positions = new long[partitions][];
        final List<CompletableFuture<CompletedCheckpoint>> futures = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            if (served[p])
            {
                positions[p] = Arrays.copyOf(positions(p), n + 1);
                positions[p][n] = token;
                futures.add(engine.checkpointPartition(p, positions[p]));
            }
            else
            {
                futures.add(null);
            }
        }
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        final String metadata = TOKEN_PREFIX + token;
        try
        {
            for (int p = 0; p < partitions; p++)
            {
                if (positions[p] != null)
                {
                    await(futures.get(p), "checkpoint of partition " + p);
                    checkpoints.incrementAndGet();
                    for (int s = 0; s < n; s++)
                    {
                        offsets.put(inputPartitions[s][p], new OffsetAndMetadata(positions[p][s], metadata));
                    }
                }
            }
            if (fatal.get() != null)
            {
                // An output failed meanwhile: its transaction must not commit.
                return false;
            }
            if (!offsets.isEmpty())
            {
                producer.sendOffsetsToTransaction(offsets, groupMetadata());
            }
            producer.commitTransaction();
            inTransaction = false;
            commits.incrementAndGet();
            if (next)
            {
                producer.beginTransaction();
                inTransaction = true;
            }
            return true;
        }
        catch (final KafkaJoinException e)
        {
            fail(e);
        }
        catch (final KafkaException | IllegalStateException e)
        {
            fail(new KafkaJoinException("the exactly-once commit of " + offsets + " failed (the transaction is aborted; " +
                "the partitions restart from their committed checkpoints on the group's members): " + e, e));
        }
        return false;
    }

    private ConsumerGroupMetadata groupMetadata()
    {
        return consumer.groupMetadata();
    }

    /**
     * Exactly-once: the positions partition {@code p} was committed at (its inputs' offsets in input order and
     * the token), or null when no input was ever committed. Some committed and others not (not written by this
     * runner, which commits them all at once) counts the missing ones as their beginning offsets.
     */
    private long[] committedPositions(final int p)
    {
        final List<TopicPartition> tps = inputPartitionsOf(p);
        Map<TopicPartition, OffsetAndMetadata> committed = null;
        for (int attempt = 1; committed == null; attempt++)
        {
            try
            {
                committed = consumer.committed(new HashSet<>(tps));
            }
            catch (final org.apache.kafka.common.errors.TimeoutException e)
            {
                // Offsets sent into a transaction that is still open (its member died between sending them and
                // committing) stay unstable until the coordinator aborts it after transaction.timeout.ms, which by
                // default is as long as the consumer's default.api.timeout.ms: wait that out once more.
                if (attempt == 2)
                {
                    throw new KafkaJoinException("the committed offsets of partition " + p + " could not be read: " + e +
                        " (an open transaction's offsets stay unstable until transaction.timeout.ms aborts it)", e);
                }
            }
        }
        boolean any = false;
        boolean all = true;
        for (final TopicPartition tp : tps)
        {
            final boolean has = committed.get(tp) != null;
            any |= has;
            all &= has;
        }
        if (!any)
        {
            return null;
        }
        final Map<TopicPartition, Long> beginning = all ? Map.of() : consumer.beginningOffsets(tps);
        String token = null;
        for (final TopicPartition tp : tps)
        {
            final OffsetAndMetadata c = committed.get(tp);
            if (c != null && c.metadata() != null && c.metadata().startsWith(TOKEN_PREFIX))
            {
                token = c.metadata();
                break;
            }
        }
        final long[] positions = new long[token == null ? n : n + 1];
        for (int s = 0; s < n; s++)
        {
            final OffsetAndMetadata c = committed.get(tps.get(s));
            positions[s] = c != null ? c.offset() : beginning.get(tps.get(s));
            if (token != null && c != null && !token.equals(c.metadata()))
            {
                throw new KafkaJoinException("the committed offsets of partition " + p + " carry different commit tokens ('" +
                    token + "', '" + c.metadata() + "'): were they committed by something other than this runner?");
            }
        }
        if (token == null)
        {
            // Committed by the at-least-once mode: its checkpoints hold the offsets only.
            return positions;
        }
        try
        {
            positions[n] = Long.parseLong(token.substring(TOKEN_PREFIX.length()));
            return positions;
        }
        catch (final NumberFormatException e)
        {
            throw new KafkaJoinException("the committed offsets of partition " + p + " carry a malformed commit token '" + token +
                "'", e);
        }
    }

    /** Exactly-once: aborts the open transaction, quietly (a fenced producer cannot: the coordinator aborts it). */
    private void abortQuietly()
    {
        if (!inTransaction)
        {
            return;
        }
        inTransaction = false;
        try
        {
            producer.abortTransaction();
        }
        catch (final KafkaException | IllegalStateException e)
        {
            LOG.log(System.Logger.Level.WARNING, "aborting the transaction failed (it is aborted by the coordinator or was " +
                "fenced; its outputs never become visible to read_committed consumers): " + e);
        }
    }

    private void requestCheckpoints()
    {
        for (int p = 0; p < partitions; p++)
        {
            if (served[p] && pendingCheckpoint[p] == null)
            {
                final long[] positions = positions(p);
                pendingCheckpoint[p] = new PendingCheckpoint(engine.checkpointPartition(p, positions), positions, epochs.get(p));
            }
        }
    }

    /** Commits the offsets of each periodic checkpoint that completed, if its partition is still served as then. */
    private void completeCheckpoints()
    {
        for (int p = 0; p < partitions; p++)
        {
            final PendingCheckpoint pending = pendingCheckpoint[p];
            if (pending == null || !pending.future.isDone())
            {
                continue;
            }
            pendingCheckpoint[p] = null;
            try
            {
                pending.future.join();
                checkpoints.incrementAndGet();
            }
            catch (final RuntimeException e)
            {
                fail(new KafkaJoinException("checkpoint of partition " + p + " failed: " + causeOf(e), causeOf(e)));
                return;
            }
            if (served[p] && pending.epoch == epochs.get(p))
            {
                final Map<TopicPartition, OffsetAndMetadata> offsets = offsets(p, pending.positions);
                consumer.commitAsync(offsets, (committed, error) ->
                {
                    if (error == null)
                    {
                        commits.incrementAndGet();
                    }
                    else
                    {
                        // The checkpoint holds the positions: the next owner resumes from it either way.
                        LOG.log(System.Logger.Level.WARNING, "offset commit after a checkpoint failed: " + error);
                    }
                });
            }
        }
    }

    /** A periodic checkpoint requested, with the positions it covers and its partition's epoch then. */
    private static final class PendingCheckpoint
    {
        final CompletableFuture<CompletedCheckpoint> future;
        final long[] positions;
        final int epoch;

        PendingCheckpoint(final CompletableFuture<CompletedCheckpoint> future, final long[] positions, final int epoch)
        {
            this.future = future;
            this.positions = positions;
            this.epoch = epoch;
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> offsets(final int p, final long[] positions)
    {
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int s = 0; s < n; s++)
        {
            offsets.put(inputPartitions[s][p], new OffsetAndMetadata(positions[s]));
        }
        return offsets;
    }

    /**
     * Checkpoints the given partitions (all at once) and, once every one is complete, commits their offsets in
     * one commit, unless an input topic has gone (a commit of a deleted topic's offsets only times out).
     *
     * @return for each partition, whether its checkpoint completed.
     */
    private boolean[] checkpointAndCommit(final boolean[] which)
    {
        final boolean[] done = new boolean[partitions];
        final List<CompletableFuture<CompletedCheckpoint>> futures = new ArrayList<>();
        final long[][] positions = new long[partitions][];
        for (int p = 0; p < partitions; p++)
        {
            if (which[p])
            {
                positions[p] = positions(p);
                futures.add(engine.checkpointPartition(p, positions[p]));
            }
            else
            {
                futures.add(null);
            }
        }
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < partitions; p++)
        {
            if (!which[p])
            {
                continue;
            }
            try
            {
                await(futures.get(p), "checkpoint of partition " + p);
                checkpoints.incrementAndGet();
                done[p] = true;
                offsets.putAll(offsets(p, positions[p]));
            }
            catch (final KafkaJoinException e)
            {
                fail(e);
            }
        }
        if (!offsets.isEmpty() && inputTopicsExist())
        {
            commitSync(offsets);
        }
        return done;
    }

    /** A quick look whether both input topics still exist; false (and the runner fails) when one is gone. */
    private boolean inputTopicsExist()
    {
        final Map<String, KafkaFuture<TopicDescription>> described =
            admin.describeTopics(Arrays.asList(topics)).topicNameValues();
        for (final Map.Entry<String, KafkaFuture<TopicDescription>> e : described.entrySet())
        {
            try
            {
                e.getValue().get(COMMIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (final ExecutionException ex)
            {
                if (ex.getCause() instanceof UnknownTopicOrPartitionException)
                {
                    fail(deleted(e.getKey(), ex.getCause()));
                    return false;
                }
            }
            catch (final TimeoutException ex)
            {
                // No answer: the commit may still get through; the checkpoint holds the positions either way.
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private KafkaJoinException deleted(final String topic, final Throwable cause)
    {
        return new KafkaJoinException("the " + role(topic) + " topic '" + topic + "' was deleted while the runner ran", cause);
    }

    private void commitSync(final Map<TopicPartition, OffsetAndMetadata> offsets)
    {
        for (int attempt = 0; attempt < 2; attempt++)
        {
            try
            {
                consumer.commitSync(offsets, COMMIT_TIMEOUT);
                commits.incrementAndGet();
                return;
            }
            catch (final WakeupException e)
            {
                // close() woke the consumer while it committed: commit once more, the close needs it.
            }
            catch (final KafkaException e)
            {
                // The checkpoint holds the positions and is authoritative: the next owner resumes from it.
                LOG.log(System.Logger.Level.WARNING, "offset commit " + offsets + " failed: " + e);
                return;
            }
        }
    }

    private CompletedCheckpoint await(final CompletableFuture<CompletedCheckpoint> future, final String what)
    {
        try
        {
            return future.get(ENGINE_WAIT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new KafkaJoinException(what + " failed: " + e.getCause(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new KafkaJoinException(what + " did not complete within " + ENGINE_WAIT_SECONDS + " s", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaJoinException("interrupted while waiting for the " + what, e);
        }
    }

    private static Throwable causeOf(final Throwable e)
    {
        return (e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null ?
            e.getCause() : e;
    }

    // ------------------------------------------------------------------------------------------ rebalances

    /** Group membership changes, run by the consumer inside poll on the consumer thread. */
    private final class Rebalance implements ConsumerRebalanceListener
    {
        @Override
        public void onPartitionsRevoked(final Collection<TopicPartition> revoked)
        {
            if (stopping)
            {
                return;
            }
            try
            {
                final boolean[] affected = new boolean[partitions];
                for (final TopicPartition tp : revoked)
                {
                    final int i = index(tp);
                    held[i] = false;
                    affected[i / n] = true;
                }
                // Kept until the new assignment is known: the eager protocol revokes everything on every
                // rebalance, and a partition that comes straight back need not be restored.
                parkedGeneration = consumer.groupMetadata().generationId();
                final boolean[] handBack = new boolean[partitions];
                for (int p = 0; p < partitions; p++)
                {
                    handBack[p] = affected[p] && served[p];
                }
                final boolean[] checkpointed;
                if (transactional)
                {
                    // One transaction covers every served partition's outputs: commit them all.
                    final boolean committed = fatal.get() == null && commitCycle(true);
                    checkpointed = new boolean[partitions];
                    for (int p = 0; p < partitions; p++)
                    {
                        checkpointed[p] = committed && handBack[p];
                        served[p] &= !handBack[p];
                    }
                }
                else
                {
                    for (int p = 0; p < partitions; p++)
                    {
                        served[p] &= !handBack[p];
                    }
                    checkpointed = checkpointAndCommit(handBack);
                }
                for (int p = 0; p < partitions; p++)
                {
                    if (checkpointed[p])
                    {
                        parked[p] = true;
                    }
                    else if (handBack[p])
                    {
                        drop(p);
                    }
                }
                servedPartitions = countServed();
            }
            catch (final RuntimeException e)
            {
                fail(new KafkaJoinException("handing partitions " + revoked + " back failed: " + e, e));
            }
        }

        @Override
        public void onPartitionsAssigned(final Collection<TopicPartition> assigned)
        {
            if (stopping)
            {
                return;
            }
            try
            {
                for (final TopicPartition tp : assigned)
                {
                    held[index(tp)] = true;
                }
                // A parked partition is resumed as it is only when no generation passed in between (in which
                // another member could have served it and checkpointed a newer state).
                final boolean parkedCurrent = consumer.groupMetadata().generationId() == parkedGeneration + 1;
                final List<TopicPartition> pause = new ArrayList<>();
                for (int p = 0; p < partitions; p++)
                {
                    final boolean all = allHeld(p);
                    if (parked[p] && !(all && parkedCurrent))
                    {
                        drop(p);
                    }
                    if (all && !served[p])
                    {
                        serve(p);
                    }
                    else if (!all)
                    {
                        for (int s = 0; s < n; s++)
                        {
                            if (held[n * p + s])
                            {
                                pause.add(inputPartitions[s][p]);
                            }
                        }
                    }
                }
                if (!pause.isEmpty())
                {
                    consumer.pause(pause);
                }
                servedPartitions = countServed();
            }
            catch (final WakeupException e)
            {
                // close() woke a blocking call here: the partitions not yet served stay unserved; close goes on.
                closeRequested = true;
            }
            catch (final KafkaJoinException e)
            {
                fail(e);
            }
            catch (final RuntimeException e)
            {
                fail(new KafkaJoinException("taking over partitions " + assigned + " failed: " + e, e));
            }
        }

        @Override
        public void onPartitionsLost(final Collection<TopicPartition> lost)
        {
            if (stopping)
            {
                return;
            }
            try
            {
                for (final TopicPartition tp : lost)
                {
                    final int i = index(tp);
                    held[i] = false;
                    final int p = i / n;
                    if (!transactional && (served[p] || parked[p]))
                    {
                        // Another member may serve it already: no commit, no checkpoint; it restarts from the last one.
                        drop(p);
                    }
                }
                if (transactional)
                {
                    abortAfterLoss();
                }
                servedPartitions = countServed();
            }
            catch (final RuntimeException e)
            {
                fail(new KafkaJoinException("dropping lost partitions " + lost + " failed: " + e, e));
            }
        }

        private int index(final TopicPartition tp)
        {
            if (tp.partition() >= partitions)
            {
                throw new KafkaJoinException("topic '" + tp.topic() + "' now has more than the " + partitions +
                    " partitions it had at start: the inputs are no longer co-partitioned as the join's state is");
            }
            return n * tp.partition() + inputOf(tp.topic());
        }
    }

    /**
     * Exactly-once, after partitions were lost: the open transaction holds outputs of the lost partitions past
     * their committed offsets, so it is aborted; first every served partition is dropped and the drops awaited
     * (what their rings still held is sent before the abort, not into the next transaction). The partitions
     * still held on both inputs are then served again from their committed checkpoints.
     */
    private void abortAfterLoss()
    {
        final List<CompletableFuture<CompletedCheckpoint>> drops = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            if (served[p] || parked[p])
            {
                served[p] = false;
                parked[p] = false;
                epochs.incrementAndGet(p);
                drops.add(engine.dropPartition(p));
            }
        }
        for (final CompletableFuture<CompletedCheckpoint> drop : drops)
        {
            await(drop, "drop of a lost partition");
        }
        if (inTransaction)
        {
            inTransaction = false;
            producer.abortTransaction();
        }
        producer.beginTransaction();
        inTransaction = true;
        for (int p = 0; p < partitions; p++)
        {
            if (allHeld(p))
            {
                serve(p);
            }
        }
    }

    /** Starts serving {@code p}, held on every input now: resumed as parked, or taken over from its newest checkpoint. */
    private void serve(final int p)
    {
        final List<TopicPartition> tps = inputPartitionsOf(p);
        final long now = System.nanoTime();
        long[] positions;
        if (parked[p])
        {
            parked[p] = false;
            positions = positions(p);
        }
        else
        {
            epochs.incrementAndGet(p);
            final long[] committed = transactional ? committedPositions(p) : null;
            final CompletedCheckpoint checkpoint = await(transactional ? engine.takeOverPartition(p, committed) :
                engine.takeOverPartition(p), "take-over of partition " + p);
            positions = checkpoint.positions();
            if (transactional && positions == null)
            {
                // Never committed: from the beginning, whatever checkpoints exist (none was committed).
                final Map<TopicPartition, Long> beginning = consumer.beginningOffsets(tps);
                positions = new long[n];
                for (int s = 0; s < n; s++)
                {
                    positions[s] = beginning.get(tps.get(s));
                }
                LOG.log(System.Logger.Level.INFO, "partition " + p + ": nothing committed, starting empty at the beginning, " +
                    "offsets " + describe(positions));
            }
            else if (positions != null && positions.length != n && positions.length != n + 1)
            {
                throw new KafkaJoinException("the checkpoint of partition " + p + " in " + config.checkpointDir() + " holds " +
                    positions.length + " positions, not " + n + " (the inputs' offsets) or " + (n + 1) + " (and the " +
                    "exactly-once commit's token): is it another job's directory?");
            }
            if (checkpoint.positions() != null)
            {
                restored.incrementAndGet();
                LOG.log(System.Logger.Level.INFO, "partition " + p + ": taken over from checkpoint " + checkpoint.id() +
                    " at offsets " + describe(positions));
            }
            else if (!transactional)
            {
                // Never checkpointed: the committed offsets, else the earliest (auto.offset.reset).
                positions = new long[n];
                for (int s = 0; s < n; s++)
                {
                    positions[s] = consumer.position(tps.get(s));
                }
                LOG.log(System.Logger.Level.INFO, "partition " + p + ": no checkpoint, starting empty at offsets " +
                    describe(positions));
            }
            for (int s = 0; s < n; s++)
            {
                final int i = n * p + s;
                maxTimestamp[i] = NONE;
                maxTimestampStep[i] = 0;
                sentWatermark[i] = NONE;
            }
            lastStep[p] = 0;
        }
        for (int s = 0; s < n; s++)
        {
            consumer.seek(tps.get(s), positions[s]);
        }
        consumer.resume(tps);
        for (int s = 0; s < n; s++)
        {
            final int i = n * p + s;
            nextOffset[i] = positions[s];
            lastRecordNanos[i] = now;
            idle[i] = false;
        }
        served[p] = true;
    }

    private void drop(final int p)
    {
        served[p] = false;
        parked[p] = false;
        epochs.incrementAndGet(p);
        // Through the ring: nothing waits for it, the partition's next take-over queues behind it.
        engine.dropPartition(p);
    }

    private int countServed()
    {
        int n = 0;
        for (int p = 0; p < partitions; p++)
        {
            n += served[p] ? 1 : 0;
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------ metadata

    /** Every metadata check interval: are the three topics still there with their partitions? Never blocks. */
    private void checkMetadata(final long now)
    {
        if (pendingMetadata == null)
        {
            if (now - nextMetadataCheckNanos >= 0)
            {
                pendingMetadata = admin.describeTopics(allTopics()).topicNameValues();
            }
            return;
        }
        for (final KafkaFuture<TopicDescription> future : pendingMetadata.values())
        {
            if (!future.isDone())
            {
                return;
            }
        }
        final Map<String, KafkaFuture<TopicDescription>> done = pendingMetadata;
        pendingMetadata = null;
        nextMetadataCheckNanos = now + config.metadataCheckInterval().toNanos();
        for (final Map.Entry<String, KafkaFuture<TopicDescription>> e : done.entrySet())
        {
            final String topic = e.getKey();
            try
            {
                final int count = e.getValue().get().partitions().size();
                if (!topic.equals(config.outputTopic()) && count != partitions)
                {
                    fail(new KafkaJoinException("the " + role(topic) + " topic '" + topic + "' now has " + count +
                        " partitions, not " + partitions + ": the inputs are no longer co-partitioned as at start"));
                }
            }
            catch (final ExecutionException ex)
            {
                if (ex.getCause() instanceof UnknownTopicOrPartitionException)
                {
                    fail(deleted(topic, ex.getCause()));
                }
                else
                {
                    // An unreachable cluster for a while is the consumer's to ride out: check again later.
                    LOG.log(System.Logger.Level.DEBUG, "metadata check of " + topic + " failed: " + ex.getCause());
                }
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                fail(new KafkaJoinException("interrupted", ex));
            }
        }
    }

    // ------------------------------------------------------------------------------------------ shutdown

    private void fail(final KafkaJoinException e)
    {
        if (fatal.compareAndSet(null, e))
        {
            LOG.log(System.Logger.Level.ERROR, e.getMessage(), e.getCause());
        }
    }

    private void shutDown()
    {
        if (consumer != null && fatal.get() == null)
        {
            // A clean close: a last checkpoint and commit of each served partition, so nothing is replayed.
            if (transactional)
            {
                commitCycle(false);
                Arrays.fill(served, false);
            }
            else
            {
                final boolean[] last = served.clone();
                Arrays.fill(served, false);
                checkpointAndCommit(last);
            }
        }
        stopping = true;
        servedPartitions = 0;
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
            if (transactional)
            {
                // After the engine's close: what it sent last goes with the abort. Nothing when the last cycle committed.
                abortQuietly();
            }
            closeQuietly(() -> producer.close(CLIENT_CLOSE_TIMEOUT), "producer");
        }
        if (admin != null)
        {
            closeQuietly(() -> admin.close(CLIENT_CLOSE_TIMEOUT), "admin client");
        }
        unregisterBean();
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

    // ------------------------------------------------------------------------------------------ partition threads

    /** Partition {@code p}'s thread, at each checkpoint barrier: every output so far acknowledged, or the checkpoint fails. */
    private void beforeCheckpoint(final int p)
    {
        producer.flush();
        final Exception error = sendErrors.get(p);
        if (error != null)
        {
            throw new KafkaJoinException("an output of partition " + p + " could not be written to '" + config.outputTopic() +
                "': " + error, error);
        }
    }

    private DeadLetterHandler engineDeadLetters(final int p)
    {
        return new DeadLetterHandler()
        {
            @Override
            public void onDeadLetter(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
                final DeadLetterReason reason)
            {
                deadLetters.increment();
                final long cause = step < 0 ? ~step : step;
                try
                {
                    config.deadLetterHandler().onDeadLetter(p, side, cause / n, ts, reason, row);
                }
                catch (final RuntimeException e)
                {
                    LOG.log(System.Logger.Level.WARNING, "the dead-letter handler threw", e);
                }
            }

            @Override
            public void onMultiDeadLetter(final int input, final ChangeKind kind, final RowView row, final long ts,
                final long step, final DeadLetterReason reason)
            {
                deadLetters.increment();
                final long cause = step < 0 ? ~step : step;
                try
                {
                    config.deadLetterHandler().onMultiDeadLetter(p, input, cause / n, ts, reason, row);
                }
                catch (final RuntimeException e)
                {
                    LOG.log(System.Logger.Level.WARNING, "the dead-letter handler threw", e);
                }
            }
        };
    }

    /**
     * Partition {@code p}'s results: encoded and sent with their provenance. Owned by the partition's thread.
     */
    private final class PartitionSink implements ResultHandler, Callback
    {
        private final int partition;
        private final byte[] partitionBytes;
        private final ResultEncoder encoder = config.resultEncoder();
        private long lastStep = NONE;
        private int seq;
        private int epoch = -1;

        PartitionSink(final int partition)
        {
            this.partition = partition;
            this.partitionBytes = ByteBuffer.allocate(Integer.BYTES).putInt(partition).array();
        }

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            send(step, timestamp, kind, encoder.key(kind, left, right, timestamp), encoder.value(kind, left, right, timestamp));
        }

        @Override
        public void onMultiResult(final ChangeKind kind, final RowView[] rows, final long timestamp, final long step)
        {
            send(step, timestamp, kind, encoder.key(kind, rows, timestamp), encoder.value(kind, rows, timestamp));
        }

        private void send(final long step, final long timestamp, final ChangeKind kind, final byte[] key, final byte[] value)
        {
            final int current = epochs.get(partition);
            if (current != epoch)
            {
                epoch = current;
                lastStep = NONE;
            }
            if (step == lastStep)
            {
                seq++;
            }
            else
            {
                lastStep = step;
                seq = 0;
            }
            final boolean watermark = step < 0;
            final long cause = watermark ? ~step : step;
            final int side = (int)(cause % n) + (watermark ? n : 0);
            final RecordHeaders headers = new RecordHeaders();
            headers.add(new RecordHeader(Provenance.PARTITION, partitionBytes));
            headers.add(new RecordHeader(Provenance.SIDE, sideBytes[side]));
            headers.add(new RecordHeader(Provenance.OFFSET, ByteBuffer.allocate(Long.BYTES).putLong(cause / n).array()));
            headers.add(new RecordHeader(Provenance.SEQ, ByteBuffer.allocate(Integer.BYTES).putInt(seq).array()));
            headers.add(new RecordHeader(Provenance.KIND, KIND_BYTES[kind.ordinal()]));
            final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(config.outputTopic(),
                sameOutputPartitions ? Integer.valueOf(partition) : null, timestamp >= 0 ? Long.valueOf(timestamp) : null,
                key, value, headers);
            try
            {
                producer.send(record, this);
            }
            catch (final KafkaException | IllegalStateException e)
            {
                onCompletion(null, e);
            }
        }

        @Override
        public void onCompletion(final RecordMetadata metadata, final Exception error)
        {
            if (error == null)
            {
                outputsProduced.increment();
                return;
            }
            sendErrors.compareAndSet(partition, null, error);
            fail(new KafkaJoinException("an output of partition " + partition + " could not be written to '" +
                config.outputTopic() + "': " + error, error));
        }
    }

    private static byte[][] kindBytes()
    {
        final ChangeKind[] kinds = ChangeKind.values();
        final byte[][] bytes = new byte[kinds.length][];
        for (final ChangeKind kind : kinds)
        {
            bytes[kind.ordinal()] = kind.shortString().getBytes(StandardCharsets.UTF_8);
        }
        return bytes;
    }

    @Override
    public String toString()
    {
        return "KafkaJoinRunner[" + config.groupId() + ": " + String.join(" x ", config.inputTopics()) + " -> " +
            config.outputTopic() + ", " + servedPartitions + " of " + partitionCount + " partitions served]";
    }
}
