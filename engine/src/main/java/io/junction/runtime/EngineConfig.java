package io.junction.runtime;

import io.junction.internal.config.ConfigMap;
import io.junction.internal.state.Chunks;
import io.junction.join.StateConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Runtime configuration of a {@link JoinEngine}. Immutable: built with {@link #builder()} (or {@link #toBuilder()}
 * from another configuration), whose {@link EngineConfigBuilder#build()} checks every value; {@code with*} return checked
 * copies. Every knob has a property name read by {@link #fromSystemProperties()}, a default, and a sentence.
 */
public final class EngineConfig
{
    /** Number of partitions, each a ring and a single-writer thread owning its state. */
    public static final String PARTITIONS_PROP_NAME = "junction.partitions";

    /** Slots per partition ring, a power of two. */
    public static final String RING_SIZE_PROP_NAME = "junction.ring.size";
    /** Default {@link #RING_SIZE_PROP_NAME}. */
    public static final int RING_SIZE_DEFAULT = 8192;

    /** Bytes of row a ring slot holds; larger rows are refused with {@link Publisher#ROW_TOO_LARGE}. */
    public static final String SLOT_CAPACITY_PROP_NAME = "junction.ring.slotCapacity";
    /** Default {@link #SLOT_CAPACITY_PROP_NAME}. */
    public static final int SLOT_CAPACITY_DEFAULT = 1024;

    /** How idle partition threads wait: blocking, sleeping, yielding or busy-spin. */
    public static final String WAIT_STRATEGY_PROP_NAME = "junction.wait";
    /** Default {@link #WAIT_STRATEGY_PROP_NAME}: sleeping, which behaves on hosts with few cores. */
    public static final WaitStrategyKind WAIT_STRATEGY_DEFAULT = WaitStrategyKind.SLEEPING;

    /** Whether several threads publish at once (multi-producer rings, a CAS per claim). */
    public static final String MULTI_PRODUCER_PROP_NAME = "junction.multiProducer";

    /** Whether each result's ingest-to-emit latency is recorded into the partition's histogram. */
    public static final String RECORD_LATENCY_PROP_NAME = "junction.recordLatency";

    /**
     * Processing time in ms after which an input that has sent nothing stops holding back the join's
     * watermark, until its next event (as Flink's {@code withIdleness}); 0 turns it off.
     */
    public static final String IDLE_TIMEOUT_PROP_NAME = "junction.idleTimeoutMillis";
    /** Default {@link #IDLE_TIMEOUT_PROP_NAME}: off, an input holds the join back however long it is silent. */
    public static final long IDLE_TIMEOUT_MILLIS_DEFAULT = 0;

    /**
     * Milliseconds {@link JoinEngine#close()} waits for the partitions to drain and stop; after it, close
     * logs what it could not drain and returns.
     */
    public static final String CLOSE_TIMEOUT_PROP_NAME = "junction.closeTimeoutMs";
    /** Default {@link #CLOSE_TIMEOUT_PROP_NAME}. */
    public static final long CLOSE_TIMEOUT_DEFAULT = 5_000;

    /** Partition threads are named this prefix followed by the partition number ({@code junction-p0}, ...). */
    public static final String THREAD_NAME_PREFIX_PROP_NAME = "junction.thread.namePrefix";
    /** Default {@link #THREAD_NAME_PREFIX_PROP_NAME}. */
    public static final String THREAD_NAME_PREFIX_DEFAULT = "junction-p";

    /**
     * Whether partition threads are daemon threads (they do not keep the JVM alive). Not by default: an
     * engine that was never closed keeps the JVM running (a thread dump shows {@code junction-p*} threads)
     * instead of silently dropping what its rings still hold when the JVM exits; close every engine
     * ({@link JoinEngine#close()}, try-with-resources), or set this for tools that exit by themselves.
     */
    public static final String DAEMON_THREADS_PROP_NAME = "junction.thread.daemon";
    /** Default {@link #DAEMON_THREADS_PROP_NAME}: partition threads keep the JVM alive until the engine is closed. */
    public static final boolean DAEMON_THREADS_DEFAULT = false;

    /**
     * Whether a partition thread reads ahead, for the rows already waiting in its ring, the memory their
     * keys will need (index slot, bucket, a key's single rows), so that their cache misses overlap.
     */
    public static final String READ_AHEAD_PROP_NAME = "junction.readAhead";
    /** Default {@link #READ_AHEAD_PROP_NAME}. */
    public static final boolean READ_AHEAD_DEFAULT = true;

    /**
     * The root directory of durable state: partition {@code p} keeps its state in
     * {@code <root>/partition-<p>/state/} and its checkpoints in {@code <root>/partition-<p>/checkpoints/}.
     * Unset (the default), state lives in memory and is lost when the engine stops.
     */
    public static final String STATE_DIR_PROP_NAME = "junction.state.dir";

    /**
     * Durable mode: each publisher takes a checkpoint after every this many rows it publishes, with the
     * positions {@code {step of that row}} (the replay step, or whatever the caller passes as step); 0 is off.
     */
    public static final String CHECKPOINT_EVERY_EVENTS_PROP_NAME = "junction.checkpoint.everyEvents";

    /**
     * Durable mode: each publisher takes a checkpoint, after the row it is publishing, when this many ms
     * have passed since its last one (checked every {@value Publisher#CHECKPOINT_CLOCK_EVERY} rows); 0 is off.
     */
    public static final String CHECKPOINT_INTERVAL_PROP_NAME = "junction.checkpoint.intervalMs";

    /**
     * Durable mode: a checkpoint root that several processes share (a directory every member of a group
     * can read and write): partition {@code p}'s checkpoints live in
     * {@code <checkpointRoot>/partition-<p>/checkpoints/} instead of under the state root, the state root
     * is scratch (every partition starts empty), and partitions move between processes with
     * {@link JoinEngine#checkpointPartition}, {@link JoinEngine#takeOverPartition} and
     * {@link JoinEngine#dropPartition}. Unset (the default), checkpoints live under the state root.
     */
    public static final String CHECKPOINT_DIR_PROP_NAME = "junction.checkpoint.dir";

    /**
     * Rows or timers a partition thread closes per slice of watermark work (the interval join's expiry and outer
     * padding, the temporal join's waiting rows and versions: docs/SEMANTICS.md 3): a watermark that closes more does them in slices, one before each following
     * event and the rest while its ring is empty, so it never holds the ring for longer than a slice. Outputs and
     * their steps do not change; {@link Integer#MAX_VALUE} does each watermark whole.
     */
    public static final String WATERMARK_SLICE_PROP_NAME = "junction.watermarkSlice";
    /**
     * Default {@link #WATERMARK_SLICE_PROP_NAME}: 256 rows, a slice of 65-260 us on W1 (an expired row costs some
     * 0.4 us, cold by the time it is due). Slices of 8 rows (2-8 us) cut W1 inner's p90 at a third of saturation to
     * 47-71 us, but cost 12-30% of the maximum rate on this 2-core host (docs/PERFORMANCE.md): the
     * default keeps the throughput, and a latency-bound deployment sets 8 to 32.
     */
    public static final int WATERMARK_SLICE_DEFAULT = 256;

    private final int partitions;
    private final int ringSize;
    private final int slotCapacity;
    private final WaitStrategyKind waitStrategy;
    private final boolean multiProducer;
    private final boolean recordLatency;
    private final StateConfig state;
    private final Duration idleTimeout;
    private final long closeTimeoutMillis;
    private final String threadNamePrefix;
    private final boolean daemonThreads;
    private final boolean readAhead;
    private final Path stateRoot;
    private final long checkpointEveryEvents;
    private final Duration checkpointInterval;
    private final Path checkpointRoot;
    private final int watermarkSlice;

    /** @param b the values, checked by {@link EngineConfigBuilder#build()}. */
    EngineConfig(final EngineConfigBuilder b)
    {
        partitions = b.partitions;
        ringSize = b.ringSize;
        slotCapacity = b.slotCapacity;
        waitStrategy = b.waitStrategy;
        multiProducer = b.multiProducer;
        recordLatency = b.recordLatency;
        state = b.state;
        idleTimeout = b.idleTimeout;
        closeTimeoutMillis = b.closeTimeoutMillis;
        threadNamePrefix = b.threadNamePrefix;
        daemonThreads = b.daemonThreads;
        readAhead = b.readAhead;
        stateRoot = b.stateRoot;
        checkpointEveryEvents = b.checkpointEveryEvents;
        checkpointInterval = b.checkpointInterval;
        checkpointRoot = b.checkpointRoot;
        watermarkSlice = b.watermarkSlice;
    }

    /**
     * A configuration with the idle timeout off; see the property constants for what each value means.
     *
     * @param partitions    partitions, each a ring and a thread, in [1, 1024].
     * @param ringSize      slots per ring, a power of two.
     * @param slotCapacity  bytes of row per slot, in [16, 65535].
     * @param waitStrategy  how idle partition threads wait.
     * @param multiProducer whether several threads publish at once.
     * @param recordLatency whether ingest-to-emit latency is recorded per result.
     * @param state         the sizing of each partition's state.
     * @throws IllegalArgumentException when a value is out of its range or null.
     * @deprecated use {@link #builder()}, whose methods name each value.
     */
    @Deprecated
    public EngineConfig(
        final int partitions, final int ringSize, final int slotCapacity, final WaitStrategyKind waitStrategy,
        final boolean multiProducer, final boolean recordLatency, final StateConfig state)
    {
        this(partitions, ringSize, slotCapacity, waitStrategy, multiProducer, recordLatency, state, Duration.ZERO);
    }

    /**
     * A configuration; see the property constants for what each value means.
     *
     * @param partitions    partitions, each a ring and a thread, in [1, 1024].
     * @param ringSize      slots per ring, a power of two.
     * @param slotCapacity  bytes of row per slot, in [16, 65535].
     * @param waitStrategy  how idle partition threads wait.
     * @param multiProducer whether several threads publish at once.
     * @param recordLatency whether ingest-to-emit latency is recorded per result.
     * @param state         the sizing of each partition's state.
     * @param idleTimeout   processing time without an event after which an input is idle; zero: never.
     * @throws IllegalArgumentException when a value is out of its range or null.
     * @deprecated use {@link #builder()}, whose methods name each value.
     */
    @Deprecated
    public EngineConfig(
        final int partitions, final int ringSize, final int slotCapacity, final WaitStrategyKind waitStrategy,
        final boolean multiProducer, final boolean recordLatency, final StateConfig state, final Duration idleTimeout)
    {
        this(partitions, ringSize, slotCapacity, waitStrategy, multiProducer, recordLatency, state, idleTimeout,
            CLOSE_TIMEOUT_DEFAULT, THREAD_NAME_PREFIX_DEFAULT, DAEMON_THREADS_DEFAULT);
    }

    /**
     * A configuration with every setting; see the property constants for what each value means.
     *
     * @param partitions         partitions, each a ring and a thread, in [1, 1024].
     * @param ringSize           slots per ring, a power of two.
     * @param slotCapacity       bytes of row per slot, in [16, 65535].
     * @param waitStrategy       how idle partition threads wait.
     * @param multiProducer      whether several threads publish at once.
     * @param recordLatency      whether ingest-to-emit latency is recorded per result.
     * @param state              the sizing of each partition's state.
     * @param idleTimeout        processing time without an event after which an input is idle; zero: never.
     * @param closeTimeoutMillis how long {@link JoinEngine#close()} waits for the partitions, ms.
     * @param threadNamePrefix   partition threads are named this prefix and the partition number.
     * @param daemonThreads      whether partition threads are daemon threads.
     * @throws IllegalArgumentException when a value is out of its range or null.
     * @deprecated use {@link #builder()}, whose methods name each value.
     */
    @Deprecated
    public EngineConfig(
        final int partitions, final int ringSize, final int slotCapacity, final WaitStrategyKind waitStrategy,
        final boolean multiProducer, final boolean recordLatency, final StateConfig state, final Duration idleTimeout,
        final long closeTimeoutMillis, final String threadNamePrefix, final boolean daemonThreads)
    {
        this(partitions, ringSize, slotCapacity, waitStrategy, multiProducer, recordLatency, state, idleTimeout,
            closeTimeoutMillis, threadNamePrefix, daemonThreads, READ_AHEAD_DEFAULT);
    }

    /**
     * @param partitions         partitions, each a ring and a thread, in [1, 1024].
     * @param ringSize           slots per ring, a power of two.
     * @param slotCapacity       bytes of row per slot, in [16, 65535].
     * @param waitStrategy       how idle partition threads wait.
     * @param multiProducer      whether several threads publish at once.
     * @param recordLatency      whether ingest-to-emit latency is recorded per result.
     * @param state              the sizing of each partition's state.
     * @param idleTimeout        processing time without an event after which an input is idle; zero: never.
     * @param closeTimeoutMillis how long {@link JoinEngine#close()} waits for the partitions, ms.
     * @param threadNamePrefix   partition threads are named this prefix and the partition number.
     * @param daemonThreads      whether partition threads are daemon threads.
     * @param readAhead          whether partition threads read ahead for waiting rows ({@link #READ_AHEAD_PROP_NAME}).
     * @throws IllegalArgumentException when a value is out of its range or null.
     * @deprecated use {@link #builder()}, whose methods name each value.
     */
    @Deprecated
    public EngineConfig(
        final int partitions, final int ringSize, final int slotCapacity, final WaitStrategyKind waitStrategy,
        final boolean multiProducer, final boolean recordLatency, final StateConfig state, final Duration idleTimeout,
        final long closeTimeoutMillis, final String threadNamePrefix, final boolean daemonThreads, final boolean readAhead)
    {
        this(new EngineConfigBuilder().partitions(partitions).ringSize(ringSize).slotCapacity(slotCapacity).waitStrategy(waitStrategy)
            .multiProducer(multiProducer).recordLatency(recordLatency).state(state).idleTimeout(idleTimeout)
            .closeTimeoutMillis(closeTimeoutMillis).threadNamePrefix(threadNamePrefix).daemonThreads(daemonThreads)
            .readAhead(readAhead).checked());
    }

    /**
     * Default partitions: one per two cores (a partition thread and a producer per pair), at least
     * one, at most eight.
     *
     * @return half the available processors, between 1 and 8.
     */
    public static int defaultPartitions()
    {
        return Math.max(1, Math.min(8, Runtime.getRuntime().availableProcessors() / 2));
    }

    /** @return the defaults. */
    public static EngineConfig defaults()
    {
        return new EngineConfigBuilder().build();
    }

    /** @return a builder starting from the defaults ({@link #defaults()}). */
    public static EngineConfigBuilder builder()
    {
        return new EngineConfigBuilder();
    }

    /** @return a builder starting from this configuration. */
    public EngineConfigBuilder toBuilder()
    {
        return new EngineConfigBuilder(this);
    }

    /** The names of every engine property {@link #from(Map)} reads ({@link StateConfig#PROPERTY_NAMES} besides). */
    public static final Set<String> PROPERTY_NAMES = Set.of(PARTITIONS_PROP_NAME, RING_SIZE_PROP_NAME, SLOT_CAPACITY_PROP_NAME,
        WAIT_STRATEGY_PROP_NAME, MULTI_PRODUCER_PROP_NAME, RECORD_LATENCY_PROP_NAME, IDLE_TIMEOUT_PROP_NAME,
        CLOSE_TIMEOUT_PROP_NAME, THREAD_NAME_PREFIX_PROP_NAME, DAEMON_THREADS_PROP_NAME, READ_AHEAD_PROP_NAME,
        STATE_DIR_PROP_NAME, CHECKPOINT_EVERY_EVENTS_PROP_NAME, CHECKPOINT_INTERVAL_PROP_NAME, CHECKPOINT_DIR_PROP_NAME,
        WATERMARK_SLICE_PROP_NAME);

    /** @return the configuration from system properties, defaults where unset (as {@link #from(Map)}). */
    public static EngineConfig fromSystemProperties()
    {
        final Map<String, String> properties = new HashMap<>(ConfigMap.systemProperties(PROPERTY_NAMES));
        properties.putAll(ConfigMap.systemProperties(StateConfig.PROPERTY_NAMES));
        return from(properties);
    }

    /**
     * The configuration from properties with the system properties' names ({@code junction.partitions},
     * {@code junction.state.maxKeys}, ...: {@link #PROPERTY_NAMES} and {@link StateConfig#PROPERTY_NAMES}),
     * defaults where unset: for a service whose configuration is a map or a {@link java.util.Properties}
     * file ({@code EngineConfig.from((Map) properties)} after checking the values are strings). Each value
     * is validated as its wither validates it. Names outside the {@code junction.} prefix are ignored, so
     * a whole application configuration may be passed; an unknown {@code junction.*} name is an error, so
     * a misspelt property is never silently ignored.
     *
     * @param properties property names and values.
     * @return the configuration.
     * @throws IllegalArgumentException naming the unknown property, or the property whose value is invalid.
     */
    public static EngineConfig from(final Map<String, String> properties)
    {
        final ConfigMap map = new ConfigMap(properties);
        final Set<String> known = new HashSet<>(PROPERTY_NAMES);
        known.addAll(StateConfig.PROPERTY_NAMES);
        map.checkKnown(known);
        final String wait = map.string(WAIT_STRATEGY_PROP_NAME, null);
        WaitStrategyKind kind = WAIT_STRATEGY_DEFAULT;
        if (wait != null)
        {
            kind = WaitStrategyKind.fromName(wait);
            if (kind == null)
            {
                throw new IllegalArgumentException(WAIT_STRATEGY_PROP_NAME + " must be blocking, sleeping, yielding or busy-spin: " + wait);
            }
        }
        final String stateDir = map.string(STATE_DIR_PROP_NAME, null);
        final String checkpointDir = map.string(CHECKPOINT_DIR_PROP_NAME, null);
        return new EngineConfigBuilder()
            .partitions(map.intValue(PARTITIONS_PROP_NAME, defaultPartitions()))
            .ringSize(map.intValue(RING_SIZE_PROP_NAME, RING_SIZE_DEFAULT))
            .slotCapacity(map.intValue(SLOT_CAPACITY_PROP_NAME, SLOT_CAPACITY_DEFAULT))
            .waitStrategy(kind)
            .multiProducer(map.booleanValue(MULTI_PRODUCER_PROP_NAME, false))
            .recordLatency(map.booleanValue(RECORD_LATENCY_PROP_NAME, true))
            .state(StateConfig.from(properties))
            .idleTimeout(Duration.ofMillis(map.longValue(IDLE_TIMEOUT_PROP_NAME, IDLE_TIMEOUT_MILLIS_DEFAULT)))
            .closeTimeoutMillis(map.longValue(CLOSE_TIMEOUT_PROP_NAME, CLOSE_TIMEOUT_DEFAULT))
            .threadNamePrefix(map.string(THREAD_NAME_PREFIX_PROP_NAME, THREAD_NAME_PREFIX_DEFAULT))
            .daemonThreads(map.booleanValue(DAEMON_THREADS_PROP_NAME, DAEMON_THREADS_DEFAULT))
            .readAhead(map.booleanValue(READ_AHEAD_PROP_NAME, READ_AHEAD_DEFAULT))
            .stateRoot(stateDir == null ? null : Path.of(stateDir))
            .checkpointInterval(map.longValue(CHECKPOINT_EVERY_EVENTS_PROP_NAME, 0),
                Duration.ofMillis(map.longValue(CHECKPOINT_INTERVAL_PROP_NAME, 0)))
            .checkpointRoot(checkpointDir == null ? null : Path.of(checkpointDir))
            .watermarkSlice(map.intValue(WATERMARK_SLICE_PROP_NAME, WATERMARK_SLICE_DEFAULT))
            .build();
    }

    /** @return bytes of direct memory the rings take: partitions x ring size x slot capacity. */
    public long ringBytes()
    {
        return (long)partitions * ringSize * slotCapacity;
    }

    /**
     * Checks that the rings (each ring slot holds a direct buffer of {@link #slotCapacity()} bytes, allocated at
     * start), with the direct buffers durable state takes at start, fit the direct memory the JVM has left: its
     * limit ({@code -XX:MaxDirectMemorySize}, by default the maximum heap) less what its direct buffers take
     * already (the platform's {@code direct} buffer pool: the application's own, a previous engine's). Checked by
     * {@link JoinEngine} before it allocates anything.
     *
     * @throws IllegalArgumentException naming the sizes and the options when they take more than is left.
     */
    public void checkRingMemory()
    {
        checkRingMemory(DirectMemory.maxDirectMemory(), DirectMemory.directMemoryUsed());
    }

    /**
     * {@link #checkRingMemory()} against a given limit and use: a function of this configuration and of them alone.
     *
     * @param limit the JVM's direct-memory limit, bytes.
     * @param used  bytes of it in use already.
     * @throws IllegalArgumentException naming the sizes and the options when the rings take more than is left.
     */
    void checkRingMemory(final long limit, final long used)
    {
        final long rings = ringBytes();
        final long state = directStateBytes();
        final long left = Math.max(0, limit - Math.max(0, used));
        if (rings > left - state)
        {
            throw new IllegalArgumentException("the rings need " + partitions + " partitions x " + ringSize + " slots (" +
                RING_SIZE_PROP_NAME + ") x " + slotCapacity + " bytes (" + SLOT_CAPACITY_PROP_NAME + ") = " + rings +
                " bytes of direct memory" + (state == 0 ? "" : ", and the durable state " + partitions + " x " +
                Chunks.CHUNK_BYTES + " = " + state + " bytes more,") + " more than the " + left +
                " bytes the JVM has left of its " + limit + " (-XX:MaxDirectMemorySize, by default the maximum heap -Xmx; " +
                Math.max(0, used) + " bytes in use already): lower the ring size or the slot capacity, or give the JVM " +
                "more direct memory");
        }
    }

    /**
     * @return bytes of direct memory a durable engine's state takes at start beside the rings (each partition's
     *         chunk buffer for its checkpoints), 0 in memory mode, whose state is not direct memory.
     */
    private long directStateBytes()
    {
        return stateRoot == null ? 0 : (long)partitions * Chunks.CHUNK_BYTES;
    }

    /**
     * A copy with another number of partitions.
     *
     * @param partitions partitions, in [1, 1024].
     * @return a copy with that value.
     */
    public EngineConfig withPartitions(final int partitions)
    {
        return toBuilder().partitions(partitions).build();
    }

    /**
     * A copy with another ring size.
     *
     * @param ringSize slots per ring, a power of two.
     * @return a copy with that value.
     */
    public EngineConfig withRingSize(final int ringSize)
    {
        return toBuilder().ringSize(ringSize).build();
    }

    /**
     * A copy with another slot capacity.
     *
     * @param slotCapacity bytes of row per slot, in [16, 65535].
     * @return a copy with that value.
     */
    public EngineConfig withSlotCapacity(final int slotCapacity)
    {
        return toBuilder().slotCapacity(slotCapacity).build();
    }

    /**
     * A copy with another wait strategy.
     *
     * @param waitStrategy how idle partition threads wait.
     * @return a copy with that value.
     */
    public EngineConfig withWaitStrategy(final WaitStrategyKind waitStrategy)
    {
        return toBuilder().waitStrategy(waitStrategy).build();
    }

    /**
     * A copy with another multi-producer setting.
     *
     * @param multiProducer whether several threads publish at once.
     * @return a copy with that value.
     * @throws IllegalArgumentException when multi-producer and interval checkpoints are set
     *         ({@link #withCheckpointInterval}).
     */
    public EngineConfig withMultiProducer(final boolean multiProducer)
    {
        return toBuilder().multiProducer(multiProducer).build();
    }

    /**
     * A copy with another latency-recording setting.
     *
     * @param recordLatency whether latency is recorded per result.
     * @return a copy with that value.
     */
    public EngineConfig withRecordLatency(final boolean recordLatency)
    {
        return toBuilder().recordLatency(recordLatency).build();
    }

    /**
     * A copy with another state configuration.
     *
     * @param state the sizing of each partition's state.
     * @return a copy with that value.
     */
    public EngineConfig withState(final StateConfig state)
    {
        return toBuilder().state(state).build();
    }

    /**
     * @param idleTimeout processing time without an event after which an input is idle.
     * @return a copy whose inputs become idle after {@code idleTimeout} of processing time without an
     *         event ({@link Duration#ZERO}: never, the default); see {@link #IDLE_TIMEOUT_PROP_NAME}.
     */
    public EngineConfig withIdleTimeout(final Duration idleTimeout)
    {
        return toBuilder().idleTimeout(idleTimeout).build();
    }

    /**
     * @param closeTimeoutMillis ms, at least 0.
     * @return a copy where {@link JoinEngine#close()} waits at most this many ms for the partitions.
     */
    public EngineConfig withCloseTimeoutMillis(final long closeTimeoutMillis)
    {
        return toBuilder().closeTimeoutMillis(closeTimeoutMillis).build();
    }

    /**
     * @param threadNamePrefix the prefix of partition thread names.
     * @return a copy whose partition threads are named {@code threadNamePrefix + partition}.
     */
    public EngineConfig withThreadNamePrefix(final String threadNamePrefix)
    {
        return toBuilder().threadNamePrefix(threadNamePrefix).build();
    }

    /**
     * @param daemonThreads whether partition threads are daemon threads.
     * @return a copy whose partition threads are daemon threads or not.
     */
    public EngineConfig withDaemonThreads(final boolean daemonThreads)
    {
        return toBuilder().daemonThreads(daemonThreads).build();
    }

    /**
     * A copy that does or does not read ahead for waiting rows.
     *
     * @param readAhead whether partition threads read ahead ({@link #READ_AHEAD_PROP_NAME}).
     * @return a copy with that value.
     */
    public EngineConfig withReadAhead(final boolean readAhead)
    {
        return toBuilder().readAhead(readAhead).build();
    }

    /**
     * Durable mode: partition {@code p} keeps its state in files under {@code <root>/partition-<p>/state/},
     * its checkpoints under {@code <root>/partition-<p>/checkpoints/} (see {@link JoinEngine#checkpoint}),
     * and a start on a root that holds state recovers it ({@link JoinEngine#restoredPositions()}); with a
     * shared checkpoint root ({@link #withCheckpointRoot}) the checkpoints live there instead and the
     * state root is scratch.
     *
     * @param root the state root directory; null for in-memory state (the default).
     * @return a copy with that state root.
     */
    public EngineConfig withStateRoot(final Path root)
    {
        return toBuilder().stateRoot(root).build();
    }

    /**
     * Checkpoints taken by each publisher on its own (durable mode only): after every {@code everyEvents}
     * rows it publishes, and after a row when {@code every} has passed since its last checkpoint, with the
     * positions {@code {that row's step}}: resuming replays from the step after it. Either may be off (0);
     * the caller can also checkpoint explicitly with {@link JoinEngine#checkpoint(long[])}. A failed
     * interval checkpoint is logged and counted in the partition metrics; processing goes on. Refused on a
     * multi-producer configuration ({@link #withMultiProducer}): one publisher's step does not describe
     * a cut that the other publishers' rows race into.
     *
     * @param everyEvents rows per publisher between checkpoints, 0 for none by count.
     * @param every       processing time between checkpoints, {@link Duration#ZERO} for none by time.
     * @return a copy with that interval.
     * @throws IllegalArgumentException when a value is negative, there is no state root, or the
     *         configuration is multi-producer.
     */
    public EngineConfig withCheckpointInterval(final long everyEvents, final Duration every)
    {
        return toBuilder().checkpointInterval(everyEvents, every).build();
    }

    /**
     * A shared checkpoint root (see {@link #CHECKPOINT_DIR_PROP_NAME}): partition {@code p}'s checkpoints
     * live in {@code <root>/partition-<p>/checkpoints/}, where every process of a group finds them; the
     * key-hash seed of the group is in {@code <root>/SEED}. The engine then starts every partition empty
     * (its state root is scratch: state left there by an earlier run is deleted), refuses the engine-wide
     * {@link JoinEngine#checkpoint(long[])} and {@link JoinEngine#close(long[])}, and moves partitions one
     * at a time. Needs a state root ({@link #withStateRoot}), checked when the engine starts; interval
     * checkpoints ({@link #withCheckpointInterval}) are refused with it.
     *
     * @param root the shared checkpoint root; null for checkpoints under the state root (the default).
     * @return a copy with that checkpoint root.
     */
    public EngineConfig withCheckpointRoot(final Path root)
    {
        return toBuilder().checkpointRoot(root).build();
    }

    /**
     * A copy with another slice of watermark work.
     *
     * @param watermarkSlice rows or timers per slice ({@link #WATERMARK_SLICE_PROP_NAME}), at least 1.
     * @return a copy with that value.
     */
    public EngineConfig withWatermarkSlice(final int watermarkSlice)
    {
        return toBuilder().watermarkSlice(watermarkSlice).build();
    }

    /** @return the number of partitions. */
    public int partitions()
    {
        return partitions;
    }

    /** @return slots per ring. */
    public int ringSize()
    {
        return ringSize;
    }

    /** @return bytes of row per ring slot. */
    public int slotCapacity()
    {
        return slotCapacity;
    }

    /** @return how idle partition threads wait. */
    public WaitStrategyKind waitStrategy()
    {
        return waitStrategy;
    }

    /** @return whether several threads may publish at once. */
    public boolean multiProducer()
    {
        return multiProducer;
    }

    /** @return whether ingest-to-emit latency is recorded per result. */
    public boolean recordLatency()
    {
        return recordLatency;
    }

    /** @return the sizing of each partition's state. */
    public StateConfig state()
    {
        return state;
    }

    /** @return the idle timeout; {@link Duration#ZERO} when off. */
    public Duration idleTimeout()
    {
        return idleTimeout;
    }

    /** @return the idle timeout in ns, saturated; 0 when off. */
    long idleTimeoutNanos()
    {
        final long seconds = idleTimeout.getSeconds();
        return seconds >= Long.MAX_VALUE / 1_000_000_000L ? Long.MAX_VALUE : idleTimeout.toNanos();
    }

    /** @return how long {@link JoinEngine#close()} waits for the partitions, ms. */
    public long closeTimeoutMillis()
    {
        return closeTimeoutMillis;
    }

    /** @return the prefix of partition thread names. */
    public String threadNamePrefix()
    {
        return threadNamePrefix;
    }

    /** @return whether partition threads are daemon threads. */
    public boolean daemonThreads()
    {
        return daemonThreads;
    }

    /** @return whether partition threads read ahead for waiting rows. */
    public boolean readAhead()
    {
        return readAhead;
    }

    /** @return the durable state root; null when state is in memory. */
    public Path stateRoot()
    {
        return stateRoot;
    }

    /** @return rows per publisher between interval checkpoints; 0 when off. */
    public long checkpointEveryEvents()
    {
        return checkpointEveryEvents;
    }

    /** @return processing time between interval checkpoints; {@link Duration#ZERO} when off. */
    public Duration checkpointInterval()
    {
        return checkpointInterval;
    }

    /** @return the shared checkpoint root; null when checkpoints live under the state root. */
    public Path checkpointRoot()
    {
        return checkpointRoot;
    }

    /** @return rows or timers per slice of watermark work ({@link #WATERMARK_SLICE_PROP_NAME}). */
    public int watermarkSlice()
    {
        return watermarkSlice;
    }

    @Override
    public String toString()
    {
        return "EngineConfig{partitions=" + partitions + ", ringSize=" + ringSize + ", slotCapacity=" + slotCapacity +
            ", waitStrategy=" + waitStrategy + ", multiProducer=" + multiProducer + ", recordLatency=" + recordLatency +
            ", state=" + state + ", idleTimeout=" + idleTimeout +
            ", closeTimeoutMillis=" + closeTimeoutMillis + ", threadNamePrefix=" + threadNamePrefix + ", daemonThreads=" + daemonThreads + ", readAhead=" + readAhead +
            (stateRoot == null ? "" : ", stateRoot=" + stateRoot + ", checkpointEveryEvents=" + checkpointEveryEvents +
                ", checkpointInterval=" + checkpointInterval) +
            (checkpointRoot == null ? "" : ", checkpointRoot=" + checkpointRoot) +
            (watermarkSlice == WATERMARK_SLICE_DEFAULT ? "" : ", watermarkSlice=" + watermarkSlice) + "}";
    }
}
