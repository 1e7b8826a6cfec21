package io.junction.runtime;

import java.util.concurrent.CompletableFuture;

/**
 * Where a publisher takes the interval checkpoints ({@link EngineConfig#checkpointEveryEvents()},
 * {@link EngineConfig#checkpointInterval()}) it counts: handed in by the engine, which owns the checkpoints,
 * so that the publisher decides only when one is due. Called on the publisher's thread, after the row of
 * {@code step}.
 */
interface IntervalCheckpoints
{
    /**
     * @param step the input sequence number of the last row published, the checkpoint's position.
     * @return the checkpoint under way; the publisher takes no other until it is done.
     */
    CompletableFuture<CompletedCheckpoint> checkpoint(long step);
}
