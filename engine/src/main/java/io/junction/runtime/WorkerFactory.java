package io.junction.runtime;

import io.junction.api.DeadLetterHandler;
import io.junction.api.JoinSpec;
import io.junction.api.ResultHandler;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import org.agrona.ErrorHandler;

import java.util.concurrent.TimeUnit;

/**
 * Creates the engine's partition workers at start: each partition's handlers from the builder, its operator
 * factory (the join's operator on the partition's state config, with its state directory and restored sums in
 * durable mode, or the runtime tests' replacement) and, in durable mode, its files and its failure report to the
 * checkpoints. Runs on the starting thread, again when recovery falls back from a clean close's state
 * ({@link CheckpointCoordinator#start}).
 */
final class WorkerFactory
{
    private final JoinEngine.Builder builder;
    private final JoinSpec spec;
    private final EngineConfig config;
    /** Null in memory mode. */
    private final CheckpointCoordinator checkpoints;
    private final LoggingErrorHandler log;

    WorkerFactory(final JoinEngine.Builder builder, final JoinSpec spec, final EngineConfig config,
        final CheckpointCoordinator checkpoints, final LoggingErrorHandler log)
    {
        this.builder = builder;
        this.spec = spec;
        this.config = config;
        this.checkpoints = checkpoints;
        this.log = log;
    }

    /**
     * @return the partition's state config carrying the sums its last restore returned (taken once: the
     *         operator created with it reopens the restored files without reading them again), or as is.
     */
    private static StateConfig restored(final StateConfig state, final DurablePartition durable)
    {
        final byte[] sums = durable == null ? null : durable.takeRestoredSums();
        return sums == null ? state : state.withRestoredChunkSums(sums);
    }

    /** Fills {@code workers}, one per partition, each opening its operator. */
    void create(final PartitionWorker[] workers, final PartitionMetrics[] metrics, final LatencyRecorder[] latency)
    {
        for (int p = 0; p < workers.length; p++)
        {
            final ResultHandler results = builder.resultHandlers.apply(p);
            final DeadLetterHandler deadLetters = builder.deadLetterHandlers.apply(p);
            final StateConfig state = checkpoints == null ? config.state() :
                config.state().withStateDirectory(checkpoints.durable(p).stateDirectory());
            final DurablePartition durable = checkpoints == null ? null : checkpoints.durable(p);
            final PartitionWorker.OperatorFactory factory;
            if (builder.stateOperatorFactory != null)
            {
                factory = (guardedResults, guardedDeadLetters) ->
                    builder.stateOperatorFactory.create(restored(state, durable), guardedResults, guardedDeadLetters);
            }
            else
            {
                factory = new PartitionWorker.OperatorFactory()
                {
                    @Override
                    public JoinOperator create(final ResultHandler guardedResults, final DeadLetterHandler guardedDeadLetters)
                    {
                        return JoinOperators.create(spec, restored(state, durable), guardedResults, guardedDeadLetters);
                    }

                    @Override
                    public JoinOperator create(
                        final ResultHandler guardedResults, final DeadLetterHandler guardedDeadLetters,
                        final ErrorHandler guardedErrors)
                    {
                        // The error handler handed in, not found in the result handler.
                        return JoinOperators.create(spec, restored(state, durable), guardedResults, guardedDeadLetters,
                            guardedErrors);
                    }
                };
            }
            workers[p] = new PartitionWorker(p, factory,
                results, deadLetters, builder.errorHandler != null ? builder.errorHandler : log, log,
                builder.onThreadStart, metrics[p], latency[p], config.recordLatency(),
                config.state().hotKeys() > 0 ? TimeUnit.MILLISECONDS.toNanos(JoinEngine.HOT_KEYS_INTERVAL_MILLIS) : 0,
                checkpoints == null ? null : checkpoints.durable(p), builder.beforeCheckpoint);
            if (checkpoints != null)
            {
                workers[p].onFailure(checkpoints::partitionFailed);
            }
            if (checkpoints != null && !workers[p].isDurable())
            {
                throw new IllegalStateException("partition " + p + "'s operator keeps its state in memory although the engine " +
                    "has a state root (" + config.stateRoot() + "): durable mode needs operators that keep their state in files");
            }
        }
    }
}
