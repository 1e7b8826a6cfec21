package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.TimeMath.saturatedSubtract;

/**
 * The event-time temporal join of an append-only left stream with a versioned table (docs/SEMANTICS.md
 * section 7), as Flink SQL's {@code FOR SYSTEM_TIME AS OF l.ts} ({@code TemporalRowTimeJoinOperator}) and
 * Kafka Streams' stream-table join over a versioned store. The right input is the table's changelog, keyed
 * by its primary key, which is the join key.
 * <pre>
 * right row r of key K at step s (never late: it counts for every left row not emitted yet):
 *   -U                         -&gt; ignored (its +U carries the change)
 *   null key                   -&gt; ignored (no table row has it)
 *   r.ts &lt;= watermark and K has a change c with r.ts &lt; c.ts &lt;= watermark
 *                              -&gt; superseded on arrival: every left row still to come has ts &gt; watermark,
 *                                 so c (or a later change) comes between; counted as expired
 *   +I / +U                    -&gt; K's version from r.ts on (a version already at r.ts is replaced)
 *   -D                         -&gt; a tombstone: no version of K from r.ts on, until the next +I / +U
 *   r.ts &lt;= watermark          -&gt; the change of K before r is freed (r supersedes it for every left row to come)
 * left row l at step s:
 *   op other than +I           -&gt; dead-letter NOT_APPEND_ONLY
 *   l.ts &lt; watermark          -&gt; dead-letter LATE
 *   null key or failed filter  -&gt; +(l, null) at once for left, nothing for inner
 *   l.ts == watermark          -&gt; joined now (the watermark has reached it)
 *   else                       -&gt; waits in the timer wheel
 * join watermark w at step s: every waiting l with l.ts &lt;= w joins the version of its key valid at l.ts
 *   (the greatest version ts &lt;= l.ts; none when that is a tombstone) and emits, at s, +(l, version) when the
 *   pair passes the right filter and the condition, else +(l, null) for left; then the versions no left
 *   row can select any more are freed.
 * end of input: every waiting left row is emitted.
 * </pre>
 * Versions of a key are kept in its bucket's right group in arrival order and picked by scanning it (a key
 * holds few: one change at or below the watermark plus those above it; {@link TemporalVersions}). A change, a tombstone too, leaves
 * state once the watermark reaches the next change of its key (the next one takes over for every left row
 * still to come). The change at or below the watermark is kept even when it is a tombstone: a right row that
 * arrives below the watermark and older than it is superseded by it, whatever was freed before it. Each
 * change is linked into a second timer wheel at that deadline,
 * rescheduled when an out-of-order version arrives between it and its successor; versions are freed after
 * the left rows of the same watermark have picked theirs, so that no left row loses the version it needs.
 *
 * <p>With a {@link StateConfig#stateDirectory()} the waiting rows and the versions live in its files, and
 * both timer wheels, the watermarks and the counters are carried across a close and reopen.
 *
 * <p>The kind's {@link JoinAlgorithm}: its {@link OperatorDriver} owns the lifecycle (counters, watermarks,
 * the state, persist and close) and calls this for the rows, the watermark and the end of input.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class TemporalJoin implements JoinAlgorithm
{
    /** The kind's name in the durable state's layout. */
    static final String LAYOUT = "temporal";
    /** Bits of a version's count field: a {@code -D} (no version from its ts on). */
    static final int TOMBSTONE = 1;
    /** The version fails the right pre-filter: it is selected like any other, and matches nothing. */
    static final int FILTERED = 2;
    // RecordTimers.SCHEDULED (4) is the third bit: the version is in versionTimers.

    private final OperatorParts parts;
    private final JoinCounters counters;
    private final WatermarkTracker watermarks;
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    /** Versions by the watermark at which they can no longer be selected; waiting left rows are in the state's wheel. */
    private final RecordTimers versionTimers;
    private final RowView storedLeft = new RowView();
    private final UnsafeBuffer storedLeftBuffer = new UnsafeBuffer(0, 0);
    private final RowView version = new RowView();
    private final UnsafeBuffer versionBuffer = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer storedKey = new UnsafeBuffer(0, 0);
    private final boolean padLeft;
    private final TimerWheel.ExpiryHandler fire = this::fireLeft;
    private final TimerWheel.ExpiryHandler release = this::releaseVersion;
    /** Each key's versions in its bucket's right group: a left row's pick, a right change's neighbours. */
    private final TemporalVersions versions;
    private long fireStep;

    /**
     * The temporal join's algorithm over its driver's parts.
     *
     * @param parts a temporal join's parts, inner or left.
     */
    TemporalJoin(final OperatorParts parts)
    {
        this.parts = parts;
        this.counters = parts.counters;
        this.watermarks = parts.watermarks;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.padLeft = parts.spec.type() == JoinType.LEFT;
        // Versions link to each other by offsets from the state's base, as the state's own wheel does.
        this.versionTimers = new RecordTimers(parts.config, state.base);
        this.versions = new TemporalVersions(state.store, counters);
    }

    /**
     * The algorithm's heap-held state in durable mode: the version wheel with it (the waiting left rows'
     * wheel is the state's own). A right change's neighbours ({@link TemporalVersions}) are found afresh by
     * every event that reads them.
     */
    @Override
    public void save(final ByteBuffer out)
    {
        out.putLong(fireStep);
        versionTimers.save(out);
    }

    @Override
    public void load(final ByteBuffer in)
    {
        fireStep = in.getLong();
        versionTimers.load(in);
    }

    @Override
    public long pendingTimers()
    {
        return versionTimers.pending();
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (side == Side.LEFT)
        {
            onLeft(kind, row, ts, step);
        }
        else
        {
            onRight(kind, row, ts, step);
        }
    }

    private void onLeft(final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (kind != ChangeKind.INSERT)
        {
            emit.deadLetter(Side.LEFT, kind, row, ts, step, DeadLetterReason.NOT_APPEND_ONLY);
            return;
        }
        final long watermark = watermarks.current();
        if (ts < watermark)
        {
            emit.deadLetter(Side.LEFT, kind, row, ts, step, DeadLetterReason.LATE);
            return;
        }
        final int keyLength = parts.keyOf(Side.LEFT, kind, row, ts, step);
        if (keyLength == OperatorParts.REFUSED)
        {
            return;
        }
        if (keyLength == UNMATCHABLE)
        {
            if (padLeft)
            {
                emit.padded(ChangeKind.INSERT, Side.LEFT, row, ts, step);
            }
            return;
        }
        if (watermark != Long.MIN_VALUE && ts <= watermark)
        {
            // The watermark has already reached the row: it takes the version valid now, at its own step.
            final long bucket = state.index.find(predicate.keyHash(keyLength));
            if (bucket != 0)
            {
                state.countKey(bucket, Side.LEFT, predicate.key, keyLength, 0);
            }
            emitFor(row, ts, versions.versionAt(bucket, predicate.key, keyLength, ts), step);
            return;
        }
        // Everything the row needs is taken before it has any effect: a row that does not fit is rejected whole.
        final long record = parts.admit(Side.LEFT, kind, row, ts, step, keyLength, predicate.keyHash(keyLength), 0);
        if (record == PartitionState.REFUSED)
        {
            return;
        }
        // Due when the join watermark reaches ts: the wheel fires deadlines strictly below the watermark.
        state.wheel.schedule(record, saturatedSubtract(ts, 1));
    }

    private void onRight(final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (kind == ChangeKind.UPDATE_BEFORE)
        {
            return;
        }
        // A right row is never late (SEMANTICS 7): below the watermark it still changes the table from its ts on
        // for every left row not emitted yet, which all have a ts above the watermark.
        final long watermark = watermarks.current();
        if (ts <= watermark)
        {
            // At or below the watermark a change takes part in what the watermark's own work selects and frees (a
            // waiting left row it reached picks the version valid at its ts; superseded versions leave): that work
            // is finished first, as without slicing (expireSlice). Above it, the change is after every such row.
            parts.finishWatermarkWork();
        }
        final boolean tombstone = kind == ChangeKind.DELETE;
        // A version that fails the right filter is still the key's version (it ends the one before it); it
        // simply matches nothing. The filter is read once, here; a tombstone has none to pass.
        final int keyLength = predicate.extractVersionKey(row, tombstone);
        final int flags = (tombstone ? TOMBSTONE : 0) | (predicate.versionFiltered ? FILTERED : 0);
        if (parts.refuseKey(keyLength, Side.RIGHT, kind, row, ts, step) == OperatorParts.REFUSED)
        {
            return;
        }
        if (keyLength == UNMATCHABLE)
        {
            return;
        }
        final long hash = predicate.keyHash(keyLength);
        final long existing = state.index.find(hash);
        versions.neighbours(existing, predicate.key, keyLength, ts);
        final long same = versions.same();
        final long previous = versions.previous();
        final long next = versions.next();
        // At or below the watermark the key keeps one change there (its newest, a tombstone too); every left
        // row still to come has a ts above the watermark.
        final boolean atWatermark = watermark != Long.MIN_VALUE && ts <= watermark;
        if (atWatermark && next != 0 && RowDescriptor.ts(next) <= watermark)
        {
            // Older than the key's change at the watermark, which comes between it and every left row still to
            // come: superseded on arrival (as are the versions already freed before that change), counted as expired.
            counters.expiredRows++;
            return;
        }
        // Appended before anything is removed: a removal may shrink the group, an append after it could need memory.
        final long record = state.admit(Side.RIGHT, existing, hash, predicate.key, keyLength, row, ts);
        if (record == PartitionState.REFUSED)
        {
            if (parts.finishWatermarkWork())
            {
                // Rows a watermark closed held room until their slice; the neighbours found may have left with them:
                // the change is taken again from the start, with nothing pending.
                onRight(kind, row, ts, step);
                return;
            }
            emit.deadLetter(Side.RIGHT, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        RowDescriptor.count(state.base, record, flags);
        if (same != 0)
        {
            // Two changes of one key at one ts: the later one is the version (Flink keeps one row per ts too).
            free(same);
        }
        // A change (a tombstone too) stays until the watermark reaches the next change of its key.
        if (next != 0)
        {
            versionTimers.schedule(record, saturatedSubtract(RowDescriptor.ts(next), 1));
        }
        if (previous != 0)
        {
            if (atWatermark)
            {
                // The version at the watermark has just superseded it.
                free(previous);
            }
            else
            {
                // The change before now ends at ts.
                versionTimers.schedule(previous, saturatedSubtract(ts, 1));
            }
        }
    }

    /** Emits a left row with the version it joins: the pair when it matches, else the padded row for a left join. */
    private void emitFor(final RowView left, final long ts, final long selected, final long step)
    {
        if (selected != 0 && (RowDescriptor.count(selected) & (TOMBSTONE | FILTERED)) == 0)
        {
            StoredRows.wrap(selected, versionBuffer, version);
            if (predicate.conditionHolds(left, version))
            {
                emit.pair(ChangeKind.INSERT, Side.LEFT, left, version, ts, step);
                return;
            }
        }
        if (padLeft)
        {
            emit.padded(ChangeKind.INSERT, Side.LEFT, left, ts, step);
        }
    }

    /** A waiting left row whose ts the watermark reached: joins its version, then leaves state. */
    private void fireLeft(final long record)
    {
        final long ts = RowDescriptor.ts(record);
        final long bucket = state.store.bucketOf(record);
        final int keyLength = RowDescriptor.keyLength(record);
        storedKey.wrap(RowDescriptor.keyAddress(record), keyLength);
        StoredRows.wrap(record, storedLeftBuffer, storedLeft);
        emitFor(storedLeft, ts, versions.versionAt(bucket, storedKey, keyLength, ts), fireStep);
        state.retire(record);
    }

    /** A version that no left row can select any more (the watermark reached its successor, or it is a tombstone). */
    private void releaseVersion(final long record)
    {
        versionTimers.fired(record);
        state.expire(record);
    }

    /** Frees a version now, out of its wheel first; counted as expired. Its bucket is the caller's. */
    private void free(final long record)
    {
        versionTimers.cancel(record);
        state.expireKeepingBucket(record);
    }

    /**
     * The join's watermark moved forward: the left rows it reached join their versions first, then the
     * versions it made unselectable are freed (in that order, so that each left row still finds its own).
     */
    @Override
    public void onWatermark(final long watermark, final long step)
    {
        fireStep = step;
        state.wheel.advance(watermark, fire);
        versionTimers.advance(watermark, release);
    }

    /**
     * At most {@code budget} waiting left rows fire, then at most {@code budget} versions are freed, per call; the
     * freeing starts once every left row the watermark reached has fired (so none loses its version). Exact with
     * rows in between: a left row that arrives is not late ({@code l.ts >= w}) and picks the greatest version at or
     * below its ts, which is never one a due release would free (that one has a successor at or below
     * {@code w}); a right change above the watermark comes after every due left row's ts, and its neighbours are
     * not due (the key's newest change at or below {@code w} is kept); a change at or below the watermark finishes
     * the pending work first, and so does a refused admission.
     */
    @Override
    public boolean expireSlice(final long watermark, final long step, final int budget)
    {
        fireStep = step;
        return state.wheel.advance(watermark, fire, budget) && versionTimers.advance(watermark, release, budget);
    }

    /** Every waiting left row joins the version valid at its ts; then every version is freed. */
    @Override
    public void onEndOfInput(final long step)
    {
        fireStep = step;
        state.wheel.expireAll(fire);
        versionTimers.advance(Long.MAX_VALUE, release);
    }

    /** Waiting left rows and the right versions are its bucket's records (docs/SEMANTICS.md 14). */
    @Override
    public boolean inspectable()
    {
        return true;
    }

    /** Its count fields hold a version's flags (tombstone, filtered, scheduled), not matches. */
    @Override
    public int matches(final long record)
    {
        return -1;
    }

    /** A version leaves when the watermark reaches its key's next change; a left row joins when it passes its ts. */
    @Override
    public long due(final long record)
    {
        return PartitionState.sideOf(record) == Side.RIGHT ? versionTimers.deadline(record) : RowDescriptor.deadline(record);
    }

    /** A left row's pairs are its key's versions, one of which is in force at its ts (docs/SEMANTICS.md 13, 7). */
    @Override
    public boolean explainable()
    {
        return true;
    }

    /**
     * A left row against a stored version: the version in force at its ts ({@link TemporalVersions#versionAt}) is the
     * candidate (a tombstone: none is in force; a filtered version matches nothing), every other is {@code NOT_SELECTED}.
     * A right row against a waiting left row: it would be in force at the left row's ts unless it is later than that
     * ts or a stored version between them is.
     */
    @Override
    public String explainPair(
        final JoinPredicate predicate, final Side side, final RowView row, final long ts, final long other,
        final StringBuilder detail)
    {
        final long bucket = state.store.bucketOf(other);
        final int keyLength = RowDescriptor.keyLength(other);
        final long otherTs = RowDescriptor.ts(other);
        if (side == Side.RIGHT)
        {
            if (ts > otherTs)
            {
                detail.append("this version is from ts ").append(ts).append(", after the left row's ts ").append(otherTs)
                    .append(": it is not in force then");
                return "NOT_SELECTED";
            }
            final long inForce = versions.versionAt(bucket, predicate.key, keyLength, otherTs);
            if (inForce != 0 && RowDescriptor.ts(inForce) > ts)
            {
                detail.append("the version of ts ").append(RowDescriptor.ts(inForce)).append(", later than this one and not after ")
                    .append("the left row's ts ").append(otherTs).append(", is in force then");
                return "NOT_SELECTED";
            }
            return KeyInspector.conditionCode(predicate, side, row, other, detail);
        }
        final long inForce = versions.versionAt(bucket, predicate.key, keyLength, ts);
        if (other != inForce)
        {
            detail.append(otherTs > ts ? "this version is from ts " + otherTs + ", after the left row's ts " + ts
                : "the version valid at ts " + ts + " is " + (inForce == 0 ? "none" : "the one of ts " + RowDescriptor.ts(inForce)));
            return "NOT_SELECTED";
        }
        final int flags = RowDescriptor.count(other);
        if ((flags & TOMBSTONE) != 0)
        {
            detail.append("a -D at ts ").append(otherTs).append(" ended the key's version: none is in force at ts ").append(ts);
            return "NOT_SELECTED";
        }
        if ((flags & FILTERED) != 0)
        {
            detail.append("the version in force fails the right filter, so it matches nothing");
            return "FILTER_FAILED";
        }
        return KeyInspector.conditionCode(predicate, side, row, other, detail);
    }

    /** A left row waits until the watermark reaches its ts, then joins the version in force. */
    @Override
    public boolean joinsOnArrival()
    {
        return false;
    }
}
