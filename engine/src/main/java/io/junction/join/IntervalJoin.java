package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.PartitionState.sideOf;
import static io.junction.join.TimeMath.saturatedAdd;
import static io.junction.join.TimeMath.saturatedSubtract;

/**
 * The event-time interval join with time-bounded state and append-only output (SEMANTICS 5), as Flink's
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
 * <p>With a {@link StateConfig#stateDirectory()} the stored rows live in its files, and the wheel, the
 * watermarks and the counters are carried across a close and reopen.
 *
 * <p>The kind's {@link JoinAlgorithm}: its {@link OperatorDriver} owns the lifecycle (counters, watermarks,
 * the state, persist and close) and calls this for the rows, the watermark and the end of input.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class IntervalJoin implements JoinAlgorithm
{
    /** The kind's name in the durable state's layout. */
    static final String LAYOUT = "interval";

    private final OperatorParts parts;
    private final WatermarkTracker watermarks;
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
     * The interval join's algorithm over its driver's parts.
     *
     * @param parts an interval join's parts, any join type.
     */
    IntervalJoin(final OperatorParts parts)
    {
        this.parts = parts;
        this.watermarks = parts.watermarks;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        final IntervalBounds bounds = parts.spec.interval();
        this.lower = bounds.inclusiveLower();
        this.upper = bounds.inclusiveUpper();
        this.lateness = parts.spec.allowedLateness();
        this.semiOrAnti = parts.spec.type().isSemiOrAnti();
        this.semi = parts.spec.type() == JoinType.SEMI;
    }

    /** The algorithm's heap-held state in durable mode: the step of the last expiry, and whether input has ended. */
    @Override
    public void save(final ByteBuffer out)
    {
        out.putLong(expiryStep).put((byte)(ended ? 1 : 0));
    }

    @Override
    public void load(final ByteBuffer in)
    {
        expiryStep = in.getLong();
        ended = in.get() != 0;
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
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
        final int keyLength = parts.keyOf(side, kind, row, ts, step);
        if (keyLength == OperatorParts.REFUSED)
        {
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
        final long hash = predicate.keyHash(keyLength);
        if (parts.fanOutBounded() && refusesFanOut(side, kind, row, ts, step, hash))
        {
            return;
        }
        if (ended || deadline < watermark)
        {
            onClosedRow(side, row, ts, step, keyLength, hash);
            return;
        }
        // Everything the row needs is taken before it has any effect: a row that does not fit is rejected whole.
        // Stored before the probe, which reads the other side's group only.
        // A refusal finishes the watermark work pending in slices and tries again (OperatorParts.admit).
        final long record = parts.admit(side, kind, row, ts, step, keyLength, hash, 0);
        if (record == PartitionState.REFUSED)
        {
            return;
        }
        if (!parts.fanOutBounded())
        {
            parts.countFanOut(BucketDescriptor.count(state.admittedBucket, side.other().ordinal()));
        }
        final int matches = probe(side, row, ts, step, keyLength, state.admittedBucket);
        if (semi && side == Side.LEFT && matches > 0)
        {
            emit.padded(ChangeKind.INSERT, Side.LEFT, row, ts, step);
        }
        RowDescriptor.count(state.base, record, matches);
        state.wheel.schedule(record, deadline);
    }

    /**
     * The output budget (docs/SEMANTICS.md 1.5), before the row has any effect: its fan-out is the other side's rows
     * stored under its key hash, a count the bucket keeps (an upper bound of its pairs: the interval and the
     * condition are tested later, per row).
     *
     * @return true when the row was dead-lettered FANOUT_EXCEEDED.
     */
    private boolean refusesFanOut(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final long hash)
    {
        final long bucket = state.index.find(hash);
        return bucket != 0 && parts.refuseFanOut(BucketDescriptor.count(bucket, side.other().ordinal()), side, kind, row, ts, step);
    }

    /**
     * A row closed on arrival (its deadline is below the watermark, or input has ended): joined with what is
     * stored, then padded at once (SEMANTICS 5). It creates no bucket, so a full index cannot refuse it.
     */
    private void onClosedRow(
        final Side side, final RowView row, final long ts, final long step, final int keyLength, final long hash)
    {
        final long bucket = state.index.find(hash);
        if (bucket == 0)
        {
            if (emit.emitsUnmatched(side))
            {
                emit.padded(ChangeKind.INSERT, side, row, ts, step);
            }
            return;
        }
        final int matches = probe(side, row, ts, step, keyLength, bucket);
        state.countKey(bucket, side, predicate.key, keyLength, 0);
        if (semi && side == Side.LEFT && matches > 0)
        {
            emit.padded(ChangeKind.INSERT, Side.LEFT, row, ts, step);
        }
        if (matches == 0 && emit.emitsUnmatched(side))
        {
            emit.padded(ChangeKind.INSERT, side, row, ts, step);
        }
        state.releaseIfEmpty(bucket);
    }

    private int probe(
        final Side side, final RowView row, final long ts, final long step, final int keyLength, final long bucket)
    {
        final Side otherSide = side.other();
        final boolean isLeft = side == Side.LEFT;
        int matches = 0;
        final long rows = state.store.rows(bucket, otherSide.ordinal());
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
                RowDescriptor.count(state.base, other, count + 1);
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
            StoredRows.wrap(record, storedBuffer, storedRow);
            emit.padded(ChangeKind.INSERT, side, storedRow, RowDescriptor.ts(record), expiryStep);
        }
        state.expire(record);
    }

    /** The join's watermark moved forward to {@code watermark}: rows whose deadline it passed close. */
    @Override
    public void onWatermark(final long watermark, final long step)
    {
        expiryStep = step;
        state.wheel.advance(watermark, expiry);
    }

    /**
     * At most {@code budget} of the rows {@code watermark} closed are closed (padded as {@link #onWatermark} pads
     * them, at {@code step}) and removed. Exact with rows in between: a row still stored with a deadline below the
     * join's watermark {@code w} cannot match a row admitted since. A left row {@code l} is due when
     * {@code l.ts + upper + lateness < w}; a right row {@code r} that arrives is not late,
     * {@code r.ts >= w - lateness}; so {@code r.ts - l.ts > upper} and the interval test fails. Symmetrically a due
     * right row {@code r} ({@code r.ts - lower + lateness < w}) and a new left row {@code l >= w - lateness} give
     * {@code r.ts - l.ts < lower}. (Saturated sums keep the inequalities, being monotone.) The interval test comes
     * before the key compare and the condition, so a due row neither matches, nor counts a match, nor calls user
     * code; a refused admission finishes the pending work and tries again ({@link OperatorParts#admit}), so room
     * due rows still hold never refuses a row.
     */
    @Override
    public boolean expireSlice(final long watermark, final long step, final int budget)
    {
        expiryStep = step;
        return state.wheel.advance(watermark, expiry, budget);
    }

    /** Every stored row closes; a row that arrives after this is closed on arrival. */
    @Override
    public void onEndOfInput(final long step)
    {
        ended = true;
        expiryStep = step;
        state.wheel.expireAll(expiry);
    }

    /** Its rows are the store's records in the buckets of their join key's hash (docs/SEMANTICS.md 14). */
    @Override
    public boolean inspectable()
    {
        return true;
    }

    /** The interval first (docs/SEMANTICS.md 13: {@code OUTSIDE_INTERVAL}, the bound and by how much), then the condition. */
    @Override
    public String explainPair(
        final JoinPredicate predicate, final Side side, final RowView row, final long ts, final long other,
        final StringBuilder detail)
    {
        final long otherTs = RowDescriptor.ts(other);
        final long leftTs = side == Side.LEFT ? ts : otherTs;
        final long rightTs = side == Side.LEFT ? otherTs : ts;
        if (!inInterval(leftTs, rightTs))
        {
            final double diff = (double) rightTs - (double) leftTs;
            detail.append("right.ts - left.ts is ").append((long) diff).append(" ms, ")
                .append(diff < lower ? "below the lower bound " + lower + " by " + (long) (lower - diff)
                    : "above the upper bound " + upper + " by " + (long) (diff - upper)).append(" ms");
            return "OUTSIDE_INTERVAL";
        }
        return KeyInspector.conditionCode(predicate, side, row, other, detail);
    }

    /** Every stored row of the other side under the key is a candidate, decided as {@link #explainPair} does. */
    @Override
    public boolean explainable()
    {
        return true;
    }
}
