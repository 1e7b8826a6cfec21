package io.junction.runtime;

import io.junction.metrics.PartitionSnapshot;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.join.JoinOperators;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import org.HdrHistogram.Histogram;
import org.agrona.ErrorHandler;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

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
 * rules); {@link #metrics()} and {@link #sampleLatency()} may be called from any thread.
 */
public final class JoinEngine implements AutoCloseable
{
    private final JoinSpec spec;
    private final EngineConfig config;
    private final List<Disruptor<RingSlot>> disruptors = new ArrayList<>();
    private final RingBuffer<RingSlot>[] rings;
    private final PartitionWorker[] workers;
    private final PartitionMetrics[] metrics;
    private final LatencyRecorder[] latency;
    private final AtomicLong refusedRows = new AtomicLong();
    private volatile boolean closed;

    @SuppressWarnings("unchecked")
    private JoinEngine(final Builder builder)
    {
        this.spec = builder.spec;
        // One key-hash seed per engine, drawn here when not fixed: routing and every partition's index use it.
        this.config = builder.config.withState(builder.config.state().withResolvedHashSeed());
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
                workers[p] = new PartitionWorker(
                    (guardedResults, guardedDeadLetters) -> JoinOperators.create(spec, config.state(), guardedResults, guardedDeadLetters),
                    results, deadLetters, builder.errorHandler, metrics[p], latency[p], config.recordLatency());
                final Disruptor<RingSlot> disruptor = new Disruptor<>(
                    () -> new RingSlot(slotCapacity), config.ringSize(), threadFactory(p),
                    config.multiProducer() ? ProducerType.MULTI : ProducerType.SINGLE,
                    config.waitStrategy().create());
                disruptor.handleEventsWith(workers[p]);
                disruptors.add(disruptor);
                rings[p] = disruptor.getRingBuffer();
            }
        }
        catch (final RuntimeException | Error e)
        {
            closeUnstarted();
            throw e;
        }
        for (final Disruptor<RingSlot> disruptor : disruptors)
        {
            disruptor.start();
        }
        try
        {
            for (final PartitionWorker worker : workers)
            {
                worker.awaitStarted();
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting the partition threads", e);
        }
    }

    /** @return a builder for an engine running this join. */
    public static Builder builder(final JoinSpec spec)
    {
        return new Builder(spec);
    }

    private static ThreadFactory threadFactory(final int partition)
    {
        final AtomicInteger count = new AtomicInteger();
        return runnable ->
        {
            final Thread thread = new Thread(runnable, "junction-partition-" + partition +
                (count.getAndIncrement() == 0 ? "" : "-" + count.get()));
            thread.setDaemon(true);
            return thread;
        };
    }

    /** @return a new publisher into this engine. */
    public Publisher publisher()
    {
        return new Publisher(this, rings, spec, config.slotCapacity(), config.state(), metrics);
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
            snapshots.add(metrics[p].snapshot(ring.getBufferSize() - ring.remainingCapacity(), ring.getBufferSize()));
        }
        return Collections.unmodifiableList(snapshots);
    }

    /**
     * @return rows that publishers refused at the door (larger than a slot, or malformed), which never
     *         reached a partition; each publish call also returned the reason.
     */
    public long refusedRows()
    {
        return refusedRows.get();
    }

    void countRefused()
    {
        refusedRows.incrementAndGet();
    }

    /**
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
     * Drains every event published so far, stops the partition threads and frees their state.
     * Idempotent. Publishing concurrently with close is the caller's error: those events may be lost.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final Disruptor<RingSlot> disruptor : disruptors)
        {
            disruptor.shutdown();
        }
        boolean interrupted = false;
        for (final PartitionWorker worker : workers)
        {
            try
            {
                worker.awaitStopped();
            }
            catch (final InterruptedException e)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void closeUnstarted()
    {
        closed = true;
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
        private ErrorHandler errorHandler = new StderrErrorHandler();

        private Builder(final JoinSpec spec)
        {
            if (spec == null)
            {
                throw new IllegalArgumentException("spec is required");
            }
            this.spec = spec;
        }

        public Builder config(final EngineConfig config)
        {
            this.config = config;
            return this;
        }

        /** One result handler shared by every partition: it must be thread safe when partitions > 1. */
        public Builder resultHandler(final ResultHandler handler)
        {
            this.resultHandlers = p -> handler;
            return this;
        }

        /** A result handler per partition, each called by its partition thread only. */
        public Builder resultHandlers(final IntFunction<ResultHandler> factory)
        {
            this.resultHandlers = factory;
            return this;
        }

        /** One dead-letter handler shared by every partition: it must be thread safe when partitions > 1. */
        public Builder deadLetterHandler(final DeadLetterHandler handler)
        {
            this.deadLetterHandlers = p -> handler;
            return this;
        }

        /** A dead-letter handler per partition. */
        public Builder deadLetterHandlers(final IntFunction<DeadLetterHandler> factory)
        {
            this.deadLetterHandlers = factory;
            return this;
        }

        /** Where exceptions thrown inside partitions (by handlers or operators) are reported. */
        public Builder errorHandler(final ErrorHandler errorHandler)
        {
            this.errorHandler = errorHandler;
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

    /** Reports partition errors as one line each on standard error: never silent, never fatal. */
    static final class StderrErrorHandler implements ErrorHandler
    {
        @Override
        public void onError(final Throwable throwable)
        {
            System.err.println("junction: error in partition thread " + Thread.currentThread().getName() + ": " + throwable);
        }
    }

    /** @return the operator type name, for reports. */
    public String operatorName()
    {
        return spec.kind().name().toLowerCase(java.util.Locale.ROOT) + " " + spec.type().name().toLowerCase(java.util.Locale.ROOT);
    }
}
