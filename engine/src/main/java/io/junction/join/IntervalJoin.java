package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import io.junction.metrics.HotKey;
import io.junction.metrics.OperatorCounters;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.List;

import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.PartitionState.sideOf;
import static io.junction.join.TimeMath.saturatedAdd;
import static io.junction.join.TimeMath.saturatedSubtract;

/**
 * The event-time interval join with time-bounded state and append-only output (SPEC 2.2), as Flink's
 * {@code IntervalJoinOperator} for inner joins and Flink SQL's interval join / Spark's stream-stream
 * outer join for the outer types: an unmatched row is emitted null-padded once, when the watermark
 * closes it, and never retracted.
 *
 * <p>Predicate: keys equal, both pre-filters and the condition hold, and
 * {@code right.ts - left.ts ∈ [lower, upper]} with the bounds made inclusive (an exclusive upper
 * counts as {@code upper - 1}, an exclusive lower as {@code lower + 1}), computed without overflow.
 * <pre>
 * on row r of side S at step s:
 *   op other than +I              -&gt; dead-letter NOT_APPEND_ONLY
 *   r.ts &lt; watermark - lateness   -&gt; dead-letter LATE (counted; not joined, not stored)
 *   null key or failed pre-filter -&gt; padded at once if S is outer (anti: the left row), never stored
 *   for each stored o of the other side matching r: emit +(r, o) at max(r.ts, o.ts); count both
 *     (semi: +l at l's first match, once)
 *   if r is already closed: pad it now if it never matched, do not store it
 *   else store r with deadline  left: ts + upper + lateness,  right: ts - lower + lateness
 * on watermark w at step s: every row with deadline &lt; w is closed: padded (if outer and unmatched;
 *   anti: the unmatched left rows) at step s, then removed from state.
 * on end of input: every row is closed.
 * </pre>
 * State therefore holds only rows that can still match: it grows with the rows inside the interval,
 * not with the length of the stream.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class IntervalJoin implements JoinOperator
{
    private final JoinCounters counters = new JoinCounters();
    private final WatermarkTracker watermarks = new WatermarkTracker();
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    /** A stored row being closed. */
    private final RowView storedRow = new RowView();
    private final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);
    private final long lower;
    private final long upper;
    private final long lateness;
    private final boolean semiOrAnti;
    private final boolean semi;
    private final TimerWheel.ExpiryHandler expiry = this::closeRow;
    private long expiryStep;
    private boolean ended;

    /**
     * Creates the operator and allocates its off-heap state.
     *
     * @param spec        a interval join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @throws IllegalArgumentException when the spec is of another join kind.
     */
    public IntervalJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        JoinOperators.requireKind(spec, JoinKind.INTERVAL);
        final CompiledJoin compiled = CompiledJoin.of(spec);
        this.emit = new Emitter(spec.type(), results, deadLetters, counters);
        this.state = new PartitionState(config, spec, "interval", BucketDescriptor.LENGTH, true, counters,
            PartitionState.NO_ROOM, 0);
        this.predicate = new JoinPredicate(compiled, state.config, state.store, counters, results);
        final IntervalBounds bounds = spec.interval();
        this.lower = bounds.inclusiveLower();
        this.upper = bounds.inclusiveUpper();
        this.lateness = spec.allowedLateness();
        this.semiOrAnti = spec.type().isSemiOrAnti();
        this.semi = spec.type() == JoinType.SEMI;
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

    /** The operator's heap-held state in durable mode. */
    private final PartitionState.HeapPart heapPart = new PartitionState.HeapPart()
    {
        @Override
        public void save(final java.nio.ByteBuffer out)
        {
            counters.save(out);
            watermarks.save(out);
            out.putLong(expiryStep).put((byte)(ended ? 1 : 0));
        }

        @Override
        public void load(final java.nio.ByteBuffer in)
        {
            counters.load(in);
            watermarks.load(in);
            expiryStep = in.getLong();
            ended = in.get() != 0;
        }
    };

    @Override
    public boolean durable()
    {
        return state.durable();
    }

    @Override
    public void persist() throws java.io.IOException
    {
        state.persist(heapPart);
    }

    @Override
    public void prefetch(final long keyHash)
    {
        state.prefetch(keyHash);
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        state.beginMutation();
        counters.rowsIn++;
        watermarks.markActive(side);
        if (kind != ChangeKind.INSERT)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.NOT_APPEND_ONLY);
            return;
        }
        final long watermark = watermarks.current();
        if (ts < saturatedSubtract(watermark, lateness))
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.LATE);
            return;
        }
        final int keyLength = predicate.extractKey(side, row);
        final DeadLetterReason refused = JoinPredicate.refusal(keyLength);
        if (refused != null)
        {
            emit.deadLetter(side, kind, row, ts, step, refused);
            return;
        }
        if (keyLength == UNMATCHABLE)
        {
            if (emit.emitsUnmatched(side))
            {
                emit.padded(ChangeKind.INSERT, side, row, ts, step);
            }
            return;
        }
        final long deadline = deadline(side, ts);
        final boolean closed = ended || deadline < watermark;
        // The record is taken before the row has any effect: a row that does not fit is rejected whole.
        final long reserved = closed ? 0 : state.reserve(keyLength, row);
        if (!closed && reserved == 0)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        // A row closed on arrival is only joined with what is stored: it creates no bucket, so a full
        // index cannot refuse it.
        final long hash = predicate.keyHash(keyLength);
        final long bucket = closed ? state.index.find(hash) : state.index.findOrCreate(hash);
        if (bucket == 0)
        {
            if (emit.emitsUnmatched(side))
            {
                emit.padded(ChangeKind.INSERT, side, row, ts, step);
            }
            return;
        }
        if (bucket == KeyIndex.FULL)
        {
            if (reserved != 0)
            {
                state.store.release(reserved, keyLength, row.length());
            }
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        if (reserved != 0 && !state.reserveSlot(bucket, side, reserved, keyLength, row))
        {
            state.releaseIfEmpty(bucket);
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        final int matches = probe(side, row, ts, step, keyLength, bucket);
        state.countKey(bucket, side, predicate.key, keyLength, closed ? 0 : 1);
        if (semi && side == Side.LEFT && matches > 0)
        {
            emit.padded(ChangeKind.INSERT, Side.LEFT, row, ts, step);
        }
        if (closed)
        {
            // Closed on arrival: joined with what is stored, then padded at once (SPEC 2.2).
            if (matches == 0 && emit.emitsUnmatched(side))
            {
                emit.padded(ChangeKind.INSERT, side, row, ts, step);
            }
            state.releaseIfEmpty(bucket);
            return;
        }
        final long record = state.store.append(reserved, bucket, side, predicate.key, 0, keyLength, row, ts);
        RowDescriptor.count(record, matches);
        state.wheel.schedule(record, deadline);
    }

    private int probe(
        final Side side, final RowView row, final long ts, final long step, final int keyLength, final long bucket)
    {
        final Side otherSide = side.other();
        final boolean isLeft = side == Side.LEFT;
        int matches = 0;
        final long rows = state.store.rows(bucket, otherSide);
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            if ((i & (RowGroup.TOUCH_GROUP - 1)) == 0 && slots > 1)
            {
                state.touch(rows, i, Math.min(slots, i + RowGroup.TOUCH_GROUP));
            }
            final long other = state.store.record(rows, i);
            if (other == 0)
            {
                continue;
            }
            final long otherTs = RowDescriptor.ts(other);
            if (!(isLeft ? inInterval(ts, otherTs) : inInterval(otherTs, ts)) || !predicate.matches(other, keyLength, side, row))
            {
                continue;
            }
            matches++;
            final int count = RowDescriptor.count(other);
            if (count != Integer.MAX_VALUE)
            {
                RowDescriptor.count(other, count + 1);
            }
            if (semiOrAnti)
            {
                if (semi && !isLeft && count == 0)
                {
                    emit.padded(ChangeKind.INSERT, Side.LEFT, predicate.otherRow, otherTs, step);
                }
                continue;
            }
            emit.pair(ChangeKind.INSERT, side, row, predicate.otherRow, Math.max(ts, otherTs), step);
        }
        return matches;
    }

    /** @return whether {@code rightTs - leftTs} lies in [lower, upper], without overflow. */
    private boolean inInterval(final long leftTs, final long rightTs)
    {
        final long diff = rightTs - leftTs;
        if (((rightTs ^ leftTs) & (rightTs ^ diff)) < 0)
        {
            // The true difference is beyond the long range, hence beyond any bound.
            return false;
        }
        return diff >= lower && diff <= upper;
    }

    /** @return the last watermark at which a row of this side and ts can still match. */
    private long deadline(final Side side, final long ts)
    {
        final long lastMatch = side == Side.LEFT ? saturatedAdd(ts, upper) : saturatedSubtract(ts, lower);
        return saturatedAdd(lastMatch, lateness);
    }

    /** Expiry of one row: pad it if it never matched and its side is padded, then drop it. */
    private void closeRow(final long record)
    {
        final Side side = sideOf(record);
        if (RowDescriptor.count(record) == 0 && emit.emitsUnmatched(side))
        {
            RowStore.wrap(record, storedBuffer, storedRow);
            emit.padded(ChangeKind.INSERT, side, storedRow, RowDescriptor.ts(record), expiryStep);
        }
        state.expire(record);
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advance(side, watermark))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advanceBoth(watermark))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        state.beginMutation();
        if (watermarks.markIdle(side))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    /** The join's watermark moved forward to {@code watermark}: rows whose deadline it passed close. */
    private void onJoinWatermark(final long watermark, final long step)
    {
        expiryStep = step;
        state.wheel.advance(watermark, expiry);
    }

    @Override
    public void onEndOfInput(final long step)
    {
        state.beginMutation();
        watermarks.advanceBoth(Long.MAX_VALUE);
        ended = true;
        expiryStep = step;
        state.wheel.expireAll(expiry);
    }

    @Override
    public OperatorCounters counters()
    {
        state.refreshCounters();
        counters.watermark = watermarks.current();
        return counters;
    }

    @Override
    public List<HotKey> hotKeys()
    {
        return state.hotKeys();
    }

    @Override
    public void close()
    {
        state.close(heapPart);
    }

    @Override
    public void discard()
    {
        state.close();
    }
}
