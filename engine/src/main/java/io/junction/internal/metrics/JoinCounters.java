package io.junction.internal.metrics;

import io.junction.metrics.OperatorCounters;

import java.nio.ByteBuffer;
import io.junction.api.Side;

/**
 * What one join operator counts, as plain fields: written by the partition thread that owns the
 * operator and read by it alone. The runtime copies them into {@link PartitionMetrics} at the end of
 * each batch, which is where other threads read them.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class JoinCounters implements OperatorCounters
{
    /** Input rows received, both sides, whatever became of them. */
    public long rowsIn;
    /** Output rows emitted, of any kind. */
    public long rowsOut;
    /** Rows dropped as late (interval and window joins). */
    public long lateRows;
    /** Bad inputs: retractions of rows not in state, non-append-only ops, oversized keys, full state. */
    public long badInputs;
    /** Rows removed from state by expiry (interval bounds, windows, TTL). */
    public long expiredRows;
    /** Of {@link #expiredRows}: regular-join rows dropped by state TTL or eviction, left side (SEMANTICS 4.5-4.7 visible expiry). */
    public long expiredLeft;
    /** Of {@link #expiredRows}: regular-join rows dropped by state TTL or eviction, right side. */
    public long expiredRight;
    /** Of those: rows the {@code expire-oldest} policy evicted before their TTL. */
    public long evictedRows;
    /** Live rows in state, left side. */
    public long liveLeft;
    /** Live rows in state, right side. */
    public long liveRight;
    /** Off-heap bytes of the operator's state (index, buckets, row arena). */
    public long stateBytes;
    /**
     * Stored rows a probe skipped because their key differs under an equal 64-bit hash: with a seeded
     * hash about never; a count that grows means keys collide (a flood, or a fixed seed that leaked).
     */
    public long hashCollisions;
    /** User filters and conditions that threw (each also reported to the runtime's error handler). */
    public long predicateFailures;
    /** Window coGroup calls whose user function threw (each also reported to the runtime's error handler). */
    public long coGroupFailures;
    /** Bytes the state limit counts: live records plus the key index at its capacity. */
    public long usedStateBytes;
    /** Bytes the live rows account for: records, groups, buckets and their keys' share of the index. */
    public long liveStateBytes;
    /** Timers pending in the operator's wheel. */
    public long pendingTimers;
    /** The join's watermark, {@link Long#MIN_VALUE} before both inputs have one. */
    public long watermark = Long.MIN_VALUE;
    /** Slices of watermark work done (docs/SEMANTICS.md 3): a measure of this process, not saved with the state. */
    public long watermarkSlices;
    /** The longest slice of watermark work, ns (wall clock): a measure of this process, not saved. */
    public long maxWatermarkSliceNanos;
    /**
     * The largest fan-out of an inserted row (docs/SEMANTICS.md 1.5: the stored rows it joins, refused or not): a
     * measure of this process, not saved.
     */
    public long maxFanOut;

    /** The counters {@link #save} writes. */
    public static final int SAVED_COUNT = 17;
    /** The bytes {@link #save} writes. */
    public static final int SAVED_LENGTH = SAVED_COUNT * Long.BYTES;

    /** {@link #save}'s copy (partition thread). */
    private final long[] saving = new long[SAVED_COUNT];

    /** Writes every counter (for durable state), in {@link #copyTo}'s order. */
    public void save(final ByteBuffer out)
    {
        copyTo(saving);
        write(out, saving);
    }

    /**
     * Copies the counters {@link #save} writes into {@code into}, in its order: plain stores, so that a checkpoint's
     * cut takes them in the pause and its writer encodes them ({@link #write}) off the partition thread.
     *
     * @param into at least {@link #SAVED_COUNT} longs.
     */
    public void copyTo(final long[] into)
    {
        into[0] = rowsIn;
        into[1] = rowsOut;
        into[2] = lateRows;
        into[3] = badInputs;
        into[4] = expiredRows;
        into[5] = liveLeft;
        into[6] = liveRight;
        into[7] = stateBytes;
        into[8] = hashCollisions;
        into[9] = predicateFailures;
        into[10] = usedStateBytes;
        into[11] = liveStateBytes;
        into[12] = pendingTimers;
        into[13] = watermark;
        into[14] = expiredLeft;
        into[15] = expiredRight;
        into[16] = evictedRows;
    }

    /** Writes counters {@link #copyTo} copied, as {@link #save} writes them (the thread that holds the copy). */
    public static void write(final ByteBuffer out, final long[] copied)
    {
        for (int i = 0; i < SAVED_COUNT; i++)
        {
            out.putLong(copied[i]);
        }
    }

    /** Reads what {@link #save} wrote. */
    public void load(final ByteBuffer in)
    {
        rowsIn = in.getLong();
        rowsOut = in.getLong();
        lateRows = in.getLong();
        badInputs = in.getLong();
        expiredRows = in.getLong();
        liveLeft = in.getLong();
        liveRight = in.getLong();
        stateBytes = in.getLong();
        hashCollisions = in.getLong();
        predicateFailures = in.getLong();
        usedStateBytes = in.getLong();
        liveStateBytes = in.getLong();
        pendingTimers = in.getLong();
        watermark = in.getLong();
        expiredLeft = in.getLong();
        expiredRight = in.getLong();
        evictedRows = in.getLong();
    }

    @Override
    public long maxFanOut()
    {
        return maxFanOut;
    }

    @Override
    public long watermarkSlices()
    {
        return watermarkSlices;
    }

    @Override
    public long maxWatermarkSliceNanos()
    {
        return maxWatermarkSliceNanos;
    }

    @Override
    public long userCodeFailures()
    {
        return predicateFailures + coGroupFailures;
    }

    @Override
    public long rowsIn()
    {
        return rowsIn;
    }

    @Override
    public long rowsOut()
    {
        return rowsOut;
    }

    @Override
    public long lateRows()
    {
        return lateRows;
    }

    @Override
    public long badInputs()
    {
        return badInputs;
    }

    @Override
    public long expiredRows()
    {
        return expiredRows;
    }

    @Override
    public long expiredRows(final Side side)
    {
        return side == Side.LEFT ? expiredLeft : expiredRight;
    }

    @Override
    public long evictedRows()
    {
        return evictedRows;
    }

    @Override
    public long liveLeft()
    {
        return liveLeft;
    }

    @Override
    public long liveRight()
    {
        return liveRight;
    }

    @Override
    public long stateBytes()
    {
        return stateBytes;
    }

    @Override
    public long usedStateBytes()
    {
        return usedStateBytes;
    }

    @Override
    public long liveStateBytes()
    {
        return liveStateBytes;
    }

    @Override
    public long pendingTimers()
    {
        return pendingTimers;
    }

    @Override
    public long watermark()
    {
        return watermark;
    }

    @Override
    public long hashCollisions()
    {
        return hashCollisions;
    }
}
