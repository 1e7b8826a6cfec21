package io.junction.runtime;

import io.junction.metrics.HotKey;
import io.junction.metrics.PartitionSnapshot;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.join.JoinOperators;
import io.junction.internal.metrics.EngineBeans;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import org.HdrHistogram.Histogram;
import org.agrona.ErrorHandler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * A running join: N partitions, each an LMAX Disruptor ring consumed by one thread that owns that
 * partition's operator and off-heap state (the single-writer principle: no locks on state). Rows are
 * routed by the hash of their join key, so every row of a key meets every other on one thread;
 * watermarks and the end of input go to every partition. The key hash is seeded per engine (a secret
 * random seed unless {@code StateConfig.withHashSeed} fixes one; {@link #config()} shows it), so keys
 * crafted to collide cannot be precomputed.
 *
 * <pre>{@code
 * try (JoinEngine engine = JoinEngine.builder(spec)
 *         .config(EngineConfig.defaults().withPartitions(2))
 *         .resultHandlers(partition -> (kind, left, right, ts, step) -> ...)
 *         .start())
 * {
 *     Publisher publisher = engine.publisher();
 *     publisher.publish(Side.LEFT, ChangeKind.INSERT, row, ts, step);
 * }   // close() drains what was published, stops the threads and frees off-heap state
 * }</pre>
 *
 * <p>Thread safety: {@link #publisher()} hands out publishers (see {@link Publisher} for their
 * rules: one per thread, and one publishing thread per engine unless it is multi-producer);
 * {@link #metrics()}, {@link #sampleLatency()} and {@link #close()} may be called from any thread.
 *
 * <p>Threads: partition {@code p} runs on a thread named {@link EngineConfig#threadNamePrefix()}
 * followed by {@code p} ({@code junction-p0}, ...), a daemon unless configured otherwise; a
 * {@link Builder#threadFactory ThreadFactory} replaces that, and a
 * {@link Builder#onPartitionThreadStart start hook} runs on each partition thread before its first
 * event (to pin it to a CPU with the affinity library of one's choice, for example).
 *
 * <p>Errors: whatever a partition's operator or handlers throw goes to the error handler (by default a
 * {@link LoggingErrorHandler}, which logs through {@link System.Logger}) and is counted; the partition
 * goes on. A partition thread that dies even so is reported (see {@link PartitionFailedException}).
 *
 * <p>JMX: from start until close the engine's metrics are in the platform MBean server as
 * {@code io.junction:type=JoinEngine,name=<name>} ({@link io.junction.metrics.JoinEngineMXBean}) and
 * {@code io.junction:type=JoinPartition,name=<name>,partition=<p>}
 * ({@link io.junction.metrics.JoinPartitionMXBean}); see {@link Builder#name(String)}. A bean that
 * cannot be registered is logged and the engine runs without it.
 */
public final class JoinEngine implements AutoCloseable
{
    /** Least ms between two hot-key reports of a partition ({@link #hotKeys(int)}): a report allocates. */
    public static final long HOT_KEYS_INTERVAL_MILLIS = 100;

    private static final System.Logger LOGGER = System.getLogger("io.junction.runtime");
    /** How long start waits for the partition threads at least: a bound on a hang only. */
    private static final long START_TIMEOUT_MILLIS = 30_000;
    private static final long DRAIN_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    /** Names of the engines started and not yet closed in this JVM: an engine's JMX names must be its own. */
    private static final Set<String> RUNNING_NAMES = ConcurrentHashMap.newKeySet();
    private static final AtomicLong DEFAULT_NAMES = new AtomicLong();

    private final String name;

    private final JoinSpec spec;
    private final EngineConfig config;
    private final List<Disruptor<RingSlot>> disruptors = new ArrayList<>();
    private final RingBuffer<RingSlot>[] rings;
    private final PartitionWorker[] workers;
    private final PartitionMetrics[] metrics;
    private final LatencyRecorder[] latency;
    private final AtomicLong refusedRows = new AtomicLong();
    private final AtomicReference<Thread> producer = new AtomicReference<>();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final LoggingErrorHandler log = new LoggingErrorHandler();
    /** Null when the idle timeout is off. */
    private final InputIdleness idleness;
    private volatile EngineBeans beans;
    private volatile boolean closed;

    @SuppressWarnings("unchecked")
    private JoinEngine(final Builder builder)
    {
        this.spec = builder.spec;
        // One key-hash seed per engine, drawn here when not fixed: routing and every partition's index use it.
        this.config = builder.config.withState(builder.config.state().withResolvedHashSeed());
        // Before the name is taken: it reads the user's clock, which may throw.
        this.idleness = config.idleTimeoutNanos() > 0 ? new InputIdleness(builder.clock, config.idleTimeoutNanos()) : null;
        this.name = reserveName(builder.name);
        final int partitions = config.partitions();
        rings = new RingBuffer[partitions];
        workers = new PartitionWorker[partitions];
        metrics = new PartitionMetrics[partitions];
        latency = new LatencyRecorder[partitions];
        final int slotCapacity = config.slotCapacity();
        try
        {
            for (int p = 0; p < partitions; p++)
            {
                metrics[p] = new PartitionMetrics(p);
                latency[p] = new LatencyRecorder();
                final ResultHandler results = builder.resultHandlers.apply(p);
                final DeadLetterHandler deadLetters = builder.deadLetterHandlers.apply(p);
                workers[p] = new PartitionWorker(p,
                    builder.operatorFactory != null ? builder.operatorFactory :
                    (guardedResults, guardedDeadLetters) -> JoinOperators.create(spec, config.state(), guardedResults, guardedDeadLetters),
                    results, deadLetters, builder.errorHandler != null ? builder.errorHandler : log, log,
                    builder.onThreadStart, metrics[p], latency[p], config.recordLatency(),
                    config.state().hotKeys() > 0 ? TimeUnit.MILLISECONDS.toNanos(HOT_KEYS_INTERVAL_MILLIS) : 0);
                final Disruptor<RingSlot> disruptor = new Disruptor<>(
                    () -> new RingSlot(slotCapacity), config.ringSize(), threadFactory(p, builder.threadFactory),
                    config.multiProducer() ? ProducerType.MULTI : ProducerType.SINGLE,
                    config.waitStrategy().create());
                disruptor.setDefaultExceptionHandler(workers[p]);
                disruptor.handleEventsWith(workers[p]);
                disruptors.add(disruptor);
                rings[p] = disruptor.getRingBuffer();
                if (config.readAhead())
                {
                    workers[p].readAhead(rings[p]);
                }
            }
        }
        catch (final RuntimeException | Error e)
        {
            closeUnstarted();
            RUNNING_NAMES.remove(name);
            throw e;
        }
        for (final Disruptor<RingSlot> disruptor : disruptors)
        {
            disruptor.start();
        }
        try
        {
            // A bound on a hang only: a ThreadFactory that never runs what it is given.
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                Math.max(START_TIMEOUT_MILLIS, config.closeTimeoutMillis()));
            for (int p = 0; p < partitions; p++)
            {
                if (!workers[p].awaitStarted(deadline - System.nanoTime()))
                {
                    close();
                    throw new IllegalStateException("partition thread " + p + " did not start: does the ThreadFactory " +
                        "return a thread that runs the Runnable it is given?");
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting the partition threads", e);
        }
        beans = EngineBeans.register(name, operatorName(), metrics, latency,
            p -> rings[p].getBufferSize() - rings[p].remainingCapacity(), p -> rings[p].getBufferSize(), refusedRows::get,
            p -> workers[p].isFailed());
    }

    /** Claims a name for a starting engine: the one given, or the first free {@code join-N}. */
    private static String reserveName(final String requested)
    {
        if (requested != null)
        {
            if (!RUNNING_NAMES.add(requested))
            {
                throw new IllegalStateException("an engine named '" + requested + "' is already running in this JVM " +
                    "(its JMX bean is " + EngineBeans.engineName(requested) + "); give each engine its own JoinEngine.Builder.name(...)");
            }
            return requested;
        }
        while (true)
        {
            final String candidate = "join-" + DEFAULT_NAMES.incrementAndGet();
            if (RUNNING_NAMES.add(candidate))
            {
                return candidate;
            }
        }
    }

    /** Removes the JMX beans and frees the name; called once the partitions have stopped. */
    private void unregister()
    {
        if (beans != null)
        {
            beans.unregister();
            beans = null;
        }
        RUNNING_NAMES.remove(name);
    }

    /**
     * @param spec the join to run.
     * @return a builder for an engine running this join.
     */
    public static Builder builder(final JoinSpec spec)
    {
        return new Builder(spec);
    }

    private ThreadFactory threadFactory(final int partition, final ThreadFactory userFactory)
    {
        final AtomicInteger count = new AtomicInteger();
        return runnable ->
        {
            // The worker reports a partition thread that dies (PartitionFailedException, the log): the
            // throwable ending it need not reach the thread's default handler, which prints to stderr.
            final Runnable guarded = () ->
            {
                try
                {
                    runnable.run();
                }
                catch (final Throwable t)
                {
                    if (!workers[partition].isFailed())
                    {
                        LOGGER.log(System.Logger.Level.ERROR, "junction: partition " + partition + " thread ended", t);
                    }
                }
            };
            if (userFactory != null)
            {
                return userFactory.newThread(guarded);
            }
            final Thread thread = new Thread(guarded, config.threadNamePrefix() + partition +
                (count.getAndIncrement() == 0 ? "" : "-" + count.get()));
            thread.setDaemon(config.daemonThreads());
            return thread;
        };
    }

    /** @return a new publisher into this engine. */
    public Publisher publisher()
    {
        return new Publisher(this, rings, spec, config.slotCapacity(), config.state(), metrics, idleness);
    }

    /**
     * @return the engine's name: its JMX beans are {@code io.junction:type=JoinEngine,name=<name>} and
     *         {@code io.junction:type=JoinPartition,name=<name>,partition=<p>}.
     */
    public String name()
    {
        return name;
    }

    /** @return the join this engine runs. */
    public JoinSpec spec()
    {
        return spec;
    }

    /** @return the configuration this engine runs with. */
    public EngineConfig config()
    {
        return config;
    }

    /** @return a snapshot of every partition's metrics, as of each partition's last batch. */
    public List<PartitionSnapshot> metrics()
    {
        final List<PartitionSnapshot> snapshots = new ArrayList<>(metrics.length);
        for (int p = 0; p < metrics.length; p++)
        {
            final RingBuffer<RingSlot> ring = rings[p];
            snapshots.add(metrics[p].snapshot(ring.getBufferSize() - ring.remainingCapacity(), ring.getBufferSize(),
                workers[p].isFailed()));
        }
        return Collections.unmodifiableList(snapshots);
    }

    /**
     * The hot-key report of one partition: the keys its heavy-hitters sketch tracks
     * ({@link io.junction.join.StateConfig#hotKeys()} counters, {@value io.junction.join.StateConfig#HOT_KEYS_PROP_NAME}), with the rows
     * each stored, the stored rows its probes visited, and its live rows. The partition thread publishes
     * it at the end of a batch at most every {@link #HOT_KEYS_INTERVAL_MILLIS} ms, at the end of input
     * and when it stops (so after {@link #close()} it is final); the window joins keep none.
     *
     * @param partition a partition index.
     * @return the partition's tracked keys, most rows visited first; empty before the first report or
     *         when the report is off.
     */
    public List<HotKey> hotKeys(final int partition)
    {
        return metrics[partition].hotKeys();
    }

    /**
     * @return rows that publishers refused at the door (larger than a slot, malformed, or arguments
     *         that do not describe a row: {@link Publisher#ROW_TOO_LARGE}, {@link Publisher#MALFORMED_ROW},
     *         {@link Publisher#INVALID_ARGUMENT}), which never reached a partition; each publish call also
     *         returned the reason. Rows to retry ({@link Publisher#BACK_PRESSURED}, {@link Publisher#STATE_FULL})
     *         and rows a closed engine or a dead partition did not take are not counted.
     */
    public long refusedRows()
    {
        return refusedRows.get();
    }

    void countRefused()
    {
        refusedRows.incrementAndGet();
    }

    boolean isFailed(final int partition)
    {
        return workers[partition].isFailed();
    }

    /**
     * Claims the engine for the first thread that publishes, unless its rings are multi-producer:
     * called once per publisher, so the hot path stays one compare in the publisher.
     */
    void claimProducer(final Thread thread)
    {
        if (config.multiProducer())
        {
            return;
        }
        final Thread owner = producer.compareAndExchange(null, thread);
        if (owner != null && owner != thread)
        {
            throw new IllegalStateException("single-producer engine: publisher used from thread " + thread.getName() +
                ", owned by " + owner.getName() + "; configure multiProducer (EngineConfig.withMultiProducer, " +
                EngineConfig.MULTI_PRODUCER_PROP_NAME + ") to publish from several threads");
        }
    }

    /**
     * @param partition a partition index.
     * @return the ingest-to-emit latencies (nanoseconds per result) one partition recorded since the
     *         previous sample of that partition.
     */
    public Histogram sampleLatency(final int partition)
    {
        return latency[partition].sampleInterval();
    }

    /** @return the latencies recorded in every partition since the previous call, merged. */
    public Histogram sampleLatency()
    {
        final Histogram merged = new Histogram(LatencyRecorder.HIGHEST_TRACKABLE_NANOS, 3);
        for (final LatencyRecorder recorder : latency)
        {
            merged.add(recorder.sampleInterval());
        }
        return merged;
    }

    boolean isClosed()
    {
        return closed;
    }

    /**
     * Drains every event published so far, stops the partition threads and frees their state, waiting
     * at most {@link EngineConfig#closeTimeoutMillis()}: after it, close logs what it could not drain
     * and returns (a partition still inside a handler frees its state when that handler returns).
     * Idempotent; publishers return {@link Publisher#CLOSED} from the start of the first call.
     * Publishing concurrently with close is the caller's error: those events may be lost.
     *
     * <p>May be called from any thread, a handler running on a partition thread included: there it
     * cannot wait for its own thread, so it returns at once and a closer thread finishes the close
     * once the handler has returned.
     */
    @Override
    public void close()
    {
        final Thread current = Thread.currentThread();
        boolean onPartitionThread = false;
        for (final PartitionWorker worker : workers)
        {
            onPartitionThread |= worker != null && worker.isPartitionThread(current);
        }
        if (closing.compareAndSet(false, true))
        {
            closed = true;
            if (onPartitionThread)
            {
                final Thread closer = new Thread(this::shutDown, config.threadNamePrefix() + "closer");
                closer.setDaemon(true);
                closer.start();
                return;
            }
            shutDown();
        }
        else if (!onPartitionThread)
        {
            // A close under way on another thread: return when it is done, as a first call would.
            try
            {
                terminated.await(config.closeTimeoutMillis() + 1000, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void shutDown()
    {
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.closeTimeoutMillis());
            boolean interrupted = false;
            for (int p = 0; p < rings.length && !interrupted; p++)
            {
                // A dead partition never drains: it is reported already, waiting on it would only stall close.
                while (!workers[p].isFailed() && backlog(p) > 0 && System.nanoTime() - deadline < 0)
                {
                    LockSupport.parkNanos(DRAIN_POLL_NANOS);
                    interrupted = Thread.interrupted();
                    if (interrupted)
                    {
                        break;
                    }
                }
            }
            final long[] undrained = new long[rings.length];
            for (int p = 0; p < rings.length; p++)
            {
                undrained[p] = backlog(p);
                workers[p].requestStop();
                disruptors.get(p).halt();
            }
            final StringBuilder report = new StringBuilder();
            for (int p = 0; p < workers.length; p++)
            {
                boolean stopped = false;
                try
                {
                    stopped = !interrupted && workers[p].awaitStopped(Math.max(0, deadline - System.nanoTime()));
                }
                catch (final InterruptedException e)
                {
                    interrupted = true;
                }
                if (!stopped || undrained[p] > 0)
                {
                    report.append(report.length() == 0 ? "" : "; ").append("partition ").append(p).append(": ")
                        .append(undrained[p]).append(" events not processed")
                        .append(workers[p].isFailed() ? " (its thread died)" :
                            stopped ? "" : " (its thread is still running; its state is freed when it stops)");
                }
            }
            if (report.length() > 0)
            {
                LOGGER.log(System.Logger.Level.WARNING, "junction: close " + (interrupted ? "was interrupted" :
                    "returns (timeout " + config.closeTimeoutMillis() + " ms)") + " with events left: " + report);
            }
            log.logSummary();
            unregister();
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        finally
        {
            terminated.countDown();
        }
    }

    /** @return events published to a partition and not yet processed. */
    private long backlog(final int partition)
    {
        final RingBuffer<RingSlot> ring = rings[partition];
        return ring.getCursor() - ring.getMinimumGatingSequence();
    }

    private void closeUnstarted()
    {
        closed = true;
        closing.set(true);
        terminated.countDown();
        for (final PartitionWorker worker : workers)
        {
            if (worker != null)
            {
                worker.closeUnstarted();
            }
        }
    }

    /** Collects what an engine needs; {@link #start()} builds and starts it. */
    public static final class Builder
    {
        private final JoinSpec spec;
        private EngineConfig config = EngineConfig.defaults();
        private IntFunction<ResultHandler> resultHandlers;
        private IntFunction<DeadLetterHandler> deadLetterHandlers = p -> DeadLetterHandler.NONE;
        private ErrorHandler errorHandler;
        private ThreadFactory threadFactory;
        private IntConsumer onThreadStart;
        private PartitionWorker.OperatorFactory operatorFactory;
        private String name;
        private LongSupplier clock = System::nanoTime;

        private Builder(final JoinSpec spec)
        {
            if (spec == null)
            {
                throw new IllegalArgumentException("spec is required");
            }
            this.spec = spec;
        }

/**
         * Names the engine (default: {@code join-1}, {@code join-2}, ...: the first not in use). The name
         * is the engine's JMX identity, so it must be unique among the engines running in this JVM:
         * {@link #start()} fails with {@link IllegalStateException} while another engine of this name runs.
         *
         * @param name the engine's name.
         * @return this builder.
         */
        public Builder name(final String name)
        {
            if (name == null || name.isBlank())
            {
                throw new IllegalArgumentException("an engine name must not be empty");
            }
            this.name = name;
            return this;
        }

        /**
         * Sets the configuration.
         *
         * @param config the engine configuration (default: {@link EngineConfig#defaults()}).
         * @return this builder.
         */
        public Builder config(final EngineConfig config)
        {
            this.config = config;
            return this;
        }

        /**
         * One result handler shared by every partition: it must be thread safe when partitions > 1.
         *
         * @param handler receives every partition's output.
         * @return this builder.
         */
        public Builder resultHandler(final ResultHandler handler)
        {
            this.resultHandlers = p -> handler;
            return this;
        }

        /**
         * A result handler per partition, each called by its partition thread only.
         *
         * @param factory called once per partition index at start.
         * @return this builder.
         */
        public Builder resultHandlers(final IntFunction<ResultHandler> factory)
        {
            this.resultHandlers = factory;
            return this;
        }

        /**
         * One dead-letter handler shared by every partition: it must be thread safe when partitions > 1.
         *
         * @param handler receives every partition's dead letters.
         * @return this builder.
         */
        public Builder deadLetterHandler(final DeadLetterHandler handler)
        {
            this.deadLetterHandlers = p -> handler;
            return this;
        }

        /**
         * A dead-letter handler per partition.
         *
         * @param factory called once per partition index at start.
         * @return this builder.
         */
        public Builder deadLetterHandlers(final IntFunction<DeadLetterHandler> factory)
        {
            this.deadLetterHandlers = factory;
            return this;
        }

        /**
         * Where exceptions thrown inside partitions (by handlers or operators) are reported, on the
         * partition's thread; by default a {@link LoggingErrorHandler}. It must not block; if it throws,
         * that is counted and logged and the partition goes on.
         *
         * @param errorHandler receives the exceptions.
         * @return this builder.
         */
        public Builder errorHandler(final ErrorHandler errorHandler)
        {
            this.errorHandler = errorHandler;
            return this;
        }

        /**
         * Creates the partition threads instead of the engine (names, daemon-ness, priorities, thread
         * groups are then the factory's); each thread it returns must run the Runnable it is given.
         *
         * @param threadFactory creates one thread per partition.
         * @return this builder.
         */
        public Builder threadFactory(final ThreadFactory threadFactory)
        {
            this.threadFactory = threadFactory;
            return this;
        }

        /**
         * A hook run on each partition thread as it starts, before its first event, with the partition
         * number: the place to pin the thread to a CPU with an affinity library (the engine has none of
         * its own). If it throws, that goes to the error handler and the partition runs unpinned.
         *
         * @param hook called with the partition number on each partition thread.
         * @return this builder.
         */
        public Builder onPartitionThreadStart(final IntConsumer hook)
        {
            this.onThreadStart = hook;
            return this;
        }

        /**
         * The processing-time clock, in nanoseconds, that the idle timeout ({@link EngineConfig#idleTimeout()})
         * is measured with; {@code System::nanoTime} unless a test controls time. Called by publishers
         * from their threads.
         *
         * @param nanoClock a monotonic clock in nanoseconds.
         * @return this builder.
         */
        public Builder clock(final LongSupplier nanoClock)
        {
            if (nanoClock == null)
            {
                throw new IllegalArgumentException("clock is required");
            }
            this.clock = nanoClock;
            return this;
        }

        /** Replaces the operator of every partition: for tests of the runtime. */
        Builder operatorFactory(final PartitionWorker.OperatorFactory factory)
        {
            this.operatorFactory = factory;
            return this;
        }

        /** @return a started engine. */
        public JoinEngine start()
        {
            if (resultHandlers == null)
            {
                throw new IllegalArgumentException("a result handler is required");
            }
            return new JoinEngine(this);
        }
    }

    /** @return the operator type name, for reports. */
    public String operatorName()
    {
        return spec.kind().name().toLowerCase(java.util.Locale.ROOT) + " " + spec.type().name().toLowerCase(java.util.Locale.ROOT);
    }
}
