package io.junction.join;

import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.RowStore;

/** Test fixture: a {@link PartitionState} in memory, with no spec and no layout (a state directory is refused). */
final class PartitionStates
{
    private PartitionStates()
    {
    }

    /**
     * @param config       the sizing and limits.
     * @param bucketLength bytes of a bucket in the key index.
     * @param timedRows    whether stored rows of both sides carry timer links.
     * @param counters     the counters the state reports into.
     * @param roomMaker    called while the state is at a limit.
     * @return a state in memory, rows taking what the key index leaves of the byte limit.
     */
    static PartitionState inMemory(
        final StateConfig config, final int bucketLength, final boolean timedRows, final JoinCounters counters,
        final PartitionState.RoomMaker roomMaker)
    {
        return inMemory(config, bucketLength, timedRows, counters, roomMaker, 0);
    }

    /** As the five-argument one, with {@code otherOffHeapBytes} of the operator's own structures taken from the rows' budget. */
    static PartitionState inMemory(
        final StateConfig config, final int bucketLength, final boolean timedRows, final JoinCounters counters,
        final PartitionState.RoomMaker roomMaker, final long otherOffHeapBytes)
    {
        return new PartitionState(config, null, null, bucketLength, timedRows ? RowStore.TIMED_BOTH : RowStore.TIMED_NONE,
            counters, roomMaker, otherOffHeapBytes);
    }
}
