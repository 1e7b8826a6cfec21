package io.junction.runtime;

import java.util.concurrent.CompletableFuture;

/**
 * Decides, row by row, when a publisher's interval checkpoint is due ({@link EngineConfig#checkpointEveryEvents()}
 * rows, or {@link EngineConfig#checkpointInterval()} of wall time looked at every
 * {@link Publisher#CHECKPOINT_CLOCK_EVERY} rows), and starts it through the engine's {@link IntervalCheckpoints}.
 * Owned by the publisher's thread.
 */
final class IntervalCheckpointTrigger
{
    /** Rows between two (0: not by count), ns between two (0: not by time). */
    private final long checkpointEvery;
    private final long checkpointNanos;
    private final IntervalCheckpoints checkpoints;
    private long rowsSinceCheckpoint;
    private long lastCheckpointNanos;
    private CompletableFuture<CompletedCheckpoint> lastCheckpoint;

    private IntervalCheckpointTrigger(final long checkpointEvery, final long checkpointNanos,
        final IntervalCheckpoints checkpoints)
    {
        this.checkpointEvery = checkpointEvery;
        this.checkpointNanos = checkpointNanos;
        this.checkpoints = checkpoints;
        this.lastCheckpointNanos = System.nanoTime();
    }

    /** @return the trigger of an engine's interval, or null when it takes no interval checkpoints. */
    static IntervalCheckpointTrigger of(final EngineConfig config, final IntervalCheckpoints checkpoints)
    {
        final long every = config.checkpointEveryEvents();
        final long nanos = config.checkpointInterval().toNanos();
        return config.stateRoot() != null && (every > 0 || nanos > 0)
            ? new IntervalCheckpointTrigger(every, nanos, checkpoints) : null;
    }

    /**
     * Takes an interval checkpoint after the row of {@code step} when one is due, unless the previous one
     * is still under way (it is then taken after a later row).
     */
    void afterRow(final long step)
    {
        final long rows = ++rowsSinceCheckpoint;
        boolean due = checkpointEvery > 0 && rows >= checkpointEvery;
        long now = 0;
        if (!due && checkpointNanos > 0 && (rows & (Publisher.CHECKPOINT_CLOCK_EVERY - 1)) == 0)
        {
            now = System.nanoTime();
            due = now - lastCheckpointNanos >= checkpointNanos;
        }
        if (due && (lastCheckpoint == null || lastCheckpoint.isDone()))
        {
            rowsSinceCheckpoint = 0;
            lastCheckpointNanos = now != 0 ? now : System.nanoTime();
            lastCheckpoint = checkpoints.checkpoint(step);
        }
    }
}
