package io.junction.runtime;

import io.junction.join.StateConfig;

import java.nio.file.Path;
import java.time.Duration;

import static io.junction.runtime.EngineConfig.CHECKPOINT_EVERY_EVENTS_PROP_NAME;
import static io.junction.runtime.EngineConfig.CHECKPOINT_INTERVAL_PROP_NAME;
import static io.junction.runtime.EngineConfig.CLOSE_TIMEOUT_DEFAULT;
import static io.junction.runtime.EngineConfig.CLOSE_TIMEOUT_PROP_NAME;
import static io.junction.runtime.EngineConfig.DAEMON_THREADS_DEFAULT;
import static io.junction.runtime.EngineConfig.IDLE_TIMEOUT_PROP_NAME;
import static io.junction.runtime.EngineConfig.MULTI_PRODUCER_PROP_NAME;
import static io.junction.runtime.EngineConfig.PARTITIONS_PROP_NAME;
import static io.junction.runtime.EngineConfig.READ_AHEAD_DEFAULT;
import static io.junction.runtime.EngineConfig.RING_SIZE_DEFAULT;
import static io.junction.runtime.EngineConfig.RING_SIZE_PROP_NAME;
import static io.junction.runtime.EngineConfig.SLOT_CAPACITY_DEFAULT;
import static io.junction.runtime.EngineConfig.SLOT_CAPACITY_PROP_NAME;
import static io.junction.runtime.EngineConfig.STATE_DIR_PROP_NAME;
import static io.junction.runtime.EngineConfig.THREAD_NAME_PREFIX_DEFAULT;
import static io.junction.runtime.EngineConfig.THREAD_NAME_PREFIX_PROP_NAME;
import static io.junction.runtime.EngineConfig.WAIT_STRATEGY_DEFAULT;
import static io.junction.runtime.EngineConfig.WATERMARK_SLICE_DEFAULT;
import static io.junction.runtime.EngineConfig.WATERMARK_SLICE_PROP_NAME;

/**
 * Builds an {@link EngineConfig}, from the defaults ({@link EngineConfig#builder()}) or from a configuration
 * ({@link EngineConfig#toBuilder()}). Each method takes what {@code EngineConfig}'s wither of its name takes,
 * and {@link #build()} checks every value at once. Not thread safe.
 */
public final class EngineConfigBuilder
{
    int partitions = EngineConfig.defaultPartitions();
    int ringSize = RING_SIZE_DEFAULT;
    int slotCapacity = SLOT_CAPACITY_DEFAULT;
    WaitStrategyKind waitStrategy = WAIT_STRATEGY_DEFAULT;
    boolean multiProducer;
    boolean recordLatency = true;
    StateConfig state = StateConfig.defaults();
    Duration idleTimeout = Duration.ZERO;
    long closeTimeoutMillis = CLOSE_TIMEOUT_DEFAULT;
    String threadNamePrefix = THREAD_NAME_PREFIX_DEFAULT;
    boolean daemonThreads = DAEMON_THREADS_DEFAULT;
    boolean readAhead = READ_AHEAD_DEFAULT;
    Path stateRoot;
    long checkpointEveryEvents;
    Duration checkpointInterval = Duration.ZERO;
    Path checkpointRoot;
    int watermarkSlice = WATERMARK_SLICE_DEFAULT;

    EngineConfigBuilder()
    {
    }

    EngineConfigBuilder(final EngineConfig c)
    {
        partitions = c.partitions();
        ringSize = c.ringSize();
        slotCapacity = c.slotCapacity();
        waitStrategy = c.waitStrategy();
        multiProducer = c.multiProducer();
        recordLatency = c.recordLatency();
        state = c.state();
        idleTimeout = c.idleTimeout();
        closeTimeoutMillis = c.closeTimeoutMillis();
        threadNamePrefix = c.threadNamePrefix();
        daemonThreads = c.daemonThreads();
        readAhead = c.readAhead();
        stateRoot = c.stateRoot();
        checkpointEveryEvents = c.checkpointEveryEvents();
        checkpointInterval = c.checkpointInterval();
        checkpointRoot = c.checkpointRoot();
        watermarkSlice = c.watermarkSlice();
    }

    /**
     * @param partitions as {@link EngineConfig#withPartitions}.
     * @return this builder.
     */
    public EngineConfigBuilder partitions(final int partitions)
    {
        this.partitions = partitions;
        return this;
    }

    /**
     * @param ringSize as {@link EngineConfig#withRingSize}.
     * @return this builder.
     */
    public EngineConfigBuilder ringSize(final int ringSize)
    {
        this.ringSize = ringSize;
        return this;
    }

    /**
     * @param slotCapacity as {@link EngineConfig#withSlotCapacity}.
     * @return this builder.
     */
    public EngineConfigBuilder slotCapacity(final int slotCapacity)
    {
        this.slotCapacity = slotCapacity;
        return this;
    }

    /**
     * @param waitStrategy as {@link EngineConfig#withWaitStrategy}.
     * @return this builder.
     */
    public EngineConfigBuilder waitStrategy(final WaitStrategyKind waitStrategy)
    {
        this.waitStrategy = waitStrategy;
        return this;
    }

    /**
     * @param multiProducer as {@link EngineConfig#withMultiProducer}.
     * @return this builder.
     */
    public EngineConfigBuilder multiProducer(final boolean multiProducer)
    {
        this.multiProducer = multiProducer;
        return this;
    }

    /**
     * @param recordLatency as {@link EngineConfig#withRecordLatency}.
     * @return this builder.
     */
    public EngineConfigBuilder recordLatency(final boolean recordLatency)
    {
        this.recordLatency = recordLatency;
        return this;
    }

    /**
     * @param state as {@link EngineConfig#withState}.
     * @return this builder.
     */
    public EngineConfigBuilder state(final StateConfig state)
    {
        this.state = state;
        return this;
    }

    /**
     * @param idleTimeout as {@link EngineConfig#withIdleTimeout}.
     * @return this builder.
     */
    public EngineConfigBuilder idleTimeout(final Duration idleTimeout)
    {
        this.idleTimeout = idleTimeout;
        return this;
    }

    /**
     * @param closeTimeoutMillis as {@link EngineConfig#withCloseTimeoutMillis}.
     * @return this builder.
     */
    public EngineConfigBuilder closeTimeoutMillis(final long closeTimeoutMillis)
    {
        this.closeTimeoutMillis = closeTimeoutMillis;
        return this;
    }

    /**
     * @param threadNamePrefix as {@link EngineConfig#withThreadNamePrefix}.
     * @return this builder.
     */
    public EngineConfigBuilder threadNamePrefix(final String threadNamePrefix)
    {
        this.threadNamePrefix = threadNamePrefix;
        return this;
    }

    /**
     * @param daemonThreads as {@link EngineConfig#withDaemonThreads}.
     * @return this builder.
     */
    public EngineConfigBuilder daemonThreads(final boolean daemonThreads)
    {
        this.daemonThreads = daemonThreads;
        return this;
    }

    /**
     * @param readAhead as {@link EngineConfig#withReadAhead}.
     * @return this builder.
     */
    public EngineConfigBuilder readAhead(final boolean readAhead)
    {
        this.readAhead = readAhead;
        return this;
    }

    /**
     * @param stateRoot as {@link EngineConfig#withStateRoot}.
     * @return this builder.
     */
    public EngineConfigBuilder stateRoot(final Path stateRoot)
    {
        this.stateRoot = stateRoot;
        return this;
    }

    /**
     * @param everyEvents as {@link EngineConfig#withCheckpointInterval}.
     * @param every       as {@link EngineConfig#withCheckpointInterval}.
     * @return this builder.
     */
    public EngineConfigBuilder checkpointInterval(final long everyEvents, final Duration every)
    {
        checkpointEveryEvents = everyEvents;
        checkpointInterval = every;
        return this;
    }

    /**
     * @param checkpointRoot as {@link EngineConfig#withCheckpointRoot}.
     * @return this builder.
     */
    public EngineConfigBuilder checkpointRoot(final Path checkpointRoot)
    {
        this.checkpointRoot = checkpointRoot;
        return this;
    }

    /**
     * @param watermarkSlice as {@link EngineConfig#withWatermarkSlice}.
     * @return this builder.
     */
    public EngineConfigBuilder watermarkSlice(final int watermarkSlice)
    {
        this.watermarkSlice = watermarkSlice;
        return this;
    }

    /** @return this builder, every value checked. */
    EngineConfigBuilder checked()
    {
        if (watermarkSlice < 1)
        {
            throw new IllegalArgumentException(WATERMARK_SLICE_PROP_NAME + " must be >= 1: " + watermarkSlice);
        }
        if (checkpointEveryEvents < 0)
        {
            throw new IllegalArgumentException(CHECKPOINT_EVERY_EVENTS_PROP_NAME + " must be >= 0 (0 is off): " + checkpointEveryEvents);
        }
        if (checkpointInterval == null || checkpointInterval.isNegative())
        {
            throw new IllegalArgumentException(CHECKPOINT_INTERVAL_PROP_NAME + " must be >= 0 (0 is off): " + checkpointInterval);
        }
        if (stateRoot == null && (checkpointEveryEvents > 0 || !checkpointInterval.isZero()))
        {
            throw new IllegalArgumentException("a checkpoint interval needs a state directory (" + STATE_DIR_PROP_NAME + ")");
        }
        if (multiProducer && (checkpointEveryEvents > 0 || !checkpointInterval.isZero()))
        {
            // Each publisher would cut at its own step while the others' rows race its barrier into the rings:
            // no one position describes such a cut, and a resume from it could skip rows.
            throw new IllegalArgumentException("interval checkpoints (" + CHECKPOINT_EVERY_EVENTS_PROP_NAME + ", " +
                CHECKPOINT_INTERVAL_PROP_NAME + ") cannot be used with " + MULTI_PRODUCER_PROP_NAME + ": with several " +
                "publishers no one publisher's step describes the cut; quiesce the producers and call JoinEngine.checkpoint");
        }
        if (partitions < 1 || partitions > 1024)
        {
            throw new IllegalArgumentException(PARTITIONS_PROP_NAME + " must be in [1, 1024]: " + partitions);
        }
        if (ringSize < 2 || Integer.bitCount(ringSize) != 1)
        {
            throw new IllegalArgumentException(RING_SIZE_PROP_NAME + " must be a power of two >= 2: " + ringSize);
        }
        if (slotCapacity < 16 || slotCapacity > 0xFFFF)
        {
            throw new IllegalArgumentException(SLOT_CAPACITY_PROP_NAME + " must be in [16, 65535]: " + slotCapacity);
        }
        if (waitStrategy == null || state == null)
        {
            throw new IllegalArgumentException("waitStrategy and state config are required");
        }
        if (idleTimeout == null || idleTimeout.isNegative())
        {
            throw new IllegalArgumentException(IDLE_TIMEOUT_PROP_NAME + " must be >= 0 (0 is off): " + idleTimeout);
        }
        if (closeTimeoutMillis < 0)
        {
            throw new IllegalArgumentException(CLOSE_TIMEOUT_PROP_NAME + " must be >= 0: " + closeTimeoutMillis);
        }
        if (threadNamePrefix == null)
        {
            throw new IllegalArgumentException(THREAD_NAME_PREFIX_PROP_NAME + " is required");
        }
        return this;
    }

    /**
     * @return the configuration.
     * @throws IllegalArgumentException naming the value that is out of its range or null, or the settings
     *         that cannot go together.
     */
    public EngineConfig build()
    {
        return new EngineConfig(checked());
    }
}
