package io.junction.metrics;

import io.junction.api.DeadLetterReason;

/**
 * An immutable copy of one partition's metrics, as of that partition's last batch: what
 * {@code JoinEngine.metrics()} returns and the JMX beans read.
 */
public final class PartitionSnapshot
{
    /** The partition index, 0-based. */
    public final int partition;
    /** Input rows received, both sides. */
    public final long rowsIn;
    /** Output rows emitted, of any kind. */
    public final long rowsOut;
    /** Rows dead-lettered as late. */
    public final long lateRows;
    /** Rows dead-lettered as bad input (all reasons but lateness). */
    public final long badInputs;
    /** Rows removed from state by expiry (interval bounds, fired windows, TTL). */
    public final long expiredRows;
    /** Of those, a regular join's rows dropped by state TTL or eviction, left side (docs/SEMANTICS.md 4.7). */
    public final long expiredLeft;
    /** Of those, a regular join's rows dropped by state TTL or eviction, right side. */
    public final long expiredRight;
    /** A regular join's rows evicted by the {@code expire-oldest} policy before their TTL. */
    public final long evictedRows;
    /** Live left rows in state. */
    public final long liveLeft;
    /** Live right rows in state. */
    public final long liveRight;
    /** Off-heap bytes of the partition's state (key index, buckets, row arena). */
    public final long stateBytes;
    /** Timers pending in the partition's wheels. */
    public final long pendingTimers;
    /** The join's watermark in this partition, {@link Long#MIN_VALUE} before both inputs have one. */
    public final long watermark;
    /** Exceptions thrown by result or dead-letter handlers (each passed to the error handler). */
    public final long handlerErrors;
    /** Ring events processed: rows, watermarks and the end of input. */
    public final long events;
    /** Ring slots in use when the snapshot was taken. */
    public final long ringOccupancy;
    /** Ring slots in all. */
    public final long ringCapacity;
    /**
     * Whether the partition's thread died (an error escaped every guard): its rows are no longer
     * processed and publishing to it returns {@code Publisher.PARTITION_FAILED}.
     */
    public final boolean failed;
    /**
     * What the byte limit ({@code junction.state.maxBytes}) counts: bytes in live records plus the key index at its
     * full capacity (falls as rows leave, unlike {@link #stateBytes}). Not a part of {@link #stateBytes}: while the
     * index is below capacity it is larger (docs/OPERATIONS.md), so compare it with the limit, not with that.
     */
    public final long usedStateBytes;
    /** Rows probes passed over because their key differed under an equal key hash (see {@code OperatorCounters}). */
    public final long hashCollisions;
    /** User filters, conditions and coGroup functions that threw ({@link OperatorCounters#userCodeFailures()}). */
    public final long userCodeFailures;
    /** Bytes the live rows account for (see {@code OperatorCounters#liveStateBytes}): divided by the live rows, the state a row costs. */
    public final long liveStateBytes;
    /** Checkpoints this partition has written (durable mode). */
    public final long checkpoints;
    /** Checkpoints that failed in this partition (each failed the whole checkpoint). */
    public final long checkpointFailures;
    /**
     * How long the partition thread paused for its last checkpoint, ns, from the barrier reaching it to its next
     * event: the pending watermark work finished, a wait for the previous background write still in flight, the
     * cut (the dirty chunks frozen, the heap image written); a synchronous checkpoint's (Chronicle Map index)
     * persist, copy and fsync. In parts: {@link #lastCheckpointPauseNanos(CheckpointPausePart)}. 0 before the first.
     */
    public final long lastCheckpointPauseNanos;
    /** The longest checkpoint pause of the partition thread so far, ns. */
    public final long maxCheckpointPauseNanos;
    /** Bytes of state the last checkpoint wrote (chunks that changed). */
    public final long lastCheckpointBytesWritten;
    /** Bytes of state the last checkpoint hard-linked from the one before (chunks that did not change). */
    public final long lastCheckpointBytesLinked;
    /**
     * Checkpoint barriers that found the previous checkpoint's background write still in flight and waited for
     * it (the wait is part of their pause, {@link #lastCheckpointPauseNanos}).
     */
    public final long checkpointWaits;
    /**
     * How long the last checkpoint's write took, ns: a background write's from the cut's hand-over to its
     * manifest (the partition went on meanwhile); a synchronous one's (a Chronicle Map index) its pause.
     */
    public final long lastCheckpointWriteNanos;
    /** The longest checkpoint write so far, ns. */
    public final long maxCheckpointWriteNanos;
    /** Bytes of dirty chunks the partition thread copied at the last checkpoint's cut (0 for a synchronous one). */
    public final long lastCheckpointBytesStaged;
    /** Slices of watermark work done ({@link OperatorCounters#watermarkSlices()}); 0 where not counted. */
    public final long watermarkSlices;
    /** The longest slice of watermark work, ns ({@link OperatorCounters#maxWatermarkSliceNanos()}). */
    public final long maxWatermarkSliceNanos;
    /**
     * Writes, since the partition started, that met a chunk frozen for a checkpoint still being written, found no
     * side buffer left to copy it into, and waited for the background writer to capture that chunk (each wait is
     * bounded by one chunk's capture; it falls outside {@link #lastCheckpointPauseNanos}, on the event's latency).
     * Raise {@code junction.checkpoint.maxSideBytes} when it grows.
     */
    public final long checkpointSideWaits;
    /**
     * Checkpoints, since the partition started, whose cut was refused and that ran synchronously on the partition
     * thread instead: a stage-A cut (copied at the cut) above its staging limit or the direct memory left. A
     * copy-on-write cut is never refused for its size, so this stays 0 at default settings.
     */
    public final long checkpointSynchronousFallbacks;
    /**
     * The largest fan-out of an inserted row seen ({@link OperatorCounters#maxFanOut()}, docs/SEMANTICS.md 1.5); the
     * rows a declared budget refused are {@link #deadLetters(DeadLetterReason)} of
     * {@link DeadLetterReason#FANOUT_EXCEEDED}.
     */
    public final long maxFanOut;
    private final long[] deadLetters;
    /** The last checkpoint's pause in parts, ns, by {@link CheckpointPausePart} ordinal. */
    private final long[] lastCheckpointPauseParts;

    /**
     * A snapshot; built by the runtime (see the fields for the meaning of each value).
     *
     * @param partition     the partition index.
     * @param rowsIn        input rows.
     * @param rowsOut       output rows.
     * @param lateRows      late rows.
     * @param badInputs     bad inputs.
     * @param expiredRows   expired rows.
     * @param liveLeft      live left rows.
     * @param liveRight     live right rows.
     * @param stateBytes    off-heap state bytes.
     * @param pendingTimers pending timers.
     * @param watermark     the join's watermark.
     * @param handlerErrors handler exceptions.
     * @param events        ring events processed.
     * @param ringOccupancy ring slots in use.
     * @param ringCapacity  ring slots in all.
     * @param deadLetters   dead letters by {@link DeadLetterReason#ordinal()} (copied; missing reasons count 0).
     * @param failed        whether the partition's thread died.
     * @param usedStateBytes off-heap bytes in use.
     * @param hashCollisions rows passed over under an equal key hash.
     * @param liveStateBytes bytes the live rows account for.
     * @deprecated snapshots are built by the runtime ({@code JoinEngine.metrics()}); the constructors of
     *             earlier releases, each with the figures of its day, are kept for one release.
     */
    @Deprecated
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes, pendingTimers,
            watermark, handlerErrors, events, ringOccupancy, ringCapacity, deadLetters, failed, usedStateBytes,
            hashCollisions, liveStateBytes, 0, 0, 0, 0, 0, 0);
    }

    /**
     * A snapshot with checkpoint figures; built by the runtime (see the fields for the meaning of each value).
     *
     * @param partition     the partition index.
     * @param rowsIn        input rows.
     * @param rowsOut       output rows.
     * @param lateRows      late rows.
     * @param badInputs     bad inputs.
     * @param expiredRows   expired rows.
     * @param liveLeft      live left rows.
     * @param liveRight     live right rows.
     * @param stateBytes    off-heap state bytes.
     * @param pendingTimers pending timers.
     * @param watermark     the join's watermark.
     * @param handlerErrors handler exceptions.
     * @param events        ring events processed.
     * @param ringOccupancy ring slots in use.
     * @param ringCapacity  ring slots in all.
     * @param deadLetters   dead letters by {@link DeadLetterReason#ordinal()} (copied; missing reasons count 0).
     * @param failed        whether the partition's thread died.
     * @param usedStateBytes off-heap bytes in use.
     * @param hashCollisions rows passed over under an equal key hash.
     * @param liveStateBytes bytes the live rows account for.
     * @param checkpoints             checkpoints written.
     * @param checkpointFailures      checkpoints failed.
     * @param lastCheckpointPauseNanos the last checkpoint's pause, ns.
     * @param maxCheckpointPauseNanos  the longest checkpoint pause, ns.
     * @param lastCheckpointBytesWritten bytes the last checkpoint wrote.
     * @param lastCheckpointBytesLinked  bytes the last checkpoint linked.
     * @deprecated snapshots are built by the runtime ({@code JoinEngine.metrics()}); the constructors of
     *             earlier releases, each with the figures of its day, are kept for one release.
     */
    @Deprecated
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes,
        final long checkpoints, final long checkpointFailures, final long lastCheckpointPauseNanos,
        final long maxCheckpointPauseNanos, final long lastCheckpointBytesWritten, final long lastCheckpointBytesLinked)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes, pendingTimers,
            watermark, handlerErrors, events, ringOccupancy, ringCapacity, deadLetters, failed, usedStateBytes, hashCollisions,
            liveStateBytes, checkpoints, checkpointFailures, lastCheckpointPauseNanos, maxCheckpointPauseNanos,
            lastCheckpointBytesWritten, lastCheckpointBytesLinked, 0);
    }

    /**
     * A snapshot with every figure; built by the runtime (see the fields for the meaning of each value).
     *
     * @param partition     the partition index.
     * @param rowsIn        input rows.
     * @param rowsOut       output rows.
     * @param lateRows      late rows.
     * @param badInputs     bad inputs.
     * @param expiredRows   expired rows.
     * @param liveLeft      live left rows.
     * @param liveRight     live right rows.
     * @param stateBytes    off-heap state bytes.
     * @param pendingTimers pending timers.
     * @param watermark     the join's watermark.
     * @param handlerErrors handler exceptions.
     * @param events        ring events processed.
     * @param ringOccupancy ring slots in use.
     * @param ringCapacity  ring slots in all.
     * @param deadLetters   dead letters by {@link DeadLetterReason#ordinal()} (copied; missing reasons count 0).
     * @param failed        whether the partition's thread died.
     * @param usedStateBytes off-heap bytes in use.
     * @param hashCollisions rows passed over under an equal key hash.
     * @param liveStateBytes bytes the live rows account for.
     * @param checkpoints             checkpoints written.
     * @param checkpointFailures      checkpoints failed.
     * @param lastCheckpointPauseNanos the last checkpoint's pause, ns.
     * @param maxCheckpointPauseNanos  the longest checkpoint pause, ns.
     * @param lastCheckpointBytesWritten bytes the last checkpoint wrote.
     * @param lastCheckpointBytesLinked  bytes the last checkpoint linked.
     * @param userCodeFailures        user filters, conditions and coGroup functions that threw.
     * @deprecated snapshots are built by the runtime ({@code JoinEngine.metrics()}); the constructors of
     *             earlier releases, each with the figures of its day, are kept for one release.
     */
    @Deprecated
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes,
        final long checkpoints, final long checkpointFailures, final long lastCheckpointPauseNanos,
        final long maxCheckpointPauseNanos, final long lastCheckpointBytesWritten, final long lastCheckpointBytesLinked,
        final long userCodeFailures)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes, pendingTimers,
            watermark, handlerErrors, events, ringOccupancy, ringCapacity, deadLetters, failed, usedStateBytes, hashCollisions,
            liveStateBytes, checkpoints, checkpointFailures, lastCheckpointPauseNanos, maxCheckpointPauseNanos,
            lastCheckpointBytesWritten, lastCheckpointBytesLinked, userCodeFailures, 0, 0, 0);
    }

    /**
     * As the constructor before, with a regular join's expiry per side (docs/SEMANTICS.md 4.7).
     *
     * @param partition the partition.
     * @param rowsIn rows in.
     * @param rowsOut rows out.
     * @param lateRows late rows.
     * @param badInputs bad inputs.
     * @param expiredRows expired rows.
     * @param liveLeft live left rows.
     * @param liveRight live right rows.
     * @param stateBytes state bytes.
     * @param pendingTimers pending timers.
     * @param watermark the watermark.
     * @param handlerErrors handler errors.
     * @param events events.
     * @param ringOccupancy ring occupancy.
     * @param ringCapacity ring capacity.
     * @param deadLetters dead letters by reason ordinal.
     * @param failed whether the thread died.
     * @param usedStateBytes bytes the limit counts.
     * @param hashCollisions rows passed over under an equal key hash.
     * @param liveStateBytes bytes the live rows account for.
     * @param checkpoints checkpoints written.
     * @param checkpointFailures checkpoints failed.
     * @param lastCheckpointPauseNanos the last checkpoint's pause, ns.
     * @param maxCheckpointPauseNanos the longest checkpoint pause, ns.
     * @param lastCheckpointBytesWritten bytes the last checkpoint wrote.
     * @param lastCheckpointBytesLinked bytes the last checkpoint linked.
     * @param userCodeFailures user code that threw.
     * @param expiredLeft left rows dropped by TTL or eviction.
     * @param expiredRight right rows dropped by TTL or eviction.
     * @param evictedRows rows evicted by expire-oldest.
     * @deprecated snapshots are built by the runtime ({@code JoinEngine.metrics()}); the constructors of
     *             earlier releases, each with the figures of its day, are kept for one release.
     */
    @Deprecated
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes,
        final long checkpoints, final long checkpointFailures, final long lastCheckpointPauseNanos,
        final long maxCheckpointPauseNanos, final long lastCheckpointBytesWritten, final long lastCheckpointBytesLinked,
        final long userCodeFailures, final long expiredLeft, final long expiredRight, final long evictedRows)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes, pendingTimers,
            watermark, handlerErrors, events, ringOccupancy, ringCapacity, deadLetters, failed, usedStateBytes, hashCollisions,
            liveStateBytes, checkpoints, checkpointFailures, lastCheckpointPauseNanos, maxCheckpointPauseNanos,
            lastCheckpointBytesWritten, lastCheckpointBytesLinked, userCodeFailures, expiredLeft, expiredRight, evictedRows,
            0, 0);
    }

    /**
     * As the constructor before, with the slices of watermark work (docs/SEMANTICS.md 3).
     *
     * @param partition the partition.
     * @param rowsIn rows in.
     * @param rowsOut rows out.
     * @param lateRows late rows.
     * @param badInputs bad inputs.
     * @param expiredRows expired rows.
     * @param liveLeft live left rows.
     * @param liveRight live right rows.
     * @param stateBytes state bytes.
     * @param pendingTimers pending timers.
     * @param watermark the watermark.
     * @param handlerErrors handler errors.
     * @param events events.
     * @param ringOccupancy ring occupancy.
     * @param ringCapacity ring capacity.
     * @param deadLetters dead letters by reason ordinal.
     * @param failed whether the thread died.
     * @param usedStateBytes bytes the limit counts.
     * @param hashCollisions rows passed over under an equal key hash.
     * @param liveStateBytes bytes the live rows account for.
     * @param checkpoints checkpoints written.
     * @param checkpointFailures checkpoints failed.
     * @param lastCheckpointPauseNanos the last checkpoint's pause, ns.
     * @param maxCheckpointPauseNanos the longest checkpoint pause, ns.
     * @param lastCheckpointBytesWritten bytes the last checkpoint wrote.
     * @param lastCheckpointBytesLinked bytes the last checkpoint linked.
     * @param userCodeFailures user code that threw.
     * @param expiredLeft left rows dropped by TTL or eviction.
     * @param expiredRight right rows dropped by TTL or eviction.
     * @param evictedRows rows evicted by expire-oldest.
     * @param watermarkSlices slices of watermark work.
     * @param maxWatermarkSliceNanos the longest slice, ns.
     * @deprecated snapshots are built by the runtime ({@code JoinEngine.metrics()}); the constructors of
     *             earlier releases, each with the figures of its day, are kept for one release.
     */
    @Deprecated
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes,
        final long checkpoints, final long checkpointFailures, final long lastCheckpointPauseNanos,
        final long maxCheckpointPauseNanos, final long lastCheckpointBytesWritten, final long lastCheckpointBytesLinked,
        final long userCodeFailures, final long expiredLeft, final long expiredRight, final long evictedRows,
        final long watermarkSlices, final long maxWatermarkSliceNanos)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes, pendingTimers,
            watermark, handlerErrors, events, ringOccupancy, ringCapacity, deadLetters, failed, usedStateBytes, hashCollisions,
            liveStateBytes, checkpoints, checkpointFailures, lastCheckpointPauseNanos, maxCheckpointPauseNanos,
            lastCheckpointBytesWritten, lastCheckpointBytesLinked, userCodeFailures, expiredLeft, expiredRight, evictedRows,
            watermarkSlices, maxWatermarkSliceNanos, 0, 0, 0, 0);
    }

    /**
     * As the constructor before, with the background checkpoint writes (docs/DURABILITY.md "What runs where").
     *
     * @param partition the partition.
     * @param rowsIn rows in.
     * @param rowsOut rows out.
     * @param lateRows late rows.
     * @param badInputs bad inputs.
     * @param expiredRows expired rows.
     * @param liveLeft live left rows.
     * @param liveRight live right rows.
     * @param stateBytes state bytes.
     * @param pendingTimers pending timers.
     * @param watermark the watermark.
     * @param handlerErrors handler errors.
     * @param events events.
     * @param ringOccupancy ring occupancy.
     * @param ringCapacity ring capacity.
     * @param deadLetters dead letters by reason ordinal.
     * @param failed whether the thread died.
     * @param usedStateBytes bytes the limit counts.
     * @param hashCollisions rows passed over under an equal key hash.
     * @param liveStateBytes bytes the live rows account for.
     * @param checkpoints checkpoints written.
     * @param checkpointFailures checkpoints failed.
     * @param lastCheckpointPauseNanos the last checkpoint's pause, ns.
     * @param maxCheckpointPauseNanos the longest checkpoint pause, ns.
     * @param lastCheckpointBytesWritten bytes the last checkpoint wrote.
     * @param lastCheckpointBytesLinked bytes the last checkpoint linked.
     * @param userCodeFailures user code that threw.
     * @param expiredLeft left rows dropped by TTL or eviction.
     * @param expiredRight right rows dropped by TTL or eviction.
     * @param evictedRows rows evicted by expire-oldest.
     * @param watermarkSlices slices of watermark work.
     * @param maxWatermarkSliceNanos the longest slice, ns.
     * @param checkpointWaits barriers that waited for the previous background write.
     * @param lastCheckpointWriteNanos the last checkpoint's write, ns.
     * @param maxCheckpointWriteNanos the longest checkpoint write, ns.
     * @param lastCheckpointBytesStaged bytes copied at the last cut.
     * @deprecated snapshots are built by the runtime ({@code JoinEngine.metrics()}); the constructors of
     *             earlier releases, each with the figures of its day, are kept for one release.
     */
    @Deprecated
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes,
        final long checkpoints, final long checkpointFailures, final long lastCheckpointPauseNanos,
        final long maxCheckpointPauseNanos, final long lastCheckpointBytesWritten, final long lastCheckpointBytesLinked,
        final long userCodeFailures, final long expiredLeft, final long expiredRight, final long evictedRows,
        final long watermarkSlices, final long maxWatermarkSliceNanos, final long checkpointWaits,
        final long lastCheckpointWriteNanos, final long maxCheckpointWriteNanos, final long lastCheckpointBytesStaged)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes, pendingTimers,
            watermark, handlerErrors, events, ringOccupancy, ringCapacity, deadLetters, failed, usedStateBytes,
            hashCollisions, liveStateBytes, checkpoints, checkpointFailures, lastCheckpointPauseNanos,
            maxCheckpointPauseNanos, lastCheckpointBytesWritten, lastCheckpointBytesLinked, userCodeFailures, expiredLeft,
            expiredRight, evictedRows, watermarkSlices, maxWatermarkSliceNanos, checkpointWaits, lastCheckpointWriteNanos,
            maxCheckpointWriteNanos, lastCheckpointBytesStaged, new long[0]);
    }

    /**
     * As the constructor before, with the background checkpoint writes (docs/DURABILITY.md "What runs where").
     *
     * @param partition the partition.
     * @param rowsIn rows in.
     * @param rowsOut rows out.
     * @param lateRows late rows.
     * @param badInputs bad inputs.
     * @param expiredRows expired rows.
     * @param liveLeft live left rows.
     * @param liveRight live right rows.
     * @param stateBytes state bytes.
     * @param pendingTimers pending timers.
     * @param watermark the watermark.
     * @param handlerErrors handler errors.
     * @param events events.
     * @param ringOccupancy ring occupancy.
     * @param ringCapacity ring capacity.
     * @param deadLetters dead letters by reason ordinal.
     * @param failed whether the thread died.
     * @param usedStateBytes bytes the limit counts.
     * @param hashCollisions rows passed over under an equal key hash.
     * @param liveStateBytes bytes the live rows account for.
     * @param checkpoints checkpoints written.
     * @param checkpointFailures checkpoints failed.
     * @param lastCheckpointPauseNanos the last checkpoint's pause, ns.
     * @param maxCheckpointPauseNanos the longest checkpoint pause, ns.
     * @param lastCheckpointBytesWritten bytes the last checkpoint wrote.
     * @param lastCheckpointBytesLinked bytes the last checkpoint linked.
     * @param userCodeFailures user code that threw.
     * @param expiredLeft left rows dropped by TTL or eviction.
     * @param expiredRight right rows dropped by TTL or eviction.
     * @param evictedRows rows evicted by expire-oldest.
     * @param watermarkSlices slices of watermark work.
     * @param maxWatermarkSliceNanos the longest slice, ns.
     * @param checkpointWaits barriers that waited for the previous background write.
     * @param lastCheckpointWriteNanos the last checkpoint's write, ns.
     * @param maxCheckpointWriteNanos the longest checkpoint write, ns.
     * @param lastCheckpointBytesStaged bytes copied at the last cut.
     * @param lastCheckpointPauseParts the last pause's parts, ns, by {@link CheckpointPausePart#ordinal()} (copied;
     *                                 missing parts count 0).
     * @deprecated snapshots are built by the runtime ({@code JoinEngine.metrics()}); the constructors of
     *             earlier releases, each with the figures of its day, are kept for one release.
     */
    @Deprecated
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes,
        final long checkpoints, final long checkpointFailures, final long lastCheckpointPauseNanos,
        final long maxCheckpointPauseNanos, final long lastCheckpointBytesWritten, final long lastCheckpointBytesLinked,
        final long userCodeFailures, final long expiredLeft, final long expiredRight, final long evictedRows,
        final long watermarkSlices, final long maxWatermarkSliceNanos, final long checkpointWaits,
        final long lastCheckpointWriteNanos, final long maxCheckpointWriteNanos, final long lastCheckpointBytesStaged,
        final long[] lastCheckpointPauseParts)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes, pendingTimers,
            watermark, handlerErrors, events, ringOccupancy, ringCapacity, deadLetters, failed, usedStateBytes,
            hashCollisions, liveStateBytes, checkpoints, checkpointFailures, lastCheckpointPauseNanos,
            maxCheckpointPauseNanos, lastCheckpointBytesWritten, lastCheckpointBytesLinked, userCodeFailures, expiredLeft,
            expiredRight, evictedRows, watermarkSlices, maxWatermarkSliceNanos, checkpointWaits, lastCheckpointWriteNanos,
            maxCheckpointWriteNanos, lastCheckpointBytesStaged, lastCheckpointPauseParts, 0, 0);
    }

    /**
     * A snapshot with every figure; built by the runtime (see the fields for the meaning of each value).
     *
     * @param partition     the partition index.
     * @param rowsIn        input rows.
     * @param rowsOut       output rows.
     * @param lateRows      late rows.
     * @param badInputs     bad inputs.
     * @param expiredRows   expired rows.
     * @param liveLeft      live left rows.
     * @param liveRight     live right rows.
     * @param stateBytes    off-heap state bytes.
     * @param pendingTimers pending timers.
     * @param watermark     the join's watermark.
     * @param handlerErrors handler exceptions.
     * @param events        ring events processed.
     * @param ringOccupancy ring slots in use.
     * @param ringCapacity  ring slots in all.
     * @param deadLetters   dead letters by {@link DeadLetterReason#ordinal()} (copied; missing reasons count 0).
     * @param failed        whether the partition's thread died.
     * @param usedStateBytes off-heap bytes in use.
     * @param hashCollisions rows passed over under an equal key hash.
     * @param liveStateBytes bytes the live rows account for.
     * @param checkpoints checkpoints written.
     * @param checkpointFailures checkpoints failed.
     * @param lastCheckpointPauseNanos the last checkpoint's pause, ns.
     * @param maxCheckpointPauseNanos the longest checkpoint pause, ns.
     * @param lastCheckpointBytesWritten bytes the last checkpoint wrote.
     * @param lastCheckpointBytesLinked bytes the last checkpoint linked.
     * @param userCodeFailures user code that threw.
     * @param expiredLeft left rows dropped by TTL or eviction.
     * @param expiredRight right rows dropped by TTL or eviction.
     * @param evictedRows rows evicted by expire-oldest.
     * @param watermarkSlices slices of watermark work.
     * @param maxWatermarkSliceNanos the longest slice, ns.
     * @param checkpointWaits barriers that waited for the previous background write.
     * @param lastCheckpointWriteNanos the last checkpoint's write, ns.
     * @param maxCheckpointWriteNanos the longest checkpoint write, ns.
     * @param lastCheckpointBytesStaged bytes copied at the last cut.
     * @param lastCheckpointPauseParts the last pause's parts, ns, by {@link CheckpointPausePart#ordinal()} (copied;
     *                                 missing parts count 0).
     * @param checkpointSideWaits writes that waited for the writer's capture of a frozen chunk.
     * @param checkpointSynchronousFallbacks refused cuts, checkpointed synchronously instead.
     * @deprecated snapshots are built by the runtime ({@code JoinEngine.metrics()}); the constructors of
     *             earlier releases, each with the figures of its day, are kept for one release.
     */
    @Deprecated
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes,
        final long checkpoints, final long checkpointFailures, final long lastCheckpointPauseNanos,
        final long maxCheckpointPauseNanos, final long lastCheckpointBytesWritten, final long lastCheckpointBytesLinked,
        final long userCodeFailures, final long expiredLeft, final long expiredRight, final long evictedRows,
        final long watermarkSlices, final long maxWatermarkSliceNanos, final long checkpointWaits,
        final long lastCheckpointWriteNanos, final long maxCheckpointWriteNanos, final long lastCheckpointBytesStaged,
        final long[] lastCheckpointPauseParts, final long checkpointSideWaits, final long checkpointSynchronousFallbacks)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes, pendingTimers,
            watermark, handlerErrors, events, ringOccupancy, ringCapacity, deadLetters, failed, usedStateBytes,
            hashCollisions, liveStateBytes, checkpoints, checkpointFailures, lastCheckpointPauseNanos,
            maxCheckpointPauseNanos, lastCheckpointBytesWritten, lastCheckpointBytesLinked, userCodeFailures, expiredLeft,
            expiredRight, evictedRows, watermarkSlices, maxWatermarkSliceNanos, checkpointWaits, lastCheckpointWriteNanos,
            maxCheckpointWriteNanos, lastCheckpointBytesStaged, lastCheckpointPauseParts, checkpointSideWaits,
            checkpointSynchronousFallbacks, 0);
    }

    /**
     * A snapshot with every figure, the largest fan-out too; built by the runtime. Each parameter is the field of
     * its name, which says what it means.
     *
     * @param partition {@link #partition}.
     * @param rowsIn {@link #rowsIn}.
     * @param rowsOut {@link #rowsOut}.
     * @param lateRows {@link #lateRows}.
     * @param badInputs {@link #badInputs}.
     * @param expiredRows {@link #expiredRows}.
     * @param liveLeft {@link #liveLeft}.
     * @param liveRight {@link #liveRight}.
     * @param stateBytes {@link #stateBytes}.
     * @param pendingTimers {@link #pendingTimers}.
     * @param watermark {@link #watermark}.
     * @param handlerErrors {@link #handlerErrors}.
     * @param events {@link #events}.
     * @param ringOccupancy {@link #ringOccupancy}.
     * @param ringCapacity {@link #ringCapacity}.
     * @param deadLetters dead letters by {@link DeadLetterReason#ordinal()} (copied; missing reasons count 0).
     * @param failed {@link #failed}.
     * @param usedStateBytes {@link #usedStateBytes}.
     * @param hashCollisions {@link #hashCollisions}.
     * @param liveStateBytes {@link #liveStateBytes}.
     * @param checkpoints {@link #checkpoints}.
     * @param checkpointFailures {@link #checkpointFailures}.
     * @param lastCheckpointPauseNanos {@link #lastCheckpointPauseNanos}.
     * @param maxCheckpointPauseNanos {@link #maxCheckpointPauseNanos}.
     * @param lastCheckpointBytesWritten {@link #lastCheckpointBytesWritten}.
     * @param lastCheckpointBytesLinked {@link #lastCheckpointBytesLinked}.
     * @param userCodeFailures {@link #userCodeFailures}.
     * @param expiredLeft {@link #expiredLeft}.
     * @param expiredRight {@link #expiredRight}.
     * @param evictedRows {@link #evictedRows}.
     * @param watermarkSlices {@link #watermarkSlices}.
     * @param maxWatermarkSliceNanos {@link #maxWatermarkSliceNanos}.
     * @param checkpointWaits {@link #checkpointWaits}.
     * @param lastCheckpointWriteNanos {@link #lastCheckpointWriteNanos}.
     * @param maxCheckpointWriteNanos {@link #maxCheckpointWriteNanos}.
     * @param lastCheckpointBytesStaged {@link #lastCheckpointBytesStaged}.
     * @param lastCheckpointPauseParts the last pause's parts, ns, by {@link CheckpointPausePart#ordinal()} (copied).
     * @param checkpointSideWaits {@link #checkpointSideWaits}.
     * @param checkpointSynchronousFallbacks {@link #checkpointSynchronousFallbacks}.
     * @param maxFanOut the largest fan-out of an inserted row seen ({@link #maxFanOut}).
     */
    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final long[] deadLetters, final boolean failed,
        final long usedStateBytes, final long hashCollisions, final long liveStateBytes,
        final long checkpoints, final long checkpointFailures, final long lastCheckpointPauseNanos,
        final long maxCheckpointPauseNanos, final long lastCheckpointBytesWritten, final long lastCheckpointBytesLinked,
        final long userCodeFailures, final long expiredLeft, final long expiredRight, final long evictedRows,
        final long watermarkSlices, final long maxWatermarkSliceNanos, final long checkpointWaits,
        final long lastCheckpointWriteNanos, final long maxCheckpointWriteNanos, final long lastCheckpointBytesStaged,
        final long[] lastCheckpointPauseParts, final long checkpointSideWaits, final long checkpointSynchronousFallbacks,
        final long maxFanOut)
    {
        this.maxFanOut = maxFanOut;
        this.checkpointSideWaits = checkpointSideWaits;
        this.checkpointSynchronousFallbacks = checkpointSynchronousFallbacks;
        this.lastCheckpointPauseParts = new long[CheckpointPausePart.values().length];
        System.arraycopy(lastCheckpointPauseParts, 0, this.lastCheckpointPauseParts, 0,
            Math.min(lastCheckpointPauseParts.length, this.lastCheckpointPauseParts.length));
        this.checkpointWaits = checkpointWaits;
        this.lastCheckpointWriteNanos = lastCheckpointWriteNanos;
        this.maxCheckpointWriteNanos = maxCheckpointWriteNanos;
        this.lastCheckpointBytesStaged = lastCheckpointBytesStaged;
        this.watermarkSlices = watermarkSlices;
        this.maxWatermarkSliceNanos = maxWatermarkSliceNanos;
        this.expiredLeft = expiredLeft;
        this.expiredRight = expiredRight;
        this.evictedRows = evictedRows;
        this.userCodeFailures = userCodeFailures;
        this.checkpoints = checkpoints;
        this.checkpointFailures = checkpointFailures;
        this.lastCheckpointPauseNanos = lastCheckpointPauseNanos;
        this.maxCheckpointPauseNanos = maxCheckpointPauseNanos;
        this.lastCheckpointBytesWritten = lastCheckpointBytesWritten;
        this.lastCheckpointBytesLinked = lastCheckpointBytesLinked;
        this.partition = partition;
        this.rowsIn = rowsIn;
        this.rowsOut = rowsOut;
        this.lateRows = lateRows;
        this.badInputs = badInputs;
        this.expiredRows = expiredRows;
        this.liveLeft = liveLeft;
        this.liveRight = liveRight;
        this.stateBytes = stateBytes;
        this.pendingTimers = pendingTimers;
        this.watermark = watermark;
        this.handlerErrors = handlerErrors;
        this.events = events;
        this.ringOccupancy = ringOccupancy;
        this.ringCapacity = ringCapacity;
        this.failed = failed;
        this.usedStateBytes = usedStateBytes;
        this.hashCollisions = hashCollisions;
        this.liveStateBytes = liveStateBytes;
        this.deadLetters = new long[DeadLetterReason.values().length];
        System.arraycopy(deadLetters, 0, this.deadLetters, 0, Math.min(deadLetters.length, this.deadLetters.length));
    }

    /**
     * @param reason a dead-letter reason.
     * @return rows this partition handed to its dead-letter handler for this reason.
     */
    public long deadLetters(final DeadLetterReason reason)
    {
        return deadLetters[reason.ordinal()];
    }

    /**
     * How long the last checkpoint's pause ({@link #lastCheckpointPauseNanos}) spent in one of its parts
     * (docs/DURABILITY.md "What a checkpoint costs, measured"); the parts add up to the pause.
     *
     * @param part a part of the pause.
     * @return ns; 0 before the first checkpoint, or where the runtime did not time the part.
     */
    public long lastCheckpointPauseNanos(final CheckpointPausePart part)
    {
        return lastCheckpointPauseParts[part.ordinal()];
    }

    /** @return rows this partition handed to its dead-letter handler, every reason. */
    public long deadLetters()
    {
        long total = 0;
        for (final long count : deadLetters)
        {
            total += count;
        }
        return total;
    }

    @Override
    public String toString()
    {
        return "partition " + partition + ": rowsIn=" + rowsIn + " rowsOut=" + rowsOut + " late=" + lateRows +
            " bad=" + badInputs + " expired=" + expiredRows + " liveLeft=" + liveLeft + " liveRight=" + liveRight +
            " stateBytes=" + stateBytes + " usedStateBytes=" + usedStateBytes + " timers=" + pendingTimers + " deadLetters=" + deadLetters() +
            " handlerErrors=" + handlerErrors + " ring=" + ringOccupancy + "/" + ringCapacity +
            (checkpoints + checkpointFailures == 0 ? "" : " checkpoints=" + checkpoints + " checkpointFailures=" +
                checkpointFailures + " lastCheckpointPauseMicros=" + lastCheckpointPauseNanos / 1000 +
                " maxCheckpointPauseMicros=" + maxCheckpointPauseNanos / 1000 + " lastCheckpointWriteMicros=" +
                lastCheckpointWriteNanos / 1000 + " checkpointWaits=" + checkpointWaits +
                " checkpointSideWaits=" + checkpointSideWaits + " checkpointSynchronousFallbacks=" +
                checkpointSynchronousFallbacks) + (maxFanOut == 0 ? "" : " maxFanOut=" + maxFanOut) + (failed ? " FAILED" : "");
    }
}
