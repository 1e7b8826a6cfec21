package io.junction.internal.metrics;

import io.junction.api.DeadLetterReason;
import io.junction.metrics.CheckpointPausePart;
import io.junction.metrics.HotKey;
import io.junction.metrics.OperatorCounters;
import io.junction.metrics.PartitionSnapshot;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import io.junction.api.Side;

/**
 * Metrics of one partition, safe to read from any thread. The partition thread is the only writer
 * (but for {@link #recordCheckpointWrite}, which a checkpoint's background writer calls while the partition
 * thread does not): it publishes with release stores ({@link #publish}), readers use acquire loads, so a
 * reader sees values no older than the last batch boundary and never a torn long.
 */
public final class PartitionMetrics
{
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private static final int ROWS_IN = 0;
    private static final int ROWS_OUT = 1;
    private static final int LATE_ROWS = 2;
    private static final int BAD_INPUTS = 3;
    private static final int EXPIRED_ROWS = 4;
    private static final int LIVE_LEFT = 5;
    private static final int LIVE_RIGHT = 6;
    private static final int STATE_BYTES = 7;
    private static final int PENDING_TIMERS = 8;
    private static final int WATERMARK = 9;
    private static final int HANDLER_ERRORS = 10;
    private static final int EVENTS = 11;
    private static final int USED_STATE_BYTES = 12;
    private static final int HASH_COLLISIONS = 13;
    private static final int LIVE_STATE_BYTES = 14;
    private static final int CHECKPOINTS = 15;
    private static final int CHECKPOINT_FAILURES = 16;
    private static final int LAST_CHECKPOINT_PAUSE = 17;
    private static final int MAX_CHECKPOINT_PAUSE = 18;
    private static final int LAST_CHECKPOINT_WRITTEN = 19;
    private static final int LAST_CHECKPOINT_LINKED = 20;
    private static final int USER_CODE_FAILURES = 21;
    private static final int EXPIRED_LEFT = 22;
    private static final int EXPIRED_RIGHT = 23;
    private static final int EVICTED_ROWS = 24;
    private static final int WATERMARK_SLICES = 25;
    private static final int MAX_WATERMARK_SLICE = 26;
    private static final int CHECKPOINT_WAITS = 27;
    private static final int LAST_CHECKPOINT_WRITE = 28;
    private static final int MAX_CHECKPOINT_WRITE = 29;
    private static final int LAST_CHECKPOINT_STAGED = 30;
    private static final int CHECKPOINT_SIDE_WAITS = 31;
    private static final int CHECKPOINT_SYNCHRONOUS_FALLBACKS = 32;
    private static final int MAX_FAN_OUT = 33;
    /** The last checkpoint's pause parts, one value per {@link CheckpointPausePart}, from here. */
    private static final int LAST_CHECKPOINT_PAUSE_PARTS = 34;
    private static final int PAUSE_PARTS = CheckpointPausePart.values().length;
    private static final int DEAD_LETTERS = LAST_CHECKPOINT_PAUSE_PARTS + PAUSE_PARTS;
    private static final DeadLetterReason[] REASONS = DeadLetterReason.values();
    private static final int COUNT = DEAD_LETTERS + REASONS.length;

    private final int partition;
    private final long[] values = new long[COUNT];
    /** Dead letters by reason ordinal, counted by the partition thread; copied out by {@link #publish}. */
    private final long[] deadLetters = new long[REASONS.length];
    /**
     * The partition's last hot-key report, an immutable list: the volatile write publishes it (a release
     * store) and the read sees it whole (an acquire load).
     */
    private volatile List<HotKey> hotKeys = List.of();

    public PartitionMetrics(final int partition)
    {
        this.partition = partition;
        LONGS.setRelease(values, WATERMARK, Long.MIN_VALUE);
    }

    /** Counts one dead letter; called by the partition thread, published with the next {@link #publish}. */
    public void countDeadLetter(final DeadLetterReason reason)
    {
        deadLetters[reason.ordinal()]++;
    }

    /** Copies the operator's counters; called by the partition thread at a batch boundary. */
    public void publish(final OperatorCounters counters, final long events, final long handlerErrors)
    {
        LONGS.setRelease(values, ROWS_IN, counters.rowsIn());
        LONGS.setRelease(values, ROWS_OUT, counters.rowsOut());
        LONGS.setRelease(values, LATE_ROWS, counters.lateRows());
        LONGS.setRelease(values, BAD_INPUTS, counters.badInputs());
        LONGS.setRelease(values, EXPIRED_ROWS, counters.expiredRows());
        LONGS.setRelease(values, LIVE_LEFT, counters.liveLeft());
        LONGS.setRelease(values, LIVE_RIGHT, counters.liveRight());
        LONGS.setRelease(values, STATE_BYTES, counters.stateBytes());
        LONGS.setRelease(values, PENDING_TIMERS, counters.pendingTimers());
        LONGS.setRelease(values, WATERMARK, counters.watermark());
        LONGS.setRelease(values, HANDLER_ERRORS, handlerErrors);
        LONGS.setRelease(values, USED_STATE_BYTES, counters.usedStateBytes());
        LONGS.setRelease(values, HASH_COLLISIONS, counters.hashCollisions());
        LONGS.setRelease(values, LIVE_STATE_BYTES, counters.liveStateBytes());
        LONGS.setRelease(values, USER_CODE_FAILURES, counters.userCodeFailures());
        LONGS.setRelease(values, EVENTS, events);
        LONGS.setRelease(values, EXPIRED_LEFT, counters.expiredRows(Side.LEFT));
        LONGS.setRelease(values, EXPIRED_RIGHT, counters.expiredRows(Side.RIGHT));
        LONGS.setRelease(values, EVICTED_ROWS, counters.evictedRows());
        LONGS.setRelease(values, WATERMARK_SLICES, counters.watermarkSlices());
        LONGS.setRelease(values, MAX_WATERMARK_SLICE, counters.maxWatermarkSliceNanos());
        LONGS.setRelease(values, MAX_FAN_OUT, counters.maxFanOut());
        for (int r = 0; r < deadLetters.length; r++)
        {
            LONGS.setRelease(values, DEAD_LETTERS + r, deadLetters[r]);
        }
    }

    /**
     * Records one checkpoint of this partition written on the partition thread (a synchronous one: its write
     * is its pause), at once (checkpoints are rare); called by the partition thread.
     *
     * @param pauseNanos how long the partition thread paused for it.
     * @param written    bytes of state it wrote.
     * @param linked     bytes of state it hard-linked from the previous checkpoint.
     * @param succeeded  whether it succeeded (a failure counts, its pause too).
     */
    public void recordCheckpoint(final long pauseNanos, final long written, final long linked, final boolean succeeded)
    {
        recordCheckpointPause(pauseNanos, false, 0);
        recordCheckpointWrite(pauseNanos, written, linked, succeeded);
    }

    /**
     * Records the partition thread's part of one checkpoint: its pause (from the barrier to the next event:
     * the wait for the previous write included), whether it waited for the previous checkpoint's background
     * write, and the bytes it staged. Called by the partition thread only.
     *
     * @param pauseNanos how long the partition thread paused for it.
     * @param waited     whether the barrier found the previous background write still in flight.
     * @param staged     bytes of dirty chunks copied at the cut (0 for a synchronous checkpoint).
     */
    public void recordCheckpointPause(final long pauseNanos, final boolean waited, final long staged)
    {
        recordCheckpointPause(pauseNanos, waited, staged, null);
    }

    /**
     * {@link #recordCheckpointPause(long, boolean, long)} with the pause's parts.
     *
     * @param pauseNanos how long the partition thread paused for it.
     * @param waited     whether it waited for the previous checkpoint's background write.
     * @param staged     bytes the cut staged (0 for a synchronous checkpoint).
     * @param parts      the pause's parts, ns, by {@link CheckpointPausePart} ordinal; null: none timed (all 0).
     */
    public void recordCheckpointPause(final long pauseNanos, final boolean waited, final long staged, final long[] parts)
    {
        for (int i = 0; i < PAUSE_PARTS; i++)
        {
            LONGS.setRelease(values, LAST_CHECKPOINT_PAUSE_PARTS + i, parts == null ? 0 : parts[i]);
        }
        LONGS.setRelease(values, LAST_CHECKPOINT_PAUSE, pauseNanos);
        LONGS.setRelease(values, MAX_CHECKPOINT_PAUSE, Math.max(pauseNanos, get(MAX_CHECKPOINT_PAUSE)));
        if (waited)
        {
            LONGS.setRelease(values, CHECKPOINT_WAITS, get(CHECKPOINT_WAITS) + 1);
        }
        LONGS.setRelease(values, LAST_CHECKPOINT_STAGED, staged);
    }

    /**
     * Records how one checkpoint's write ended: its count, its time (a background write's, from the hand-over
     * to the manifest; a synchronous one's pause) and its bytes. Called by the thread that finished the
     * write, before it reports the checkpoint done: the background writer, or the partition thread when no
     * background write is in flight (one writer at a time, ordered by the hand-over between them).
     *
     * @param writeNanos how long the write took.
     * @param written    bytes of state it wrote.
     * @param linked     bytes of state it hard-linked from the previous checkpoint.
     * @param succeeded  whether it succeeded.
     */
    public void recordCheckpointWrite(final long writeNanos, final long written, final long linked, final boolean succeeded)
    {
        LONGS.setRelease(values, succeeded ? CHECKPOINTS : CHECKPOINT_FAILURES,
            get(succeeded ? CHECKPOINTS : CHECKPOINT_FAILURES) + 1);
        LONGS.setRelease(values, LAST_CHECKPOINT_WRITE, writeNanos);
        LONGS.setRelease(values, MAX_CHECKPOINT_WRITE, Math.max(writeNanos, get(MAX_CHECKPOINT_WRITE)));
        LONGS.setRelease(values, LAST_CHECKPOINT_WRITTEN, written);
        LONGS.setRelease(values, LAST_CHECKPOINT_LINKED, linked);
    }

    /** Publishes a hot-key report taken by the partition thread (an immutable list). */
    public void publishHotKeys(final List<HotKey> report)
    {
        hotKeys = report;
    }

    /** @return the partition's last published hot-key report, most rows visited first. */
    public List<HotKey> hotKeys()
    {
        return hotKeys;
    }

    /** @return the partition this is the metrics of. */
    public int partition()
    {
        return partition;
    }

    /**
     * @return whether the partition, as of its last batch, holds {@code maxLiveRows} rows or more, or
     *         more than {@code maxUsedBytes} bytes of state: what a back-pressuring publisher asks.
     */
    public boolean atLimit(final long maxLiveRows, final long maxUsedBytes)
    {
        return get(LIVE_LEFT) + get(LIVE_RIGHT) >= maxLiveRows || get(USED_STATE_BYTES) > maxUsedBytes;
    }

    /** @return a consistent-enough copy for reporting. */
    public PartitionSnapshot snapshot(final long ringOccupancy, final long ringCapacity)
    {
        return snapshot(ringOccupancy, ringCapacity, false);
    }

    /** @return a consistent-enough copy for reporting, saying whether the partition's thread died. */
    public PartitionSnapshot snapshot(final long ringOccupancy, final long ringCapacity, final boolean failed)
    {
        final long[] byReason = new long[REASONS.length];
        for (int r = 0; r < byReason.length; r++)
        {
            byReason[r] = get(DEAD_LETTERS + r);
        }
        final long[] pauseParts = new long[PAUSE_PARTS];
        for (int i = 0; i < PAUSE_PARTS; i++)
        {
            pauseParts[i] = get(LAST_CHECKPOINT_PAUSE_PARTS + i);
        }
        return new PartitionSnapshot(
            partition,
            get(ROWS_IN), get(ROWS_OUT), get(LATE_ROWS), get(BAD_INPUTS), get(EXPIRED_ROWS),
            get(LIVE_LEFT), get(LIVE_RIGHT), get(STATE_BYTES), get(PENDING_TIMERS), get(WATERMARK),
            get(HANDLER_ERRORS), get(EVENTS), ringOccupancy, ringCapacity, byReason, failed,
            get(USED_STATE_BYTES), get(HASH_COLLISIONS), get(LIVE_STATE_BYTES),
            get(CHECKPOINTS), get(CHECKPOINT_FAILURES), get(LAST_CHECKPOINT_PAUSE), get(MAX_CHECKPOINT_PAUSE),
            get(LAST_CHECKPOINT_WRITTEN), get(LAST_CHECKPOINT_LINKED), get(USER_CODE_FAILURES),
            get(EXPIRED_LEFT), get(EXPIRED_RIGHT), get(EVICTED_ROWS), get(WATERMARK_SLICES), get(MAX_WATERMARK_SLICE),
            get(CHECKPOINT_WAITS), get(LAST_CHECKPOINT_WRITE), get(MAX_CHECKPOINT_WRITE), get(LAST_CHECKPOINT_STAGED),
            pauseParts, get(CHECKPOINT_SIDE_WAITS), get(CHECKPOINT_SYNCHRONOUS_FALLBACKS), get(MAX_FAN_OUT));
    }

    /**
     * Records the cut's running counts, read from the partition's cut after each checkpoint (partition thread).
     *
     * @param sideWaits            writes so far that waited for the writer's capture of a frozen chunk.
     * @param synchronousFallbacks cuts so far refused and checkpointed synchronously instead.
     */
    public void recordCutCounts(final long sideWaits, final long synchronousFallbacks)
    {
        LONGS.setRelease(values, CHECKPOINT_SIDE_WAITS, sideWaits);
        LONGS.setRelease(values, CHECKPOINT_SYNCHRONOUS_FALLBACKS, synchronousFallbacks);
    }

    private long get(final int index)
    {
        return (long)LONGS.getAcquire(values, index);
    }
}
