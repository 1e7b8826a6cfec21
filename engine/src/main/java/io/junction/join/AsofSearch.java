package io.junction.join;

import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The ASOF join's nearest-match search over a key's right group, kept in time order and in arrival order
 * within a ts ({@link RowStore#placeInTimeOrder}), its emptied slots leading ({@link RowStore#moveToTimeOrderEdge}).
 * <pre>
 * bestFor(l):
 *   backward  i = upperBound(l.ts) - 1; walk back from i: the first in range that qualifies
 *   forward   i = lowerBound(l.ts);     walk on from i: the least ts in range with a qualifying row,
 *                                       the last such row of that ts (the latest arrival)
 *   nearest   both walks from upperBound(l.ts); the nearer, a tie on the distance to the earlier ts
 *   qualifies: the row's key bytes equal the key's (else a hash collision, counted), condition(l, r)
 *   an empty slot reads as older than every row (the binary searches pass it, a backward walk stops at it)
 * </pre>
 * Without a condition and a hash collision the walk reads one row per direction, or a few more where rows
 * share a ts: O(log n) slots read per probe ({@link #probes}). Nothing is allocated.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class AsofSearch
{
    private final RowStore store;
    private final JoinPredicate predicate;
    private final JoinCounters counters;
    private final AsofRange range;
    private final boolean hasCondition;
    private final RowView candidate = new RowView();
    private final UnsafeBuffer candidateBuffer = new UnsafeBuffer(0, 0);
    /** Slots of right groups read by candidate searches so far: the cost of {@link #bestFor}, for a test. */
    long probes;

    /**
     * @param store        the state's rows.
     * @param predicate    the join's key and condition.
     * @param counters     where hash collisions are counted.
     * @param range        the join's time rules.
     * @param hasCondition whether the join has a condition beyond the key.
     */
    AsofSearch(final RowStore store, final JoinPredicate predicate, final JoinCounters counters, final AsofRange range,
        final boolean hasCondition)
    {
        this.store = store;
        this.predicate = predicate;
        this.counters = counters;
        this.range = range;
        this.hasCondition = hasCondition;
    }

    /**
     * @return the best candidate among the stored right rows of a key for a left row, skipping
     *         {@code exclude} (0 for none), or 0 when it has none.
     */
    long bestFor(
        final long bucket, final DirectBuffer key, final int keyLength, final RowView left, final long lts, final long exclude)
    {
        final long rows = store.rows(bucket, Side.RIGHT.ordinal());
        final int slots = RowGroup.slots(rows);
        if (slots == 0)
        {
            return 0;
        }
        switch (range.direction)
        {
            case BACKWARD:
                return backwardFrom(rows, upperBound(rows, slots, lts) - 1, key, keyLength, left, lts, exclude);
            case FORWARD:
                return forwardFrom(rows, slots, lowerBound(rows, slots, lts), key, keyLength, left, lts, exclude);
            default:
                final int above = upperBound(rows, slots, lts);
                final long before = backwardFrom(rows, above - 1, key, keyLength, left, lts, exclude);
                final long after = forwardFrom(rows, slots, above, key, keyLength, left, lts, exclude);
                if (before == 0 || after == 0)
                {
                    return before == 0 ? after : before;
                }
                return AsofRange.afterIsNearer(lts, RowDescriptor.ts(after), RowDescriptor.ts(before)) ? after : before;
        }
    }

    /** @return the first slot of a time-ordered group whose row's ts is above {@code ts} (an empty slot, leading, is below). */
    private int upperBound(final long rows, final int slots, final long ts)
    {
        return firstSlot(rows, slots, ts, true);
    }

    /** @return the first slot of a time-ordered group whose row's ts is at or above {@code ts}. */
    private int lowerBound(final long rows, final int slots, final long ts)
    {
        return firstSlot(rows, slots, ts, false);
    }

    /**
     * The binary search of both bounds: empty slots lead the group and read as below every ts.
     *
     * @param above true for the first row above {@code ts}, false for the first at or above it.
     * @return the first slot of a time-ordered group whose row's ts is above (at or above) {@code ts}.
     */
    private int firstSlot(final long rows, final int slots, final long ts, final boolean above)
    {
        int low = 0;
        int high = slots;
        while (low < high)
        {
            final int mid = (low + high) >>> 1;
            final long r = store.record(rows, mid);
            probes++;
            if (r == 0 || (above ? RowDescriptor.ts(r) <= ts : RowDescriptor.ts(r) < ts))
            {
                low = mid + 1;
            }
            else
            {
                high = mid;
            }
        }
        return low;
    }

    /**
     * @return the best candidate at or before slot {@code from} (whose rows' ts are at most {@code lts}): the
     *         latest slot that is in range and qualifies, or 0. The range only narrows going back.
     */
    private long backwardFrom(
        final long rows, final int from, final DirectBuffer key, final int keyLength, final RowView left, final long lts,
        final long exclude)
    {
        for (int i = from; i >= 0; i--)
        {
            final long r = store.record(rows, i);
            probes++;
            if (r == 0 || !range.inRange(lts, RowDescriptor.ts(r)))
            {
                return 0;
            }
            if (r != exclude && qualifies(r, key, keyLength, left))
            {
                return r;
            }
        }
        return 0;
    }

    /**
     * @return the best candidate at or after slot {@code from} (whose rows' ts are at least {@code lts}): the
     *         least ts in range that has a qualifying row, the last such row of that ts, or 0.
     */
    private long forwardFrom(
        final long rows, final int slots, final int from, final DirectBuffer key, final int keyLength, final RowView left,
        final long lts, final long exclude)
    {
        long best = 0;
        long bestTs = 0;
        for (int i = from; i < slots; i++)
        {
            final long r = store.record(rows, i);
            probes++;
            if (r == 0)
            {
                continue;
            }
            final long rts = RowDescriptor.ts(r);
            if (best != 0 ? rts != bestTs : !range.inRange(lts, rts))
            {
                break;
            }
            if (r != exclude && qualifies(r, key, keyLength, left))
            {
                best = r;
                bestTs = rts;
            }
        }
        return best;
    }

    /** @return true when a stored right row in range is of the key and passes the condition with the left row. */
    private boolean qualifies(final long r, final DirectBuffer key, final int keyLength, final RowView left)
    {
        if (!store.keyEquals(r, key, 0, keyLength))
        {
            counters.hashCollisions++;
            return false;
        }
        if (hasCondition)
        {
            StoredRows.wrap(r, candidateBuffer, candidate);
            return predicate.conditionHolds(left, candidate);
        }
        return true;
    }
}
