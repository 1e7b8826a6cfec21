package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.ExpiryHandler;
import io.junction.api.ExpiryReason;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import org.agrona.concurrent.UnsafeBuffer;

import static io.junction.join.TimeMath.saturatedAdd;

/**
 * A {@link RegularJoin}'s time: state TTL, padded-row delays, the copies of pending rows that expired, evictions by
 * EXPIRE_OLDEST and their report to an {@link ExpiryHandler} (docs/SEMANTICS.md "Padded-row delay",
 * "Visible expiry"). Stored rows are linked into the state's timer wheel, one timer per record.
 * <pre>
 * stored:     pending (outer side with a delay D, watermark not above ts + D): FLAG_PAD_PENDING, timer at
 *             min(ts + D, ts + ttl); else with a TTL: timer at ts + ttl
 * timer:      an awaiting-pad copy: padded if still pending, removed
 *             a pending row past ts + D: padded if its count is 0; then past ts + ttl: dropped, else re-timed at it
 * dropped:    (TTL or evicted) a pending unmatched row that its TTL expires first leaves silently, a copy of it
 *             (FLAG_AWAITING_PAD, in the bucket of rows that never match) timed at ts + D; with padOnExpiry,
 *             without room for the copy, or when evicted, it is padded at its expiry. Then counted, reported
 *             (ExpiryHandler.onExpired), forgotten by its side's view and expired from the state
 * end:        every pending unmatched row is padded
 * </pre>
 * A row expires once watermark - ttl &gt; ts, i.e. its deadline ts + ttl &lt; watermark (its side's ttl); its delay
 * ends once the watermark is above ts + D: the same strict test. With padOnExpiry and no delay, a side with a
 * TTL pads its rows as with a delay equal to its TTL ({@link RegularJoin#padDelay}).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class RegularRowTimers
{
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final JoinCounters counters;
    private final WatermarkTracker watermarks;
    /** Told of expired and evicted rows, or null. */
    private final ExpiryHandler expiryHandler;
    /** Each side's view, by {@link Side#ordinal()}: told of a record that leaves by expiry ({@link JoinRecordStateView#forget}). */
    private final JoinRecordStateView[] views;
    /** Each side's state TTL (0: kept until retracted), and whether either has one. */
    private final long leftTtl;
    private final long rightTtl;
    private final boolean anyTtl;
    /** Each side's padded-row delay, -1 when its unmatched rows are padded at once (SEMANTICS 4.5-4.7). */
    private final long leftPadDelay;
    private final long rightPadDelay;
    private final boolean anyPadDelay;
    /** Pad a pending unmatched row when its TTL expires it, rather than when its delay ends. */
    private final boolean padOnExpiry;
    /** Rows of the wheel: TTL expiry or padded-row delays. */
    private final boolean timed;
    /** The step and join watermark of the event being processed, for timers and evictions. */
    private long eventStep;
    private long timerWatermark;
    /** Wraps a stored record for output when its timer fires or it expires. */
    private final RowView timedRow = new RowView();
    private final UnsafeBuffer timedRowBuffer = new UnsafeBuffer(0, 0);
    private final TimerWheel.ExpiryHandler timer = this::onTimer;
    private final TimerWheel.ExpiryHandler padPending = this::padIfPending;

    /**
     * @param parts  the join's parts.
     * @param expiry told of expired and evicted rows, or null.
     * @param views  each side's view, filled in by the caller before the first row.
     */
    RegularRowTimers(final OperatorParts parts, final ExpiryHandler expiry, final JoinRecordStateView[] views)
    {
        final JoinSpec spec = parts.spec;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.counters = parts.counters;
        this.watermarks = parts.watermarks;
        this.expiryHandler = expiry;
        this.views = views;
        this.leftTtl = spec.stateTtl(Side.LEFT);
        this.rightTtl = spec.stateTtl(Side.RIGHT);
        this.anyTtl = leftTtl > 0 || rightTtl > 0;
        this.leftPadDelay = RegularJoin.padDelay(spec, Side.LEFT);
        this.rightPadDelay = RegularJoin.padDelay(spec, Side.RIGHT);
        this.anyPadDelay = leftPadDelay >= 0 || rightPadDelay >= 0;
        this.padOnExpiry = spec.padOnExpiry();
        this.timed = anyTtl || anyPadDelay;
    }

    /** @return whether stored rows are timed (a TTL or a padded-row delay). */
    boolean timed()
    {
        return timed;
    }

    /** @return whether a side has a padded-row delay. */
    boolean delays()
    {
        return anyPadDelay;
    }

    /** An event starts: evictions while it is processed carry its step. */
    void beginEvent(final long step)
    {
        eventStep = step;
    }

    /** @return whether a row of {@code side} at {@code ts} is older than the watermark minus its side's TTL. */
    boolean expiredOnArrival(final Side side, final long ts)
    {
        final long ttl = side == Side.LEFT ? leftTtl : rightTtl;
        return ttl > 0 && saturatedAdd(ts, ttl) < watermarks.current();
    }

    /** @return whether a stored, matchable row of {@code side} at {@code ts} starts inside its padded-row delay. */
    boolean pendsOnArrival(final Side side, final long ts)
    {
        final long padDelay = side == Side.LEFT ? leftPadDelay : rightPadDelay;
        return padDelay >= 0 && saturatedAdd(ts, padDelay) >= watermarks.current();
    }

    /** Links a newly stored record into the wheel: at its delay's end (or TTL deadline first) when pending, else at its TTL deadline. */
    void scheduleStored(final long record, final Side side, final long ts, final boolean pending)
    {
        final long ttl = side == Side.LEFT ? leftTtl : rightTtl;
        if (pending)
        {
            final long padDeadline = saturatedAdd(ts, side == Side.LEFT ? leftPadDelay : rightPadDelay);
            schedule(record, ttl > 0 ? Math.min(padDeadline, saturatedAdd(ts, ttl)) : padDeadline, RowDescriptor.FLAG_PAD_PENDING);
        }
        else if (ttl > 0)
        {
            schedule(record, saturatedAdd(ts, ttl), 0);
        }
    }

    /** Unlinks a record about to be removed from the wheel, when it is linked. */
    void cancel(final long record)
    {
        if ((RowDescriptor.flags(record) & RowDescriptor.FLAG_IN_TIMER) != 0)
        {
            state.wheel.cancel(record);
        }
    }

    /** @return whether a stored record is inside its padded-row delay. */
    static boolean isPending(final long record)
    {
        return (RowDescriptor.flags(record) & RowDescriptor.FLAG_PAD_PENDING) != 0;
    }

    /** The join watermark moved to {@code watermark}: fires every timer whose deadline is below it. */
    void advance(final long watermark, final long step)
    {
        eventStep = step;
        timerWatermark = watermark;
        state.wheel.advance(watermark, timer);
    }

    /** The end of input: pads every row still inside its padded-row delay. */
    void padAllPending(final long step)
    {
        eventStep = step;
        state.wheel.visitAll(padPending);
    }

    /**
     * EXPIRE_OLDEST: the row with the earliest TTL deadline leaves early, as if its TTL had passed.
     *
     * @return false when the policy or the spec allows no eviction, or nothing is timed.
     */
    boolean evictOldest()
    {
        if (state.fullPolicy != FullPolicy.EXPIRE_OLDEST || !anyTtl)
        {
            return false;
        }
        final long oldest = state.wheel.earliest();
        if (oldest == 0)
        {
            return false;
        }
        state.wheel.cancel(oldest);
        RowDescriptor.flags(state.base, oldest, RowDescriptor.flags(oldest) & ~RowDescriptor.FLAG_IN_TIMER);
        drop(oldest, ExpiryReason.EVICTED, eventStep);
        return true;
    }

    /** Links a record into the wheel, setting {@link RowDescriptor#FLAG_IN_TIMER} and {@code moreFlags} in one write. */
    private void schedule(final long record, final long deadline, final int moreFlags)
    {
        state.wheel.schedule(record, deadline);
        RowDescriptor.flags(state.base, record, RowDescriptor.flags(record) | RowDescriptor.FLAG_IN_TIMER | moreFlags);
    }

    /**
     * The wheel's handler: a record's deadline is below the join watermark {@link #timerWatermark}. A pending
     * row's delay is over: padded if unmatched; then a row with a TTL expires, or waits for its TTL deadline.
     */
    private void onTimer(final long record)
    {
        final int flags = RowDescriptor.flags(record);
        if ((flags & RowDescriptor.FLAG_AWAITING_PAD) != 0)
        {
            // An expired row's copy: its delay is over; padded if still pending, then gone.
            RowDescriptor.flags(state.base, record, flags & ~RowDescriptor.FLAG_IN_TIMER);
            padIfPending(record);
            emit.beforeFree();
            state.store.remove(record);
            return;
        }
        final Side side = PartitionState.sideOf(record);
        final long ts = RowDescriptor.ts(record);
        if ((flags & RowDescriptor.FLAG_PAD_PENDING) != 0 &&
            saturatedAdd(ts, side == Side.LEFT ? leftPadDelay : rightPadDelay) < timerWatermark)
        {
            // The delay is over: out of the wheel and no longer pending in one write, padded when unmatched.
            RowDescriptor.flags(state.base, record, flags & ~(RowDescriptor.FLAG_IN_TIMER | RowDescriptor.FLAG_PAD_PENDING));
            if (RowDescriptor.count(record) == 0)
            {
                StoredRows.wrap(record, timedRowBuffer, timedRow);
                emit.padded(ChangeKind.INSERT, side, timedRow, ts, eventStep);
            }
        }
        else
        {
            RowDescriptor.flags(state.base, record, flags & ~RowDescriptor.FLAG_IN_TIMER);
        }
        final long ttl = side == Side.LEFT ? leftTtl : rightTtl;
        if (ttl <= 0)
        {
            return;
        }
        final long deadline = saturatedAdd(ts, ttl);
        if (deadline < timerWatermark)
        {
            drop(record, ExpiryReason.STATE_TTL, eventStep);
        }
        else
        {
            schedule(record, deadline, 0);
        }
    }

    /**
     * Copies a pending unmatched record that expires into the bucket of rows that never match, marked
     * {@link RowDescriptor#FLAG_AWAITING_PAD} and timed at its delay's end. No room is made for it (this runs
     * inside the wheel's advance).
     *
     * @return false when there is no room: the caller pads the row at once.
     */
    private boolean awaitPad(final long record)
    {
        final Side side = PartitionState.sideOf(record);
        final int rowLength = RowDescriptor.rowLength(record);
        if (!state.hasRoomFor(1))
        {
            return false;
        }
        final long copy = state.store.allocate(side.ordinal(), 0, rowLength);
        if (copy == 0)
        {
            return false;
        }
        final long ts = RowDescriptor.ts(record);
        StoredRows.wrap(record, timedRowBuffer, timedRow);
        if (state.store.append(copy, state.unmatchableBucket, side.ordinal(), predicate.key, 0, 0,
            timedRow.buffer(), timedRow.offset(), timedRow.length(), ts) == 0)
        {
            state.store.release(copy, side.ordinal(), 0, rowLength);
            return false;
        }
        schedule(copy, saturatedAdd(ts, side == Side.LEFT ? leftPadDelay : rightPadDelay),
            RowDescriptor.FLAG_PAD_PENDING | RowDescriptor.FLAG_AWAITING_PAD);
        RowDescriptor.flags(state.base, record, RowDescriptor.flags(record) & ~RowDescriptor.FLAG_PAD_PENDING);
        return true;
    }

    /** Ends a record's padded-row delay: pads it (at {@link #eventStep}) when it is pending and unmatched. */
    private void padIfPending(final long record)
    {
        final int flags = RowDescriptor.flags(record);
        if ((flags & RowDescriptor.FLAG_PAD_PENDING) == 0)
        {
            return;
        }
        RowDescriptor.flags(state.base, record, flags & ~RowDescriptor.FLAG_PAD_PENDING);
        if (RowDescriptor.count(record) == 0)
        {
            StoredRows.wrap(record, timedRowBuffer, timedRow);
            emit.padded(ChangeKind.INSERT, PartitionState.sideOf(record), timedRow, RowDescriptor.ts(record), eventStep);
        }
    }

    /**
     * Drops a record unlinked from the wheel, by TTL or eviction: a pending unmatched row is padded first
     * (it can never match again), the handler is told, the side's counter moves.
     */
    private void drop(final long record, final ExpiryReason reason, final long step)
    {
        if ((RowDescriptor.flags(record) & RowDescriptor.FLAG_AWAITING_PAD) != 0)
        {
            // Evicted while waiting for its padding (it left the state at its expiry): padded now.
            padIfPending(record);
            emit.beforeFree();
            state.store.remove(record);
            return;
        }
        if (reason == ExpiryReason.STATE_TTL && !padOnExpiry && isPending(record) && RowDescriptor.count(record) == 0)
        {
            // SEMANTICS 4.5-4.7: expiry is silent and padding waits for the first watermark above ts + D: a copy out of
            // reach of every probe waits for it (padded now only when there is no room for the copy).
            if (!awaitPad(record))
            {
                padIfPending(record);
            }
        }
        else
        {
            padIfPending(record);
        }
        final Side side = PartitionState.sideOf(record);
        if (side == Side.LEFT)
        {
            counters.expiredLeft++;
        }
        else
        {
            counters.expiredRight++;
        }
        if (reason == ExpiryReason.EVICTED)
        {
            counters.evictedRows++;
        }
        if (expiryHandler != null)
        {
            StoredRows.wrap(record, timedRowBuffer, timedRow);
            expiryHandler.onExpired(side, timedRow, RowDescriptor.ts(record), reason, step);
        }
        views[side.ordinal()].forget(record);
        emit.beforeFree();
        state.expire(record);
    }
}
