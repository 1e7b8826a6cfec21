package io.junction.join;

import io.junction.metrics.OperatorCounters;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.NativeArena;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

import static io.junction.join.PartitionState.sideOf;
import static io.junction.join.TimeMath.saturatedSubtract;

/**
 * What the two window operators ({@link TimeWindowJoin}, {@link SessionWindowJoin}) share: the window
 * bucket layout and its timer wheel, the firing of a bucket (its rows grouped by key, each group handed
 * to {@link #fireKey}), the join and emission of one window's rows, lone rows, and the watermark and
 * end-of-input handling. {@link WindowJoin} is the public entry point that picks one. A base class
 * because the two share this algorithm; their state and output are held, not inherited: a
 * {@link PartitionState} and an {@link Emitter}.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
abstract class AbstractWindowJoin implements JoinOperator
{
    /** Bucket extension for window joins: the bucket's own timer links, after the standard fields. */
    static final int BUCKET_TIMER_PREV_OFFSET = BucketDescriptor.LENGTH;
    static final int BUCKET_TIMER_NEXT_OFFSET = BUCKET_TIMER_PREV_OFFSET + 8;
    static final int BUCKET_DEADLINE_OFFSET = BUCKET_TIMER_NEXT_OFFSET + 8;
    static final int BUCKET_FLAGS_OFFSET = BUCKET_DEADLINE_OFFSET + 8;
    /** Tumbling and sliding: the bucket's window as reported, {@code [start, end)}. */
    static final int BUCKET_WINDOW_START_OFFSET = BUCKET_FLAGS_OFFSET + 8;
    static final int BUCKET_WINDOW_END_OFFSET = BUCKET_WINDOW_START_OFFSET + 8;
    static final int BUCKET_LENGTH = BUCKET_WINDOW_END_OFFSET + 8;
    static final int SCHEDULED = 1;
    /** Key bytes after the join key that name a row's window (its start and end) in the key index. */
    static final int WINDOW_SUFFIX = 16;
    /**
     * The match count of a stored session row that failed its pre-filter: it matches nothing. Lone rows
     * of tumbling and sliding windows instead keep in their count which of the row's windows they are.
     */
    static final int NEVER_MATCHES = -1;

    private final JoinCounters counters = new JoinCounters();
    private final WatermarkTracker watermarks = new WatermarkTracker();
    final PartitionState state;
    final JoinPredicate predicate;
    final Emitter emit;
    /** The left and right rows of a window pair, or a row emitted alone. */
    private final RowView storedRow = new RowView();
    private final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);
    private final RowView otherRow = new RowView();
    private final UnsafeBuffer otherBuffer = new UnsafeBuffer(0, 0);
    final boolean semiOrAnti;
    final boolean semi;
    final TimerWheel bucketWheel;
    /** The window coGroup that replaces the pair join when the spec has a function (SPEC 6.4), else null. */
    final CoGroupWindows coGroup;
    private final TimerWheel.ExpiryHandler bucketFire = this::fireBucket;
    private final TimerWheel.ExpiryHandler loneRowFire = this::fireLoneRow;
    /** The records of the bucket being fired, grouped by key in place; used for nothing else. */
    long[] records = new long[64];
    /** {@link #emitWindow}'s scratch: the right rows of the window being fired, grown by doubling. */
    private long[] rightRecords = new long[64];
    /** Pairs of a left and a right row that firing windows looked at (for the cost tests: counted, not timed). */
    long pairChecks;
    long fireStep;
    long fireWatermark = Long.MIN_VALUE;
    boolean ended;

    AbstractWindowJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        final CompiledJoin compiled = CompiledJoin.of(spec);
        this.emit = new Emitter(spec.type(), results, deadLetters, counters);
        this.state = new PartitionState(config, spec, spec.window().kind().name().toLowerCase(java.util.Locale.ROOT) + "-window",
            BUCKET_LENGTH, true, counters, PartitionState.NO_ROOM, 0);
        this.predicate = new JoinPredicate(compiled, state.config, state.store, counters, results);
        this.semiOrAnti = spec.type().isSemiOrAnti();
        this.semi = spec.type() == JoinType.SEMI;
        this.bucketWheel = new TimerWheel(config.tickShift(), config.wheelSlots(),
            BUCKET_TIMER_PREV_OFFSET, BUCKET_TIMER_NEXT_OFFSET, BUCKET_DEADLINE_OFFSET, state.base);
        this.coGroup = spec.coGroup() == null ? null : new CoGroupWindows(spec, state, emit, counters, results);
        try
        {
            state.restore(heapPart);
        }
        catch (final RuntimeException | Error e)
        {
            state.close();
            throw e;
        }
    }

    /** The operator's heap-held state in durable mode, the window buckets' timer wheel with it. */
    private final PartitionState.HeapPart heapPart = new PartitionState.HeapPart()
    {
        @Override
        public void save(final java.nio.ByteBuffer out)
        {
            counters.save(out);
            watermarks.save(out);
            out.putLong(fireStep).putLong(fireWatermark).put((byte)(ended ? 1 : 0));
            bucketWheel.save(out);
        }

        @Override
        public void load(final java.nio.ByteBuffer in)
        {
            counters.load(in);
            watermarks.load(in);
            fireStep = in.getLong();
            fireWatermark = in.getLong();
            ended = in.get() != 0;
            bucketWheel.load(in);
        }
    };

    @Override
    public final boolean durable()
    {
        return state.durable();
    }

    @Override
    public final void persist() throws java.io.IOException
    {
        state.persist(heapPart);
    }

    @Override
    public final void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        state.beginMutation();
        counters.rowsIn++;
        watermarks.markActive(side);
        if (kind != ChangeKind.INSERT)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.NOT_APPEND_ONLY);
            return;
        }
        onInsert(side, kind, row, ts, step, ended ? Long.MAX_VALUE : watermarks.current());
    }

    /** An append-only row: assign it to its windows and store it, or dead-letter it. */
    abstract void onInsert(Side side, ChangeKind kind, RowView row, long ts, long step, long watermark);

    /**
     * Fires the rows {@code records[from, to)} of one key of a bucket whose timer is due.
     *
     * @return the deadline at which the bucket must fire again for these rows, {@code Long.MAX_VALUE} for none.
     */
    abstract long fireKey(long bucket, int from, int to);

    /** A row alone in its window (null key; for tumbling and sliding, also a failed pre-filter) whose window fired. */
    abstract void fireLoneRow(long record);

    /** Window buckets are keyed by key and window, not by the routing hash: nothing to read ahead. */
    @Override
    public final void prefetch(final long keyHash)
    {
    }

    /**
     * The timer deadline of a window {@code [start, end)}. The window fires when the watermark reaches
     * {@code end - 1} (SPEC 2.3, {@link #isFired}), and the {@link TimerWheel} expires the entries whose
     * deadline is strictly below the watermark, so the entry is due at {@code end - 2}: the first
     * watermark above it is {@code end - 1}. Saturates at {@code Long.MIN_VALUE} for the earliest ends.
     */
    static long timerDeadline(final long end)
    {
        return saturatedSubtract(end, 2);
    }

    /** @return true when a window ending at {@code end} has fired at {@code watermark} (SPEC 2.3: at end - 1). */
    static boolean isFired(final long end, final long watermark)
    {
        return watermark != Long.MIN_VALUE && end - 1 <= watermark;
    }

    /** A bucket's timer: fire its window (tumbling, sliding) or its due sessions. */
    private void fireBucket(final long bucket)
    {
        // Only the scheduled bit: the other flags are the operator's (a session join's summary of its sessions).
        UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, UnsafeApi.getLong(bucket + BUCKET_FLAGS_OFFSET) & ~SCHEDULED);
        NativeArena.written(state.base, bucket + BUCKET_FLAGS_OFFSET);
        final int n = gather(bucket);
        long next = Long.MAX_VALUE;
        int groupStart = 0;
        while (groupStart < n)
        {
            // Rows of one key together (distinct keys share a bucket only on a hash collision); a coGroup
            // keeps their arrival order.
            final int groupEnd = coGroup != null ? coGroup.groupByKey(records, groupStart, n) : groupByKey(groupStart, n);
            next = Math.min(next, fireKey(bucket, groupStart, groupEnd));
            groupStart = groupEnd;
        }
        if (BucketDescriptor.isEmpty(bucket))
        {
            state.index.remove(bucket);
        }
        else
        {
            UnsafeApi.putLong(bucket + BUCKET_FLAGS_OFFSET, UnsafeApi.getLong(bucket + BUCKET_FLAGS_OFFSET) | SCHEDULED);
            NativeArena.written(state.base, bucket + BUCKET_FLAGS_OFFSET);
            bucketWheel.schedule(bucket, next);
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

    /** Joins the rows {@code records[from, to)} of one key and one window, emits, and drops them. */
    final void emitWindow(final int from, final int to, final long start, final long end)
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
            RowStore.wrap(left, storedBuffer, storedRow);
            pairChecks += rights;
            for (int j = 0; j < rights; j++)
            {
                final long right = rightRecords[j];
                RowStore.wrap(right, otherBuffer, otherRow);
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
                RowStore.wrap(record, storedBuffer, storedRow);
                emit.windowPadded(side, storedRow, start, end, fireStep);
            }
            state.expireKeepingBucket(record);
        }
    }

    /** Emits a lone row with its window {@code [start, end)} and drops it. */
    final void emitLoneRow(final long record, final long start, final long end)
    {
        if (coGroup != null)
        {
            coGroup.fireLone(record, start, end, fireStep);
        }
        else
        {
            RowStore.wrap(record, storedBuffer, storedRow);
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
            final long rows = state.store.rows(bucket, s == 0 ? Side.LEFT : Side.RIGHT);
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

    @Override
    public final void onWatermark(final Side side, final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advance(side, watermark))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    @Override
    public final void onWatermark(final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advanceBoth(watermark))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    @Override
    public final void onIdle(final Side side, final long step)
    {
        state.beginMutation();
        if (watermarks.markIdle(side))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    /** The join's watermark moved forward to {@code watermark}: due windows fire. */
    private void onJoinWatermark(final long watermark, final long step)
    {
        fireStep = step;
        fireWatermark = watermark;
        // Windows are scheduled at timerDeadline(end): those with end - 1 <= watermark expire now.
        bucketWheel.advance(watermark, bucketFire);
        state.wheel.advance(watermark, loneRowFire);
    }

    @Override
    public final void onEndOfInput(final long step)
    {
        state.beginMutation();
        watermarks.advanceBoth(Long.MAX_VALUE);
        ended = true;
        fireStep = step;
        fireWatermark = Long.MAX_VALUE;
        bucketWheel.expireAll(bucketFire);
        state.wheel.expireAll(loneRowFire);
    }

    @Override
    public final OperatorCounters counters()
    {
        state.refreshCounters();
        counters.pendingTimers += bucketWheel.pending();
        counters.watermark = watermarks.current();
        return counters;
    }

    @Override
    public final void close()
    {
        state.close(heapPart);
    }

    @Override
    public final void discard()
    {
        state.close();
    }
}
