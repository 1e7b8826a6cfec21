package io.junction.metrics;

import io.junction.api.Side;

/**
 * What a join operator has counted, read by the thread that drives it (an operator used without the
 * runtime) or copied by the runtime into {@link PartitionSnapshot}s for other threads. Read-only.
 */
public interface OperatorCounters
{
    /** @return input rows received, both sides, whatever became of them. */
    long rowsIn();

    /** @return output rows emitted, of any kind. */
    long rowsOut();

    /** @return rows dropped as late (interval and window joins). */
    long lateRows();

    /** @return bad inputs: retractions of rows not in state, non-append-only ops, oversized keys, full state. */
    long badInputs();

    /** @return rows removed from state by expiry (interval bounds, windows, TTL). */
    long expiredRows();

    /**
     * @param side an input.
     * @return of {@link #expiredRows()}: a regular join's rows of that side dropped by state TTL or by
     *         {@code expire-oldest} eviction (docs/SEMANTICS.md "Visible expiry"); 0 where not counted.
     */
    default long expiredRows(final Side side)
    {
        return 0;
    }

    /** @return a regular join's rows evicted by the {@code expire-oldest} policy before their TTL; 0 where not counted. */
    default long evictedRows()
    {
        return 0;
    }

    /** @return live rows in state, left side. */
    long liveLeft();

    /** @return live rows in state, right side. */
    long liveRight();

    /** @return off-heap bytes of the operator's state (index, buckets, row arena). */
    long stateBytes();

    /**
     * @return bytes that the state byte limit ({@code junction.state.maxBytes}) counts: bytes in live
     *         records plus the key index at its capacity; unlike {@link #stateBytes()} it falls as rows leave,
     *         and it is not a part of it: while the index is below capacity it is the larger.
     */
    long usedStateBytes();

    /**
     * @return bytes the live rows account for: their records, their keys' row groups and buckets, and
     *         each live key's share of the key index at its capacity. Divided by the live rows it is the
     *         state a row costs, whatever was reserved ahead of it.
     */
    long liveStateBytes();

    /** @return timers pending in the operator's wheel. */
    long pendingTimers();

    /** @return the join's watermark, {@link Long#MIN_VALUE} before both inputs have one. */
    long watermark();

    /**
     * @return rows a probe passed over because their key differed under an equal 64-bit key hash: with
     *         a secret hash seed this stays near 0; a growing count means keys collide (hash flooding).
     */
    long hashCollisions();

    /**
     * @return calls of user code inside the join that threw: pre-join filters and post-join conditions
     *         ({@code RowFilter}, {@code PairCondition}) and coGroup functions; each is also reported to the
     *         engine's error handler (a filter's row is dead-lettered PREDICATE_FAILED, a coGroup call's rows
     *         COGROUP_FAILED, a throwing condition dead-letters its row in a regular join, counts as false in the others).
     */
    default long userCodeFailures()
    {
        return 0;
    }

    /**
     * @return slices of watermark work the operator has done: expiry, outer padding and firing, done in
     *         bounded slices between input events (docs/SEMANTICS.md 3); a kind not sliced counts each
     *         watermark's work as one.
     */
    default long watermarkSlices()
    {
        return 0;
    }

    /**
     * @return the longest of those slices, ns of wall clock (measured once per slice, not per row): the most
     *         a watermark held the partition thread; 0 where not counted.
     */
    default long maxWatermarkSliceNanos()
    {
        return 0;
    }

    /**
     * @return the largest fan-out of an inserted row seen (docs/SEMANTICS.md 1.5): the other side's rows under its
     *         key, or in a multi-way join the product of the other inputs' rows under it, whether or not a declared
     *         budget refused it; 0 where not counted (temporal, lookup and asof joins emit at most one line a row).
     */
    default long maxFanOut()
    {
        return 0;
    }
}
