package io.junction.runtime;

import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.internal.durable.SeedRecord;
import io.junction.internal.metrics.EngineBeans;
import io.junction.internal.metrics.ExpansionCounters;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.join.JoinOperator;
import io.junction.join.StateConfig;
import io.junction.metrics.ExpansionCounts;
import io.junction.metrics.HotKey;
import io.junction.metrics.PartitionSnapshot;
import org.HdrHistogram.Histogram;
import org.agrona.ErrorHandler;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
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
 * {@link LoggingErrorHandler}) and is counted; the partition goes on ({@link PartitionFailedException} if its
 * thread dies even so). Durable mode ({@link EngineConfig#withStateRoot}): {@link #checkpoint(long[])},
 * {@link #restoredPositions()}, the per-partition calls and {@link #close(long[])}. The engine's metrics are
 * JMX beans from start until close ({@link Builder#name(String)}). docs/JAVA_API.md, "The engine at run time",
 * says how the threads, errors, durable mode, the state root's lock and the JMX beans behave.
 */
public final class JoinEngine implements AutoCloseable
{
    /** Least ms between two hot-key reports of a partition ({@link #hotKeys(int)}): a report allocates. */
    public static final long HOT_KEYS_INTERVAL_MILLIS = 100;

    /**
     * How {@link #closeShortfall()} starts when the clean close's checkpoint failed (every event was processed,
     * but the state could not be checkpointed); the rest is the failure's message, naming the file.
     */
    public static final String CLOSE_CHECKPOINT_FAILED = "the clean close's checkpoint failed: ";

    /** The shared checkpoint root's key-hash seed file, one for every process of a group ({@link SeedRecord}). */
    static final String SEED_FILE = SeedRecord.FILE;

    private static final System.Logger LOGGER = System.getLogger("io.junction.runtime");

    private final String name;

    private final JoinSpec spec;
    private final EngineConfig config;
    /** The partitions' Disruptors and threads; where the checkpoints' barriers go. */
    private final PartitionRings rings;
    private final PartitionWorker[] workers;
    private final PartitionMetrics[] metrics;
    private final LatencyRecorder[] latency;
    private final AtomicLong refusedRows = new AtomicLong();
    private final ExpansionCounters expansions = new ExpansionCounters();
    private final LoggingErrorHandler log = new LoggingErrorHandler();
    /** Null when the idle timeout is off. */
    private final InputIdleness idleness;

    /** Durable mode: the checkpoints, the recovery and each partition's files; null in memory mode. */
    private final CheckpointCoordinator checkpoints;
    /** The close, the undoing of a failed start, and the state root's lock. */
    private final EngineShutdown shutdown;
    /** The producer claim and the durable API's checks in front of the coordinator. */
    private final EngineRequests requests;
    /** {@link #inspect}: the reads of a key's stored rows, asked of the partitions. */
    private final EngineInspection inspection;

    private JoinEngine(final Builder builder)
    {
        // Before anything is allocated: rings that cannot fit end the start with a message, not an OutOfMemoryError.
        builder.config.checkRingMemory();
        // Beside it: a state cap the machine cannot hold is refused, a default one lowered (MemoryBudget).
        final EngineConfig budgeted = (builder.memoryBudget != null ? builder.memoryBudget : MemoryBudget.ofMachine())
            .apply(builder.config);
        this.spec = builder.spec;
        // One key-hash seed per engine, drawn here when not fixed: routing and every partition's index use it.
        this.config = budgeted.withState(HashSeeds.resolve(budgeted).withResolvedHashSeed());
        // Before the name is taken: it reads the user's clock, which may throw.
        this.idleness = config.idleTimeoutNanos() > 0 ? new InputIdleness(builder.clock, config.idleTimeoutNanos()) : null;
        this.name = EngineNames.reserve(builder.name);
        final int partitions = config.partitions();
        workers = new PartitionWorker[partitions];
        rings = new PartitionRings(config, workers);
        metrics = new PartitionMetrics[partitions];
        latency = new LatencyRecorder[partitions];
        checkpoints = config.stateRoot() != null ? new CheckpointCoordinator(config, spec.fingerprint()) : null;
        shutdown = new EngineShutdown(name, config, rings, workers, checkpoints, log);
        requests = new EngineRequests(config, rings, checkpoints);
        inspection = new EngineInspection(spec, rings, workers);
        try
        {
            if (checkpoints != null)
            {
                shutdown.lockRoot();
            }
            for (int p = 0; p < partitions; p++)
            {
                metrics[p] = new PartitionMetrics(p);
                latency[p] = new LatencyRecorder();
            }
            final WorkerFactory workerFactory = new WorkerFactory(builder, spec, config, checkpoints, log);
            if (checkpoints == null)
            {
                workerFactory.create(workers, metrics, latency);
            }
            else
            {
                // Recovery chooses the state the operators open on, and falls back when a clean close's does not open.
                checkpoints.start(() -> workerFactory.create(workers, metrics, latency), shutdown::closeWorkers);
            }
            rings.create(builder.threadFactory);
        }
        catch (final IOException e)
        {
            final CheckpointException failure = new CheckpointException("junction: cannot recover the durable state in " +
                config.stateRoot() + ": " + e.getMessage(), e);
            shutdown.closeUnstarted(failure);
            throw failure;
        }
        catch (final RuntimeException | Error e)
        {
            shutdown.closeUnstarted(e);
            throw e;
        }
        rings.start();
        shutdown.awaitStarted();
        shutdown.registered(EngineBeans.register(name, operatorName(), metrics, latency,
            rings::depth, rings::size, refusedRows::get, rings::isFailed, expansions, inspection::inspectJson, inspection::explainJson));
    }

    /**
     * @param spec the join to run.
     * @return a builder for an engine running this join.
     */
    public static Builder builder(final JoinSpec spec)
    {
        return new Builder(spec);
    }

    /** @return a new publisher into this engine. */
    public Publisher publisher()
    {
        return new Publisher(this, rings.rings(), spec, config.slotCapacity(), config.state(), metrics, idleness,
            this::intervalCheckpoint);
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
        return rings.snapshots(metrics);
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
     * @return the engine's answers to "why does this row (not) join?" and "what is stored under this key?", asked
     *         of its partitions between two events (docs/SEMANTICS.md 14); callable from any thread.
     */
    public EngineInspection inspection()
    {
        return inspection;
    }


    /**
     * @return rows that publishers refused at the door (larger than a slot, malformed, or arguments
     *         that do not describe a row, or rows that do not fit their schema: {@link Publisher#ROW_TOO_LARGE},
     *         {@link Publisher#MALFORMED_ROW}, {@link Publisher#SCHEMA_MISMATCH},
     *         {@link Publisher#INVALID_ARGUMENT}), which never reached a partition; each publish call also
     *         returned the reason. Rows to retry ({@link Publisher#BACK_PRESSURED}, {@link Publisher#STATE_FULL})
     *         and rows a closed engine or a dead partition did not take are not counted.
     */
    public long refusedRows()
    {
        return refusedRows.get();
    }

    /** @return the publishers' row-expansion counts (docs/SEMANTICS.md 12): input rows, rows made, none made, failed. */
    public ExpansionCounts expansions()
    {
        return expansions;
    }

    ExpansionCounters expansionCounters()
    {
        return expansions;
    }

    void countRefused()
    {
        refusedRows.incrementAndGet();
    }

    boolean isFailed(final int partition)
    {
        return rings.isFailed(partition);
    }

    /** Claims the engine for the first thread that publishes, unless it is multi-producer ({@link EngineRequests}). */
    void claimProducer(final Thread thread)
    {
        requests.claimProducer(thread);
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
        return LatencyRecorder.sampleIntervals(latency);
    }

    /**
     * Of the ingest-to-emit latencies since the previous call, those of results that watermark work emitted: a
     * watermark, an input's idleness or the end of input closed their rows, or a slice of an earlier watermark's work
     * (docs/OPERATIONS.md, "Where the tail comes from"). The rest were emitted at their own row's arrival. Sampled on
     * its own: a load generator takes it at the same points as {@link #sampleLatency()}.
     *
     * @return the values, merged over the partitions.
     */
    public Histogram sampleWatermarkLatency()
    {
        return LatencyRecorder.sampleWatermarkWorkIntervals(latency);
    }

    boolean isClosed()
    {
        return rings.isClosed();
    }

    /**
     * Durable mode: the positions the state was recovered at when the engine started on a state root that
     * held state: those of the clean close that left it, or of the checkpoint it was restored from. The
     * caller resumes its input after them (the replay: from the step after; Kafka: from the offsets).
     *
     * @return a copy of the positions; null when the engine started empty (a new root, or one whose run
     *         never completed a checkpoint, or any root with a shared checkpoint root, where partitions are
     *         taken over one at a time: {@link #takeOverPartition}) or keeps its state in memory.
     */
    public long[] restoredPositions()
    {
        final long[] restored = checkpoints == null ? null : checkpoints.restoredPositions();
        return restored == null ? null : restored.clone();
    }

    /** @return the id of the checkpoint the engine restored at start; -1 when it reopened a clean close or started empty. */
    public long restoredCheckpointId()
    {
        return checkpoints == null ? -1 : checkpoints.restoredCheckpointId();
    }

    /**
     * Takes a checkpoint of every partition: a consistent cut. A barrier goes into every partition's ring
     * behind the events published so far; each partition thread, on reaching it, lets its
     * {@link Builder#beforeCheckpoint sink flush}, has its operator persist its state and copies the state
     * directory into {@code <root>/partition-<p>/checkpoints/chk-<id>/} (only the chunks that changed
     * since the previous checkpoint are written; the others are hard links), then goes on with the events
     * behind the barrier. The checkpoint is complete when every partition has written its part, manifest
     * last; a restart restores the newest checkpoint complete in every partition.
     *
     * <p>Thread: call it from the thread that publishes, between two publish calls, so that the barrier
     * follows exactly the events that {@code positions} describe. On a single-producer engine (the default)
     * any other thread is refused with {@link IllegalStateException}, as a publish would be. On a
     * multi-producer engine any thread may call it, but the barrier goes into the rings one at a time,
     * racing the other producers' rows: the producers must be quiesced (no publish under way or until the
     * call returns) for {@code positions} to describe the cut; interval checkpoints are refused there
     * ({@link EngineConfig#withCheckpointInterval}). Two checkpoints asked for at once from two threads may
     * reach the rings in different orders; the older one then fails (a partition only writes a checkpoint
     * newer than every one it has).
     *
     * <p>It waits while a ring is full (as {@code publish} does), not for the checkpoint: wait on the
     * future for that. A failure in any partition (its state could not be persisted or copied, its thread
     * died, the engine closed first) completes the future with a {@link CheckpointException} naming the
     * partition and file; the partitions go on processing either way, and the previous complete
     * checkpoint remains the one to restore.
     *
     * @param positions the caller's input positions that this cut corresponds to (opaque longs: source
     *                  offsets, the replay step), stored with the checkpoint and returned by
     *                  {@link #restoredPositions()} after a restore.
     * @return completes when the checkpoint is complete in every partition, or failed.
     * @throws IllegalStateException when the engine keeps its state in memory, has a shared checkpoint root
     *         ({@link EngineConfig#withCheckpointRoot}: use {@link #checkpointPartition}), or the calling
     *         thread is not the engine's producer.
     * @throws IllegalArgumentException when positions is null.
     */
    public CompletableFuture<CompletedCheckpoint> checkpoint(final long[] positions)
    {
        requests.refuseWithCheckpointRoot("checkpoint(positions)");
        return requests.submit(requests.allPartitions(), positions, CheckpointRequest.Mode.CHECKPOINT);
    }

    /**
     * Takes a checkpoint of one partition while the others go on (for moving a partition between
     * processes); otherwise as {@link #checkpoint(long[])}. It does not count for an engine-wide restore,
     * which needs a checkpoint complete in every partition; {@link #restorePartition(int)} restores it.
     *
     * @param partition the partition.
     * @param positions the caller's input positions of this partition's cut.
     * @return completes when the partition's checkpoint is complete, or failed.
     * @throws IllegalStateException as {@link #checkpoint(long[])}.
     * @throws IllegalArgumentException when positions is null or the partition does not exist.
     */
    public CompletableFuture<CompletedCheckpoint> checkpointPartition(final int partition, final long[] positions)
    {
        requests.checkPartition(partition);
        return requests.submit(new int[] {partition}, positions, CheckpointRequest.Mode.CHECKPOINT);
    }

    /**
     * Replaces one partition's state with its newest complete checkpoint while the other partitions go
     * on: a restore event goes into the partition's ring (so the events published before it are applied
     * to the old state, those after it to the restored one); the partition thread verifies the checkpoint
     * (a damaged one is passed over for the one before, as at start), closes its operator, copies the
     * checkpoint into its state directory and opens a new operator on it. The future's
     * {@link CompletedCheckpoint#positions()} are the positions to resume that partition's input from.
     * A partition whose restore fails after its old state was released has no state: it fails
     * ({@link PartitionFailedException}). Thread: as {@link #checkpoint(long[])}.
     *
     * @param partition the partition.
     * @return completes with the checkpoint restored, or failed.
     * @throws IllegalStateException as {@link #checkpoint(long[])}.
     * @throws IllegalArgumentException when the partition does not exist.
     */
    public CompletableFuture<CompletedCheckpoint> restorePartition(final int partition)
    {
        requests.checkPartition(partition);
        return requests.submit(new int[] {partition}, null, CheckpointRequest.Mode.RESTORE);
    }

    /**
     * Takes over one partition from the shared checkpoint store (for a process that has just been given
     * the partition): as {@link #restorePartition(int)}, through the partition's ring (the events
     * published before it apply to the old state), the partition's newest complete checkpoint replaces
     * its state, a damaged one passed over for the one before; but when the partition has no checkpoint
     * at all (nobody ever checkpointed it), its state is emptied instead and the future completes with
     * {@link CompletedCheckpoint#positions()} null and {@link CompletedCheckpoint#id()} -1 (resume the
     * input from its own committed position); a checkpoint directory without its manifest (one whose
     * writer died) is no checkpoint. When checkpoints exist but every one is damaged it fails,
     * never silently empty; the partition then keeps the state it had (nothing was released). A failure
     * after the old state was released fails the partition, as a restore's does. Thread: as
     * {@link #checkpoint(long[])}.
     *
     * @param partition the partition.
     * @return completes with the checkpoint restored (or positions null and id -1), or failed.
     * @throws IllegalStateException when the engine keeps its state in memory, or the calling thread is not
     *         the engine's producer.
     * @throws IllegalArgumentException when the partition does not exist.
     */
    public CompletableFuture<CompletedCheckpoint> takeOverPartition(final int partition)
    {
        requests.checkPartition(partition);
        return requests.submit(new int[] {partition}, null, CheckpointRequest.Mode.TAKE_OVER);
    }

    /**
     * Takes over one partition at the cut its input committed (for a caller that commits its input
     * positions after each checkpoint, atomically with its output: the Kafka runner's exactly-once mode):
     * as {@link #takeOverPartition(int)}, but the checkpoint restored is the newest complete one whose
     * {@link CompletedCheckpoint#positions() positions} equal {@code positions} exactly; newer ones (written
     * but never committed: their outputs were never made visible) and damaged ones are passed over.
     * {@code positions} null means nothing was ever committed: the partition's state is emptied even when
     * checkpoints exist (none of them was committed), as {@link #dropPartition} does, and the future completes
     * with positions null and id -1.
     * When no intact checkpoint has those positions the future fails with a {@link CheckpointException}
     * naming the positions and the checkpoint directory, and the partition keeps the state it had.
     *
     * <p>With a shared checkpoint root a partition's pruning keeps its newest two complete checkpoints and
     * the one it was restored from or last wrote before; so with one commit per checkpoint (checkpoint,
     * then commit its positions, before the next checkpoint) the committed one is always kept, even when
     * the process dies between a checkpoint and its commit, twice in a row. Thread: as
     * {@link #checkpoint(long[])}.
     *
     * @param partition the partition.
     * @param positions the committed positions (compared with {@link java.util.Arrays#equals(long[], long[])}),
     *                  or null when nothing was ever committed.
     * @return completes with the checkpoint restored (or positions null and id -1), or failed.
     * @throws IllegalStateException when the engine keeps its state in memory, or the calling thread is not
     *         the engine's producer.
     * @throws IllegalArgumentException when the partition does not exist.
     */
    public CompletableFuture<CompletedCheckpoint> takeOverPartition(final int partition, final long[] positions)
    {
        requests.checkPartition(partition);
        return positions == null ? requests.submit(new int[] {partition}, null, CheckpointRequest.Mode.DROP)
            : requests.submit(new int[] {partition}, positions, CheckpointRequest.Mode.TAKE_OVER_AT);
    }

    /**
     * Discards one partition's state and leaves it empty (for a process whose partition was lost or handed
     * away: it frees the memory and files), through the partition's ring, as
     * {@link #takeOverPartition(int)}: nothing is persisted and no checkpoint taken. Completes with
     * {@link CompletedCheckpoint#positions()} null and {@link CompletedCheckpoint#id()} -1. Thread: as
     * {@link #checkpoint(long[])}.
     *
     * @param partition the partition.
     * @return completes once the partition is empty, or failed.
     * @throws IllegalStateException when the engine keeps its state in memory, or the calling thread is not
     *         the engine's producer.
     * @throws IllegalArgumentException when the partition does not exist.
     */
    public CompletableFuture<CompletedCheckpoint> dropPartition(final int partition)
    {
        requests.checkPartition(partition);
        return requests.submit(new int[] {partition}, null, CheckpointRequest.Mode.DROP);
    }

    /** A publisher's interval checkpoint; failures are logged (and counted in the partitions' metrics). */
    CompletableFuture<CompletedCheckpoint> intervalCheckpoint(final long step)
    {
        final CompletableFuture<CompletedCheckpoint> future = checkpoint(new long[] {step});
        future.whenComplete((done, failure) ->
        {
            if (failure != null)
            {
                LOGGER.log(System.Logger.Level.WARNING, "junction: interval " + failure.getMessage());
            }
        });
        return future;
    }

    /**
     * A clean close in durable mode: drains every partition as {@link #close()} does, has each operator
     * persist and release its state, takes a checkpoint of every partition at {@code positions} (the
     * {@link Builder#beforeCheckpoint} hook runs; nearly every chunk is a hard link to the previous
     * checkpoint's), confirms it, and only then writes {@code positions} into each partition's clean-close
     * file ({@code <root>/partition-<p>/CLOSED}), so that the next start reopens the state as it is, without
     * copying a checkpoint, and reports {@code positions} from {@link #restoredPositions()}; a crash after
     * that start restores the close's checkpoint, never an older one. When a partition could not drain in
     * time, died, or could not write its part of the checkpoint, no clean-close file is written (a warning
     * is logged); the next start then restores every partition from the newest complete checkpoint.
     * Thread: the producer's, after its last publish (the positions must describe everything published).
     * In memory mode it is {@link #close()}.
     *
     * @param positions the caller's input positions after the last event published.
     * @return as {@link #closeCompletely()}: in durable mode also false when the clean-close record was not
     *         written.
     * @throws IllegalArgumentException when positions is null.
     * @throws IllegalStateException with a shared checkpoint root ({@link EngineConfig#withCheckpointRoot}):
     *         cuts are per partition there ({@link #checkpointPartition}); the engine is not closed.
     */
    public boolean close(final long[] positions)
    {
        if (positions == null)
        {
            throw new IllegalArgumentException("positions are required (an empty array when there are none)");
        }
        requests.refuseWithCheckpointRoot("close(positions)");
        return shutdown.closeCleanly(positions);
    }

    /**
     * Closes as {@link #close()} does and says whether the close did all it had to: every event published
     * was processed, every partition thread stopped and none had died (and, for {@link #close(long[])}
     * in durable mode, the clean-close record was written). False when close gave up: no progress within
     * {@link EngineConfig#closeTimeoutMillis()}, an interrupt, a dead partition; {@link #closeShortfall()}
     * then says what was left. Called on a partition thread it cannot wait, and returns false.
     *
     * @return whether the close completed.
     */
    public boolean closeCompletely()
    {
        return shutdown.closeCompletely();
    }

    /**
     * @return what the close left undone (the events not processed per partition, a dead partition, no
     *         clean-close record), or null when it completed or has not run.
     */
    public String closeShortfall()
    {
        return shutdown.closeShortfall();
    }

    /**
     * Drains every event published so far, stops the partition threads and frees their state, waiting
     * {@link EngineConfig#closeTimeoutMillis()} and past it while a partition is still making progress
     * (an event, a result or a dead letter at least every second, or every close timeout when longer):
     * after that, close logs what it could not drain and returns (a partition still inside a handler
     * frees its state when that handler returns); {@link #closeCompletely()} tells the caller.
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
        shutdown.close();
    }

    /** Creates a partition's operator from its state config (with its state directory in durable mode). */
    @FunctionalInterface
    interface StateOperatorFactory
    {
        JoinOperator create(StateConfig state, ResultHandler guardedResults, DeadLetterHandler guardedDeadLetters);
    }

    /** Collects what an engine needs; {@link #start()} builds and starts it. */
    public static final class Builder
    {
        private final JoinSpec spec;
        private EngineConfig config = EngineConfig.defaults();
        IntFunction<ResultHandler> resultHandlers;
        IntFunction<DeadLetterHandler> deadLetterHandlers = p -> DeadLetterHandler.NONE;
        ErrorHandler errorHandler;
        private ThreadFactory threadFactory;
        IntConsumer onThreadStart;
        StateOperatorFactory stateOperatorFactory;
        IntConsumer beforeCheckpoint;
        /** The machine's memory as the start checks it; null for this machine's ({@link MemoryBudget#ofMachine}). */
        private MemoryBudget memoryBudget;
        private String name;
        private LongSupplier clock = System::nanoTime;


        /**
         * Tests: the physical memory the start checks the state cap against, instead of this machine's.
         *
         * @param budget the budget.
         * @return this builder.
         */
        Builder memoryBudget(final MemoryBudget budget)
        {
            this.memoryBudget = budget;
            return this;
        }

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

        /**
         * Durable mode: a hook run on partition {@code p}'s thread at each checkpoint barrier, before the
         * state is persisted, with the partition number: the place for a sink to make durable the output
         * this partition has handed it so far (flush, fsync), since a restore will not produce it again. If it
         * throws, the checkpoint fails (see {@link JoinEngine#checkpoint(long[])}).
         *
         * @param hook called with the partition number on each partition thread at each checkpoint.
         * @return this builder.
         */
        public Builder beforeCheckpoint(final IntConsumer hook)
        {
            this.beforeCheckpoint = hook;
            return this;
        }

        /**
         * Replaces the operator of every partition, given each partition's state config: the one seam of the
         * runtime's tests, whose factories (test code) build on it.
         */
        Builder stateOperatorFactory(final StateOperatorFactory factory)
        {
            this.stateOperatorFactory = factory;
            return this;
        }

        /** @return a started engine. */
        public JoinEngine start()
        {
            if (resultHandlers == null)
            {
                throw new IllegalArgumentException("a result handler is required");
            }
            // Before anything is allocated: a missing --add-exports/--add-opens is one line naming it, not an IllegalAccessError.
            JvmFlags.check(config);
            return new JoinEngine(this);
        }
    }

    /** @return the operator type name, for reports. */
    public String operatorName()
    {
        return spec.kind().name().toLowerCase(Locale.ROOT) + " " + spec.type().name().toLowerCase(Locale.ROOT);
    }
}
