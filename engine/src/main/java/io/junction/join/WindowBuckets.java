package io.junction.join;

import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import io.junction.internal.state.WindowBucketDescriptor;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;

import static io.junction.internal.state.WindowBucketDescriptor.SCHEDULED;
import static io.junction.join.PartitionState.sideOf;
import static io.junction.join.TimeMath.saturatedSubtract;

/**
 * The window bookkeeping the two window algorithms ({@link TimeWindowJoin}, {@link SessionWindowJoin}) each
 * hold (SEMANTICS 6): the bucket wheel over the window buckets ({@link WindowBucketDescriptor}), the firing of a
 * due bucket (its rows gathered and grouped by key, each key's rows handed to the kind's {@link Firing#fireKey}),
 * the join and emission of one window's rows, lone rows (the state's row wheel), the window coGroup when the
 * spec has one (SEMANTICS 6.4), and the firing step and watermark. The algorithm decides which windows a row is in
 * and stores it; this fires them.
 * <pre>
 * join watermark w at step s:  fireStep = s, fireWatermark = w;
 *                              bucket wheel: every bucket due below w fires (fireBucket); row wheel: lone rows fire
 * end of input at step s:      ended; every bucket and lone row fires
 * fireBucket(b):               gather b's rows; per key: next = min(next, kind.fireKey(b, rows of the key));
 *                              b empty -&gt; out of the index, else rescheduled at next
 * emitWindow(rows, [start, end)): each left row meets the window's right rows once (the condition); pairs
 *                              emitted (inner, outer), then per row padded / semi / anti as the type says; rows dropped
 * heap part:                   fireStep, fireWatermark, ended, the bucket wheel (after the driver's counters and watermarks)
 * </pre>
 * Composition, not a base class: the algorithms hold one each and read its firing step, watermark and end
 * through methods; nothing of it is shared mutable state. Allocation-free once its scratch arrays have grown
 * to the largest bucket.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class WindowBuckets
{
    /**
     * The match count of a stored session row that failed its pre-filter: it matches nothing. Lone rows
     * of tumbling and sliding windows instead keep in their count which of the row's windows they are.
     */
    static final int NEVER_MATCHES = -1;

    /** What a window kind does when one of its buckets or lone rows fires. */
    interface Firing
    {
        /**
         * Fires the rows {@code records[from, to)} of one key of a bucket whose timer is due (or at the end of input).
         *
         * @param bucket  the bucket.
         * @param records the bucket's records, grouped by key; the kind may reorder {@code [from, to)}.
         * @param from    the key's first record.
         * @param to      past its last.
         * @return the deadline at which the bucket must fire again for these rows, {@code Long.MAX_VALUE} for none.
         */
        long fireKey(long bucket, long[] records, int from, int to);

        /**
         * A row alone in its window (null key; for tumbling and sliding, also a failed pre-filter) whose window fired.
         *
         * @param record the row's record on the state's row wheel.
         */
        void fireLoneRow(long record);
    }

    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final WatermarkTracker watermarks;
    private final Firing kind;
    /** The left and right rows of a window pair, or a row emitted alone. */
    private final RowView storedRow = new RowView();
    private final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);
    private final RowView otherRow = new RowView();
    private final UnsafeBuffer otherBuffer = new UnsafeBuffer(0, 0);
    private final boolean semiOrAnti;
    private final boolean semi;
    private final TimerWheel bucketWheel;
    /** The window coGroup that replaces the pair join when the spec has a function (SEMANTICS 6.4), else null. */
    private final CoGroupWindows coGroup;
    private final TimerWheel.ExpiryHandler bucketFire = this::fireBucket;
    private final TimerWheel.ExpiryHandler loneRowFire;
    /** The records of the bucket being fired, grouped by key in place; used for nothing else. */
    private long[] records = new long[64];
    /** {@link #emitWindow}'s scratch: the right rows of the window being fired, grown by doubling. */
    private long[] rightRecords = new long[64];
    /** Pairs of a left and a right row that firing windows looked at (for the cost tests: counted, not timed). */
    private long pairChecks;
    private long fireStep;
    private long fireWatermark = Long.MIN_VALUE;
    private boolean ended;

    /**
     * @param parts a window join's parts (its state's buckets are {@link WindowBucketDescriptor#LENGTH} long).
     * @param kind  the window kind's firing.
     */
    WindowBuckets(final OperatorParts parts, final Firing kind)
    {
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.watermarks = parts.watermarks;
        this.kind = kind;
        this.loneRowFire = kind::fireLoneRow;
        final JoinSpec spec = parts.spec;
        this.semiOrAnti = spec.type().isSemiOrAnti();
        this.semi = spec.type() == JoinType.SEMI;
        this.bucketWheel = new TimerWheel(parts.config.tickShift(), parts.config.wheelSlots(),
            WindowBucketDescriptor.TIMER_PREV_OFFSET, WindowBucketDescriptor.TIMER_NEXT_OFFSET,
            WindowBucketDescriptor.DEADLINE_OFFSET, state.base, NativeArena::written);
        this.coGroup = spec.coGroup() == null ? null : new CoGroupWindows(spec, state, emit, parts.counters, predicate.errors());
    }

    /**
     * @param spec a window join.
     * @return its kind's name in the durable state's layout: {@code tumbling-window}, {@code sliding-window} or
     *         {@code session-window}.
     */
    static String layout(final JoinSpec spec)
    {
        return spec.window().kind().name().toLowerCase(Locale.ROOT) + "-window";
    }

    /**
     * The timer deadline of a window {@code [start, end)}. The window fires when the watermark reaches
     * {@code end - 1} (SEMANTICS 6, {@link #isFired}), and the {@link TimerWheel} expires the entries whose
     * deadline is strictly below the watermark, so the entry is due at {@code end - 2}: the first
     * watermark above it is {@code end - 1}. Saturates at {@code Long.MIN_VALUE} for the earliest ends.
     */
    static long timerDeadline(final long end)
    {
        return saturatedSubtract(end, 2);
    }

    /** @return true when a window ending at {@code end} has fired at {@code watermark} (SEMANTICS 6: at end - 1). */
    static boolean isFired(final long end, final long watermark)
    {
        return watermark != Long.MIN_VALUE && end - 1 <= watermark;
    }

    /** @return the watermark an arriving row is judged late against: the join's, or +infinity after the end of input. */
    long rowWatermark()
    {
        return ended ? Long.MAX_VALUE : watermarks.current();
    }

    /** @return the step of the event that fires the windows now firing. */
    long fireStep()
    {
        return fireStep;
    }

    /** @return the watermark the windows now firing are due at ({@code Long.MAX_VALUE} at the end of input). */
    long fireWatermark()
    {
        return fireWatermark;
    }

    /** @return whether input has ended: every window is due. */
    boolean ended()
    {
        return ended;
    }

    /** @return whether the spec is a window coGroup (SEMANTICS 6.4). */
    boolean coGroups()
    {
        return coGroup != null;
    }

    /** @return the pairs of a left and a right row that firing windows looked at (counted, for the cost tests). */
    long pairChecks()
    {
        return pairChecks;
    }

    /** @return the buckets on the bucket wheel. */
    long pending()
    {
        return bucketWheel.pending();
    }

    /** Schedules a bucket that is not on the wheel (it holds the row just stored) at {@code deadline}, marking it. */
    void schedule(final long bucket, final long deadline)
    {
        WindowBucketDescriptor.flags(state.base, bucket, WindowBucketDescriptor.flags(bucket) | SCHEDULED);
        bucketWheel.schedule(bucket, deadline);
    }

    /** Moves a scheduled bucket to {@code deadline}. */
    void reschedule(final long bucket, final long deadline)
    {
        bucketWheel.cancel(bucket);
        bucketWheel.schedule(bucket, deadline);
    }

    /** Takes a scheduled bucket off the wheel (its last row is being rolled back). */
    void cancel(final long bucket)
    {
        bucketWheel.cancel(bucket);
    }

    /** The join's watermark moved forward to {@code watermark}: due windows fire. */
    void onWatermark(final long watermark, final long step)
    {
        fireStep = step;
        fireWatermark = watermark;
        // Windows are scheduled at timerDeadline(end): those with end - 1 <= watermark expire now.
        bucketWheel.advance(watermark, bucketFire);
        state.wheel.advance(watermark, loneRowFire);
    }

    /** The end of input: every window fires; a row that arrives after this is late. */
    void onEndOfInput(final long step)
    {
        ended = true;
        fireStep = step;
        fireWatermark = Long.MAX_VALUE;
        bucketWheel.expireAll(bucketFire);
        state.wheel.expireAll(loneRowFire);
    }

    /** Writes the firing step, watermark and end, then the bucket wheel: the window kinds' heap part. */
    void save(final ByteBuffer out)
    {
        out.putLong(fireStep).putLong(fireWatermark).put((byte)(ended ? 1 : 0));
        bucketWheel.save(out);
    }

    /** Reads what {@link #save} wrote. */
    void load(final ByteBuffer in)
    {
        fireStep = in.getLong();
        fireWatermark = in.getLong();
        ended = in.get() != 0;
        bucketWheel.load(in);
    }

    /** A bucket's timer: fire its window (tumbling, sliding) or its due sessions. */
    private void fireBucket(final long bucket)
    {
        // Only the scheduled bit: the other flags are the kind's (a session join's summary of its sessions).
        WindowBucketDescriptor.flags(state.base, bucket, WindowBucketDescriptor.flags(bucket) & ~SCHEDULED);
        final int n = gather(bucket);
        long next = Long.MAX_VALUE;
        int groupStart = 0;
        while (groupStart < n)
        {
            // Rows of one key together (distinct keys share a bucket only on a hash collision); a coGroup
            // keeps their arrival order.
            final int groupEnd = coGroup != null ? coGroup.groupByKey(records, groupStart, n) : groupByKey(groupStart, n);
            next = Math.min(next, kind.fireKey(bucket, records, groupStart, groupEnd));
            groupStart = groupEnd;
        }
        if (BucketDescriptor.isEmpty(bucket))
        {
            state.index.remove(bucket);
        }
        else
        {
            schedule(bucket, next);
        }
    }

    /** Moves the rows with the key of {@code records[groupStart]} to the front of {@code records[groupStart, n)}; @return their end. */
    private int groupByKey(final int groupStart, final int n)
    {
        final long first = records[groupStart];
        int groupEnd = groupStart + 1;
        for (int j = groupEnd; j < n; j++)
        {
            if (RowStore.keyEquals(first, records[j]))
            {
                final long t = records[groupEnd];
                records[groupEnd++] = records[j];
                records[j] = t;
            }
        }
        return groupEnd;
    }

    /** Fires one tumbling or sliding window's rows {@code records[from, to)} of one key: the coGroup's call, or the join. */
    void fireWindow(final long[] records, final int from, final int to, final long start, final long end)
    {
        if (coGroup != null)
        {
            coGroup.fireWindow(records, from, to, start, end, fireStep);
        }
        else
        {
            emitWindow(records, from, to, start, end);
        }
    }

    /**
     * A session bucket's coGroup: clusters one key's rows {@code records[from, to)} into sessions and calls the
     * function for the due ones ({@link CoGroupWindows#fireSessions}).
     *
     * @return the deadline of the earliest session not due, {@code Long.MAX_VALUE} for none.
     */
    long coGroupSessions(final long[] records, final int from, final int to, final long gap)
    {
        return coGroup.fireSessions(records, from, to, gap, ended, fireWatermark, fireStep);
    }

    /** Joins the rows {@code records[from, to)} of one key and one window, emits, and drops them. */
    void emitWindow(final long[] records, final int from, final int to, final long start, final long end)
    {
        for (int i = from; i < to; i++)
        {
            if (RowDescriptor.count(records[i]) != NEVER_MATCHES)
            {
                RowDescriptor.count(state.base, records[i], 0);
            }
        }
        // The window's right rows that can match, gathered once: each left row then meets only those, so a
        // window of L left and R right rows costs L x R pair checks, not (L + R) x L (a session of 100,000 left
        // rows and one right row used to cost 10^10 record reads when it fired).
        int rights = 0;
        for (int i = from; i < to; i++)
        {
            final long right = records[i];
            if (RowDescriptor.side(right) != 0 && RowDescriptor.count(right) != NEVER_MATCHES)
            {
                if (rights == rightRecords.length)
                {
                    rightRecords = Arrays.copyOf(rightRecords, rights * 2);
                }
                rightRecords[rights++] = right;
            }
        }
        for (int i = from; i < to && rights > 0; i++)
        {
            final long left = records[i];
            if (RowDescriptor.side(left) != 0 || RowDescriptor.count(left) == NEVER_MATCHES)
            {
                continue;
            }
            StoredRows.wrap(left, storedBuffer, storedRow);
            pairChecks += rights;
            for (int j = 0; j < rights; j++)
            {
                final long right = rightRecords[j];
                StoredRows.wrap(right, otherBuffer, otherRow);
                if (!predicate.conditionHolds(storedRow, otherRow))
                {
                    continue;
                }
                RowDescriptor.count(state.base, left, RowDescriptor.count(left) + 1);
                RowDescriptor.count(state.base, right, RowDescriptor.count(right) + 1);
                if (!semiOrAnti)
                {
                    emit.windowPair(storedRow, otherRow, start, end, fireStep);
                }
            }
        }
        for (int i = from; i < to; i++)
        {
            final long record = records[i];
            final Side side = sideOf(record);
            final int count = RowDescriptor.count(record);
            final boolean emits = semi && side == Side.LEFT ? count > 0 : count <= 0 && emit.emitsUnmatched(side);
            if (emits)
            {
                StoredRows.wrap(record, storedBuffer, storedRow);
                emit.windowPadded(side, storedRow, start, end, fireStep);
            }
            state.expireKeepingBucket(record);
        }
    }

    /** Emits a lone row with its window {@code [start, end)} (or calls the coGroup with it alone) and drops it. */
    void emitLoneRow(final long record, final long start, final long end)
    {
        if (coGroup != null)
        {
            coGroup.fireLone(record, start, end, fireStep);
        }
        else
        {
            StoredRows.wrap(record, storedBuffer, storedRow);
            emit.windowPadded(sideOf(record), storedRow, start, end, fireStep);
        }
        state.expireKeepingBucket(record);
    }

    /** Copies the bucket's records of both sides into {@link #records}; @return how many. */
    private int gather(final long bucket)
    {
        int n = 0;
        for (int s = 0; s < 2; s++)
        {
            final long rows = state.store.rows(bucket, s);
            final int slots = RowGroup.slots(rows);
            for (int i = 0; i < slots; i++)
            {
                final long r = state.store.record(rows, i);
                if (r == 0)
                {
                    continue;
                }
                if (n == records.length)
                {
                    records = Arrays.copyOf(records, n * 2);
                }
                records[n++] = r;
            }
        }
        return n;
    }
}
