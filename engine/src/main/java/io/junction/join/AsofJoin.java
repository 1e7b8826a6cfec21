package io.junction.join;

import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Locale;

import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.TimeMath.saturatedAdd;
import static io.junction.join.TimeMath.saturatedSubtract;

/**
 * The event-time ASOF join of two append-only streams (docs/SEMANTICS.md section 11): each left
 * row joins the right row of its key nearest in time in the spec's direction, within an optional
 * tolerance {@code T}, as kdb+ {@code aj}, pandas {@code merge_asof} and DuckDB's {@code ASOF JOIN} do on
 * a batch, and RisingWave's and Feldera's streaming ASOF joins do on streams. {@code W} is the join
 * watermark (the minimum of the two inputs'), {@code A} the allowed lateness, {@code H = W - A}.
 * <pre>
 * candidate r of l: same key, both pre-filters pass, condition(l, r), and
 *   backward  l.ts - T &lt;= r.ts &lt;= l.ts      best: greatest r.ts
 *   forward   l.ts &lt;= r.ts &lt;= l.ts + T      best: least r.ts
 *   nearest   |r.ts - l.ts| &lt;= T            best: least |r.ts - l.ts|, a tie to the earlier r.ts
 *   equal r.ts: the one that arrived last wins
 * F(l) (the greatest ts a right row could have and still become l's match):
 *   backward l.ts; forward best.ts, else l.ts + T; nearest l.ts + |l.ts - best.ts|, else l.ts + T
 *   (no tolerance and no candidate: +infinity, the row waits for one or for the end of input)
 * left row l at step s:
 *   op other than +I            -&gt; dead-letter NOT_APPEND_ONLY
 *   l.ts &lt; H                    -&gt; dead-letter LATE
 *   null key or failed filter   -&gt; final at once: +(l, null) at s for left, nothing for inner
 *   else                        -&gt; waits in the timer wheel until H &gt; F(l) (deadline F + A);
 *                                  eager: +I(l, best) at s, or +I(l, null) for left without a candidate
 * right row r at step s:
 *   op other than +I            -&gt; dead-letter NOT_APPEND_ONLY
 *   r.ts &lt; H                    -&gt; dead-letter LATE
 *   null key or failed filter   -&gt; ignored (never a candidate)
 *   else                        -&gt; stored; for each waiting l of its key that r is now the best of:
 *                                  eager: -U(l, old) +U(l, r) at s (-U(l, null) for a padded left row;
 *                                  +I(l, r) for inner's first match); final: F(l) moves (forward, nearest)
 * join watermark W at step s: every waiting l with H &gt; F(l) is final: final mode emits +I(l, best) (or
 *   +(l, null) for left) at s, eager mode has emitted it already; l leaves state. Then the right rows no
 *   stored or future left row can select are freed.
 * end of input: every waiting left row is final.
 * </pre>
 * Right rows of a key are kept in its bucket's right group in time order, and in arrival order within a ts
 * ({@code RowStore.placeInTimeOrder}: a row out of order is placed by a binary search and moves the rows between
 * its place and the nearer end of the group's rows, amortised O(1) for rows in order, a few behind or in
 * decreasing time order). A left row's best is found by a binary search of that group and a
 * walk from there over the rows that do not qualify (a condition that fails, a colliding key): O(log n)
 * slots read without a condition. A right row leaves the group from its front, or through
 * {@code RowStore.moveToTimeOrderEdge} ({@link AsofRightExpiry}), so that its emptied slots only ever lead the
 * group, where the search reads them as older than every row.
 * The state is pruned by the watermark too, so a key holds the right rows at or above {@code H} plus the
 * few below it that a stored left row may still select. A right row leaves state (through a second timer
 * wheel, at the first watermark that proves it): backward, once a newer row of its key is at or below
 * {@code H} or it is older than {@code H - T}; forward, once it is older than {@code H}; nearest, once a
 * newer row of its key is strictly below {@code H} or it is older than {@code H - 2T} (a stored left row
 * is at most {@code T} before {@code H}); a row at the same ts as a newer arrival of its key at once. With a
 * condition a newer row does not dominate an older one (it may fail the condition where the older
 * passes), so backward and nearest keep only the tolerance bound, and keep rows until the end of input
 * without one. Left rows of a key are in the bucket's left group, which a right row scans to re-evaluate
 * them (eager mode, and the forward and nearest deadlines in final mode). Per event nothing is allocated.
 *
 * <p>Its parts, one responsibility each: {@link AsofRange} the time rules (candidates, which wins, F),
 * {@link AsofSearch} the nearest-match search over a key's time-ordered right group, {@link AsofRightExpiry}
 * when right rows leave state (their own timer wheel); this class admits the rows, re-evaluates the waiting left
 * rows a right row changes (eager corrections, moved deadlines) and makes left rows final.
 *
 * <p>With a {@link StateConfig#stateDirectory()} the waiting left rows and the right rows live in its
 * files, and both timer wheels, the watermarks and the counters are carried across a close and reopen.
 *
 * <p>The kind's {@link JoinAlgorithm}: its {@link OperatorDriver} owns the lifecycle (counters, watermarks,
 * the state, persist and close) and calls this for the rows, the watermark and the end of input.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class AsofJoin implements JoinAlgorithm
{
    /** The kind's name in the durable state's layout. */
    static final String LAYOUT = "asof/time-ordered";
    /** Left record flag: the row has been emitted (eager mode): a pair, or padded for a left join. */
    private static final int EMITTED = 1;
    /** Left record flag: eager mode emitted the row padded (no candidate yet). */
    private static final int PADDED = 2;
    // Right records: RecordTimers.SCHEDULED (4), the row is in AsofRightExpiry's wheel; AsofRightExpiry.DUE (8),
    // fired and waiting (within one watermark's expiry) for the rows before it in its group to leave.

    private final OperatorParts parts;
    private final WatermarkTracker watermarks;
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final AsofRange range;
    /** The nearest-match search over a key's time-ordered right group. */
    private final AsofSearch search;
    /** When right rows leave state (their own wheel); left rows wait in the state's wheel. */
    private final AsofRightExpiry rightExpiry;
    private final AsofSpec.Direction direction;
    private final boolean eager;
    private final long lateness;
    private final boolean padLeft;
    private final RowView storedLeft = new RowView();
    private final UnsafeBuffer storedLeftBuffer = new UnsafeBuffer(0, 0);
    private final RowView match = new RowView();
    private final UnsafeBuffer matchBuffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer storedKey = new UnsafeBuffer(0, 0);
    private final TimerWheel.ExpiryHandler fire = this::fireLeft;
    private long fireStep;

    /**
     * The ASOF join's algorithm over its driver's parts.
     *
     * @param parts an ASOF join's parts, inner or left.
     */
    AsofJoin(final OperatorParts parts)
    {
        this.parts = parts;
        this.watermarks = parts.watermarks;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        final AsofSpec asof = parts.spec.asof();
        this.range = new AsofRange(asof);
        this.direction = asof.direction();
        this.eager = asof.emit() == AsofSpec.Emit.EAGER;
        this.lateness = parts.spec.allowedLateness();
        final boolean hasCondition = !parts.compiled.condition().acceptsAll();
        this.padLeft = parts.spec.type() == JoinType.LEFT;
        this.search = new AsofSearch(state.store, predicate, parts.counters, range, hasCondition);
        this.rightExpiry = new AsofRightExpiry(parts, range, lateness, hasCondition);
    }

    /** @return slots of right groups read by candidate searches so far ({@link AsofSearch#probes}), for a test. */
    long probes()
    {
        return search.probes;
    }

    /** @return slots of time-ordered groups the state's store has read or moved so far ({@link RowStore#timeOrderSteps}), for a test. */
    long timeOrderSteps()
    {
        return state.store.timeOrderSteps();
    }

    /** The algorithm's heap-held state in durable mode: the right rows' wheel with it (the left rows' is the state's own). */
    @Override
    public void save(final ByteBuffer out)
    {
        out.putLong(fireStep);
        rightExpiry.save(out);
    }

    @Override
    public void load(final ByteBuffer in)
    {
        fireStep = in.getLong();
        rightExpiry.load(in);
    }

    @Override
    public long pendingTimers()
    {
        return rightExpiry.pending();
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (kind != ChangeKind.INSERT)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.NOT_APPEND_ONLY);
            return;
        }
        if (ts < saturatedSubtract(watermarks.current(), lateness))
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.LATE);
            return;
        }
        final int keyLength = parts.keyOf(side, kind, row, ts, step);
        if (keyLength == OperatorParts.REFUSED)
        {
            return;
        }
        if (side == Side.LEFT)
        {
            onLeft(keyLength, row, ts, step);
        }
        else
        {
            onRight(keyLength, row, ts, step);
        }
    }

    private void onLeft(final int keyLength, final RowView row, final long ts, final long step)
    {
        if (keyLength == UNMATCHABLE)
        {
            // Can never match: final at once, at its own step.
            if (padLeft)
            {
                emit.padded(ChangeKind.INSERT, Side.LEFT, row, ts, step);
            }
            return;
        }
        final long record =
            parts.admit(Side.LEFT, ChangeKind.INSERT, row, ts, step, keyLength, predicate.keyHash(keyLength), 0);
        if (record == PartitionState.REFUSED)
        {
            return;
        }
        final long bucket = state.admittedBucket;
        // Final backward needs no candidate now: its F is l.ts whatever it is, and the match is found when final.
        // (The left row just stored is in its key's left group: the right rows bestFor scans are unchanged.)
        final long best = eager || direction != AsofSpec.Direction.BACKWARD
            ? search.bestFor(bucket, predicate.key, keyLength, row, ts, 0) : 0;
        if (eager)
        {
            if (best != 0)
            {
                StoredRows.wrap(best, matchBuffer, match);
                emit.pair(ChangeKind.INSERT, Side.LEFT, row, match, ts, step);
                RowDescriptor.count(state.base, record, EMITTED);
            }
            else if (padLeft)
            {
                emit.padded(ChangeKind.INSERT, Side.LEFT, row, ts, step);
                RowDescriptor.count(state.base, record, EMITTED | PADDED);
            }
        }
        // Final at the first watermark W with W - A > F, i.e. W > F + A: the wheel fires deadlines below W.
        // F >= ts >= W - A, so the deadline is never behind the wheel.
        state.wheel.schedule(record, saturatedAdd(finalTs(ts, best), lateness));
    }

    private void onRight(final int keyLength, final RowView row, final long ts, final long step)
    {
        if (keyLength == UNMATCHABLE)
        {
            return;
        }
        final long record =
            parts.admit(Side.RIGHT, ChangeKind.INSERT, row, ts, step, keyLength, predicate.keyHash(keyLength), 0);
        if (record == PartitionState.REFUSED)
        {
            return;
        }
        final long bucket = state.admittedBucket;
        state.store.placeInTimeOrder(record);
        if (eager || direction != AsofSpec.Direction.BACKWARD)
        {
            reevaluate(bucket, keyLength, row, record, ts, step);
        }
        rightExpiry.arrived(bucket, keyLength, record, ts);
    }

    /**
     * The waiting left rows of the new right row's key that it is now the best candidate of: eager mode
     * corrects their output, and their deadline moves (forward and nearest; backward's is {@code l.ts}).
     */
    private void reevaluate(
        final long bucket, final int keyLength, final RowView right, final long record, final long ts, final long step)
    {
        final long lefts = state.store.rows(bucket, Side.LEFT.ordinal());
        final int slots = RowGroup.slots(lefts);
        for (int i = 0; i < slots; i++)
        {
            final long l = state.store.record(lefts, i);
            if (l == 0)
            {
                continue;
            }
            final long lts = RowDescriptor.ts(l);
            if (!range.inRange(lts, ts) || !state.store.keyEquals(l, predicate.key, 0, keyLength))
            {
                continue;
            }
            StoredRows.wrap(l, storedLeftBuffer, storedLeft);
            if (!predicate.conditionHolds(storedLeft, right))
            {
                continue;
            }
            final long previous = search.bestFor(bucket, predicate.key, keyLength, storedLeft, lts, record);
            // The new row arrived last: it wins a tie on ts.
            if (previous != 0 && !range.beats(lts, ts, RowDescriptor.ts(previous)))
            {
                continue;
            }
            if (eager)
            {
                final int flags = RowDescriptor.count(l);
                if (previous != 0)
                {
                    StoredRows.wrap(previous, matchBuffer, match);
                    emit.pair(ChangeKind.UPDATE_BEFORE, Side.LEFT, storedLeft, match, lts, step);
                    emit.pair(ChangeKind.UPDATE_AFTER, Side.LEFT, storedLeft, right, lts, step);
                }
                else if ((flags & PADDED) != 0)
                {
                    emit.padded(ChangeKind.UPDATE_BEFORE, Side.LEFT, storedLeft, lts, step);
                    emit.pair(ChangeKind.UPDATE_AFTER, Side.LEFT, storedLeft, right, lts, step);
                }
                else
                {
                    emit.pair(ChangeKind.INSERT, Side.LEFT, storedLeft, right, lts, step);
                }
                RowDescriptor.count(state.base, l, (flags & ~PADDED) | EMITTED);
            }
            if (direction != AsofSpec.Direction.BACKWARD)
            {
                state.wheel.cancel(l);
                state.wheel.schedule(l, saturatedAdd(range.finalTsWith(lts, ts), lateness));
            }
        }
    }

    /**
     * @return F, the greatest ts a right row could have and still become the match of a left row at
     *         {@code lts} whose best candidate so far is {@code best} (0 for none); {@link Long#MAX_VALUE}
     *         for "until the end of input".
     */
    private long finalTs(final long lts, final long best)
    {
        return best == 0 ? range.finalTsWithout(lts) : range.finalTsWith(lts, RowDescriptor.ts(best));
    }

    /** A waiting left row that is final: final mode emits it with its match; it leaves state. */
    private void fireLeft(final long record)
    {
        if (!eager)
        {
            final long bucket = state.store.bucketOf(record);
            final long ts = RowDescriptor.ts(record);
            final int keyLength = RowDescriptor.keyLength(record);
            storedKey.wrap(RowDescriptor.keyAddress(record), keyLength);
            StoredRows.wrap(record, storedLeftBuffer, storedLeft);
            final long best = search.bestFor(bucket, storedKey, keyLength, storedLeft, ts, 0);
            if (best != 0)
            {
                StoredRows.wrap(best, matchBuffer, match);
                emit.pair(ChangeKind.INSERT, Side.LEFT, storedLeft, match, ts, fireStep);
            }
            else if (padLeft)
            {
                emit.padded(ChangeKind.INSERT, Side.LEFT, storedLeft, ts, fireStep);
            }
        }
        state.retire(record);
    }

    /**
     * The join's watermark moved forward: the left rows it made final are emitted first, then the right rows
     * it made unselectable are freed (in that order, so that each left row still finds its match).
     */
    @Override
    public void onWatermark(final long watermark, final long step)
    {
        fireStep = step;
        state.wheel.advance(watermark, fire);
        rightExpiry.advance(watermark);
    }

    /** Every waiting left row is final; then every right row is freed. */
    @Override
    public void onEndOfInput(final long step)
    {
        fireStep = step;
        state.wheel.expireAll(fire);
        rightExpiry.advance(Long.MAX_VALUE);
    }

    /** Left rows waiting to be final and the right rows are its bucket's records (docs/SEMANTICS.md 14). */
    @Override
    public boolean inspectable()
    {
        return true;
    }

    /** Its count fields hold flags (emitted, padded, scheduled, due), not matches. */
    @Override
    public int matches(final long record)
    {
        return -1;
    }

    /** A right row leaves once no left row can select it; a left row is final when the watermark passes its due time. */
    @Override
    public long due(final long record)
    {
        return PartitionState.sideOf(record) == Side.RIGHT ? rightExpiry.due(record) : RowDescriptor.deadline(record);
    }

    /** A left row's pairs are its key's right rows, of which the nearest in range is chosen (docs/SEMANTICS.md 11, 13). */
    @Override
    public boolean explainable()
    {
        return true;
    }

    /** A left row waits until it is final (the watermark passes its due time); eager mode's first line is a correction away. */
    @Override
    public boolean joinsOnArrival()
    {
        return false;
    }

    /**
     * A left row against a stored right row: out of the direction or tolerance, {@code OUTSIDE_INTERVAL}; the condition
     * false, {@code CONDITION_FAILED}; another candidate nearer (or of equal ts and later), {@code NOT_SELECTED}. A right
     * row against a waiting left row: as if it arrived now, it wins when it is in range, holds the condition and beats
     * the left row's best candidate so far.
     */
    @Override
    public String explainPair(
        final JoinPredicate predicate, final Side side, final RowView row, final long ts, final long other,
        final StringBuilder detail)
    {
        final long otherTs = RowDescriptor.ts(other);
        final long lts = side == Side.LEFT ? ts : otherTs;
        final long rts = side == Side.LEFT ? otherTs : ts;
        final String directionName = direction.name().toLowerCase(Locale.ROOT);
        if (!range.inRange(lts, rts))
        {
            detail.append("the right row's ts ").append(rts).append(" is not within the ").append(directionName)
                .append(" direction and tolerance of the left row's ts ").append(lts);
            return "OUTSIDE_INTERVAL";
        }
        final String code = KeyInspector.conditionCode(predicate, side, row, other, detail);
        if (!"MATCHED".equals(code))
        {
            return code;
        }
        final long bucket = state.store.bucketOf(other);
        final int keyLength = RowDescriptor.keyLength(other);
        detail.setLength(0);
        if (side == Side.LEFT)
        {
            final long best = search.bestFor(bucket, predicate.key, keyLength, row, ts, 0);
            if (best != other)
            {
                detail.append("the right row of ts ").append(best == 0 ? "none" : Long.toString(RowDescriptor.ts(best)))
                    .append(" is chosen instead (nearer in the ").append(directionName)
                    .append(" direction, or of equal ts and later)");
                return "NOT_SELECTED";
            }
            detail.append("the nearest right row in range: they would join");
            return "MATCHED";
        }
        StoredRows.wrap(other, storedLeftBuffer, storedLeft);
        final long best = search.bestFor(bucket, predicate.key, keyLength, storedLeft, lts, 0);
        if (best != 0 && !range.beats(lts, rts, RowDescriptor.ts(best)))
        {
            detail.append("the left row's candidate of ts ").append(RowDescriptor.ts(best)).append(" is nearer in the ")
                .append(directionName).append(" direction");
            return "NOT_SELECTED";
        }
        detail.append("it would be the left row's nearest right row in range");
        return "MATCHED";
    }
}
