package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.Side;
import io.junction.internal.memory.Refs;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;

import static io.junction.join.TimeMath.saturatedAdd;

/**
 * When the ASOF join's right rows leave state (docs/SEMANTICS.md section 11): each waits in a
 * second timer wheel ({@link RecordTimers}, beside the state's own, which holds the left rows) for the first
 * watermark that proves no stored or future left row can select it. {@code H = W - A}, {@code T} the tolerance.
 * <pre>
 *   backward  a newer row of its key at or below H, or r.ts &lt; H - T
 *   forward   r.ts &lt; H
 *   nearest   a newer row of its key strictly below H, or r.ts &lt; H - 2T (a stored left row is at most T before H)
 *   at once   an older row of its key at the same ts as the new arrival (the new one wins every tie)
 *   with a condition a newer row dominates nothing: backward and nearest keep only the tolerance bound,
 *   and keep rows until the end of input without one
 * </pre>
 * A row leaves its group from its front ({@link RowStore#leadsTimeOrder}; the due rows wait for the ones before
 * them, {@link #advance}) or through {@link RowStore#moveToTimeOrderEdge}, so that the emptied slots only ever
 * lead the group, where {@link AsofSearch} reads them as older than every row: O(1) a freed row for a key alone
 * in its bucket, whatever order the wheel hands them over in. Nothing is allocated.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class AsofRightExpiry
{
    /** Right record flag: fired by the wheel, waiting in {@link #due} for the rows before it in its group to leave. */
    static final int DUE = 8;

    private final PartitionState state;
    private final RowStore store;
    private final WatermarkTracker watermarks;
    private final DirectBuffer key;
    private final AsofRange range;
    private final long lateness;
    private final boolean hasCondition;
    /** Right rows by the watermark at which no left row can select them any more. */
    private final RecordTimers rightTimers;
    private final TimerWheel.ExpiryHandler release = this::release;
    /** The state's base, which the links of {@link #due} are stored relative to. */
    private final long base;
    /**
     * The first of the right rows the wheel has handed over during an {@link #advance} behind a row still in
     * their group (the {@link #DUE} ones), linked through their timer links (free once the wheel has fired
     * them); 0 when none. Empty whenever no advance is under way.
     */
    private long due;

    /**
     * @param parts        the join's parts (state, watermarks, the key being processed, the wheel's sizing).
     * @param range        the join's time rules.
     * @param lateness     the allowed lateness {@code A}.
     * @param hasCondition whether the join has a condition beyond the key.
     */
    AsofRightExpiry(final OperatorParts parts, final AsofRange range, final long lateness, final boolean hasCondition)
    {
        this.state = parts.state;
        this.store = parts.state.store;
        this.watermarks = parts.watermarks;
        this.key = parts.predicate.key;
        this.range = range;
        this.lateness = lateness;
        this.hasCondition = hasCondition;
        this.rightTimers = new RecordTimers(parts.config, state.base);
        this.base = state.base;
    }

    /** Writes the right rows' wheel into the algorithm's part of the heap image. */
    void save(final ByteBuffer out)
    {
        rightTimers.save(out);
    }

    /** Reads what {@link #save} wrote. */
    void load(final ByteBuffer in)
    {
        rightTimers.load(in);
    }

    /** @return the right rows waiting in the wheel. */
    long pending()
    {
        return rightTimers.pending();
    }

    /**
     * Frees the right rows the watermark made unselectable ({@link Long#MAX_VALUE}: every one). The wheel hands
     * them over slot by slot, which is not their time order once their deadlines span more than one turn of it
     * (a jump of the watermark, the end of input), and a row taken out of the middle of its group would shift
     * the rows to the group's nearer end: O(n) a row, O(n^2) for a key of n rows. So a row leaves only from the
     * front of its group: one handed over behind a row still there waits in {@link #due}, and leaves when the
     * rows before it have, right after the last of them; what is due at a watermark is the oldest rows of each
     * key, so for a key alone in its bucket none is left waiting and each row costs O(1). The few left behind a
     * row of another key that stays (a hash collision) leave from where they are, through
     * {@link RowStore#moveToTimeOrderEdge}: the rows to the nearer end of the group's each.
     */
    void advance(final long watermark)
    {
        rightTimers.advance(watermark, release);
        while (due != 0)
        {
            final long record = due;
            unlinkDue(record);
            store.moveToTimeOrderEdge(record);
            if (store.leadsTimeOrder(record))
            {
                leaveFromFront(record);
            }
            else
            {
                state.expire(record);
            }
        }
    }

    /**
     * Frees what the new right row makes unselectable and links it into the wheel: without a condition an
     * older row of its key at the same ts at once (the new one wins every tie), and the previous row of its
     * key (the greatest ts below it) gets the new row as its dominating successor.
     *
     * @param bucket    the row's bucket.
     * @param keyLength the bytes of its key, in the predicate's key buffer.
     * @param record    the row's record, placed in time order.
     * @param ts        its event time.
     */
    void arrived(final long bucket, final int keyLength, final long record, final long ts)
    {
        long same = 0;
        long previous = 0;
        long next = 0;
        long nextTs = 0;
        if (!hasCondition)
        {
            // The group is in time order, the new row after every row of its ts: its neighbours of its key are
            // the rows on either side of it (a hash collision's rows of other keys between them skipped).
            final long rows = store.rows(bucket, Side.RIGHT.ordinal());
            final int slots = RowGroup.slots(rows);
            final int slot = RowStore.slotOf(record);
            for (int i = slot - 1; i >= 0; i--)
            {
                final long r = store.record(rows, i);
                if (r == 0)
                {
                    break;
                }
                if (!store.keyEquals(r, key, 0, keyLength))
                {
                    continue;
                }
                if (RowDescriptor.ts(r) == ts)
                {
                    // Arrived earlier at the same ts (one at most: each arrival frees the one before it): the
                    // new row is a candidate wherever that one is, and wins the tie.
                    same = r;
                    continue;
                }
                previous = r;
                break;
            }
            for (int i = slot + 1; i < slots; i++)
            {
                final long r = store.record(rows, i);
                if (r != 0 && store.keyEquals(r, key, 0, keyLength))
                {
                    next = r;
                    nextTs = RowDescriptor.ts(r);
                    break;
                }
            }
            // Freed after the scan: a removal may compact the group being read.
            if (same != 0)
            {
                free(same);
            }
        }
        if (range.direction == AsofSpec.Direction.FORWARD)
        {
            // Older than H = W - A: no left row that could select it is still waiting (its F would be at most
            // this ts), and no future one can (its ts is at least H).
            rightTimers.schedule(record, saturatedAdd(ts, lateness));
            return;
        }
        long deadline = toleranceDeadline(ts);
        if (next != 0)
        {
            deadline = Math.min(deadline, dominatedDeadline(nextTs));
        }
        if (deadline != Long.MAX_VALUE)
        {
            rightTimers.schedule(record, deadline);
        }
        if (previous != 0)
        {
            final long dominated = dominatedDeadline(ts);
            if (dominated < watermarks.current())
            {
                // Backward: the new row is at H already, so the previous one can no longer be selected.
                free(previous);
            }
            else if (dominated < rightTimers.deadline(previous))
            {
                rightTimers.schedule(previous, dominated);
            }
        }
    }

    /**
     * @return the wheel deadline (fires when the watermark passes it) from which a right row at {@code ts}
     *         is beyond every stored and future left row's tolerance: backward {@code ts < H - T}, nearest
     *         {@code ts < H - 2T}; {@link Long#MAX_VALUE} without a tolerance.
     */
    private long toleranceDeadline(final long ts)
    {
        if (!range.bounded)
        {
            return Long.MAX_VALUE;
        }
        final long reach = range.direction == AsofSpec.Direction.NEAREST
            ? saturatedAdd(range.tolerance, range.tolerance) : range.tolerance;
        return saturatedAdd(saturatedAdd(ts, reach), lateness);
    }

    /**
     * @return the wheel deadline from which a newer row of the key at {@code successorTs} makes every older
     *         one unselectable: backward once it is at or below H ({@code W > successorTs + A - 1}); nearest
     *         once strictly below H ({@code W > successorTs + A}), as a stored left row whose best is at
     *         distance d may see a newer row at exactly {@code H = l.ts + d}, which ties and loses.
     */
    private long dominatedDeadline(final long successorTs)
    {
        final long d = saturatedAdd(successorTs, lateness);
        return range.direction == AsofSpec.Direction.BACKWARD && d != Long.MAX_VALUE ? d - 1 : d;
    }

    /** A right row that no stored or future left row can select any more (the wheel's handler): it leaves, or is due. */
    private void release(final long record)
    {
        rightTimers.fired(record);
        if (store.leadsTimeOrder(record))
        {
            leaveFromFront(record);
        }
        else
        {
            linkDue(record);
        }
    }

    /** Frees a right row that leads its group, then each {@link #DUE} row after it, which then leads it. */
    private void leaveFromFront(final long record)
    {
        long leaving = record;
        while (true)
        {
            // Read before the removal, which may compact the group (the record stays where it is).
            final long next = store.nextInTimeOrder(leaving);
            state.expire(leaving);
            if (next == 0 || (RowDescriptor.count(next) & DUE) == 0)
            {
                return;
            }
            unlinkDue(next);
            leaving = next;
        }
    }

    /** Links a fired right row at the head of {@link #due}, through its timer links, and marks it {@link #DUE}. */
    private void linkDue(final long record)
    {
        NativeArena.written(base, record + RowDescriptor.TIMER_PREV_OFFSET);
        UnsafeApi.putLong(record + RowDescriptor.TIMER_PREV_OFFSET, 0);
        NativeArena.written(base, record + RowDescriptor.TIMER_NEXT_OFFSET);
        UnsafeApi.putLong(record + RowDescriptor.TIMER_NEXT_OFFSET, Refs.toStored(base, due));
        if (due != 0)
        {
            NativeArena.written(base, due + RowDescriptor.TIMER_PREV_OFFSET);
            UnsafeApi.putLong(due + RowDescriptor.TIMER_PREV_OFFSET, Refs.toStored(base, record));
        }
        due = record;
        RowDescriptor.count(base, record, RowDescriptor.count(record) | DUE);
    }

    /** Takes a {@link #DUE} row out of {@link #due}, just before it is freed. */
    private void unlinkDue(final long record)
    {
        final long prev = Refs.toAddress(base, UnsafeApi.getLong(record + RowDescriptor.TIMER_PREV_OFFSET));
        final long next = Refs.toAddress(base, UnsafeApi.getLong(record + RowDescriptor.TIMER_NEXT_OFFSET));
        if (prev == 0)
        {
            due = next;
        }
        else
        {
            NativeArena.written(base, prev + RowDescriptor.TIMER_NEXT_OFFSET);
            UnsafeApi.putLong(prev + RowDescriptor.TIMER_NEXT_OFFSET, Refs.toStored(base, next));
        }
        if (next != 0)
        {
            NativeArena.written(base, next + RowDescriptor.TIMER_PREV_OFFSET);
            UnsafeApi.putLong(next + RowDescriptor.TIMER_PREV_OFFSET, Refs.toStored(base, prev));
        }
    }

    /** Frees a right row now, out of its wheel first; counted as expired. Its bucket is the caller's. */
    private void free(final long record)
    {
        rightTimers.cancel(record);
        store.moveToTimeOrderEdge(record);
        state.expireKeepingBucket(record);
    }

    /**
     * @param record a right record.
     * @return the deadline it waits in this wheel for, or {@link Long#MAX_VALUE} when it is not in it.
     */
    long due(final long record)
    {
        return rightTimers.deadline(record);
    }
}
