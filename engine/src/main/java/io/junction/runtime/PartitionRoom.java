package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.Side;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.join.FullPolicy;
import io.junction.join.StateConfig;

import java.util.concurrent.locks.LockSupport;

/**
 * The {@code BACK_PRESSURE} full policy as a publisher applies it: before an accumulating row goes into a
 * partition's ring, whether that partition is at its live-row or byte limit (read from the metrics it
 * publishes), and if so, give up ({@code tryPublish}) or wait until it has made room. Retractions are never
 * held back: they make the room. Owned by the publisher's thread.
 */
final class PartitionRoom
{
    private final PartitionMetrics[] metrics;
    private final boolean backPressure;
    private final long maxLiveRows;
    private final long maxUsedBytes;
    private final RingWriter rings;
    /** Null when the idle timeout is off. */
    private final IdlenessBroadcast idleness;

    PartitionRoom(final StateConfig state, final PartitionMetrics[] metrics, final RingWriter rings,
        final IdlenessBroadcast idleness)
    {
        this.metrics = metrics;
        this.backPressure = state.fullPolicy() == FullPolicy.BACK_PRESSURE;
        this.maxLiveRows = state.maxLiveRows();
        // Held back one arena chunk below the byte limit: the partition needs a whole chunk to grow.
        this.maxUsedBytes = state.maxStateBytes() - state.chunkSize();
        this.rings = rings;
        this.idleness = idleness;
    }

    /**
     * @param partition the row's partition, alive when asked.
     * @return {@link Publisher#PUBLISHED} when the partition may take the row; otherwise
     *         {@link Publisher#STATE_FULL} (not {@code wait}), {@link Publisher#CLOSED} or
     *         {@link Publisher#PARTITION_FAILED}.
     */
    int admit(final int partition, final ChangeKind kind, final Side side, final long step, final boolean wait)
    {
        if (backPressure && kind.isAccumulate() && metrics[partition].atLimit(maxLiveRows, maxUsedBytes))
        {
            if (!wait)
            {
                // The room may be waiting on the other input's idleness, and only a publisher broadcasts it.
                if (idleness != null)
                {
                    idleness.markOtherIdle(side, step, false);
                }
                return Publisher.STATE_FULL;
            }
            while (metrics[partition].atLimit(maxLiveRows, maxUsedBytes))
            {
                if (rings.isClosed())
                {
                    return Publisher.CLOSED;
                }
                if (rings.isFailed(partition))
                {
                    return Publisher.PARTITION_FAILED;
                }
                if (idleness != null)
                {
                    idleness.markOtherIdle(side, step, true);
                }
                // Room comes from watermarks and retractions, which take longer than a spin.
                LockSupport.parkNanos(50_000);
            }
            if (rings.isFailed(partition))
            {
                return Publisher.PARTITION_FAILED;
            }
        }
        return Publisher.PUBLISHED;
    }
}
