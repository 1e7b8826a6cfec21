package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.RowDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

import static io.junction.join.JoinPredicate.UNMATCHABLE;

/**
 * The processing-time lookup join (docs/SEMANTICS.md section 7), as Flink SQL's lookup join
 * ({@code FOR SYSTEM_TIME AS OF l.proc_time}) over a table kept in state: the right input is the table's
 * changelog keyed by its primary key (the join key), and each left row joins its key's current version, the
 * latest right row received, at its own step.
 * <pre>
 * right row r of key K:  +I / +U -&gt; K's current version (replacing the one before); -D -&gt; K has none;
 *                        -U, null key -&gt; ignored. Emits nothing.
 * left row l at step s:  op other than +I -&gt; dead-letter NOT_APPEND_ONLY;
 *                        +(l, current version of K) when the pair passes the filters and the condition,
 *                        else +(l, null) for left, nothing for inner; at s, with l's ts.
 * </pre>
 * Time plays no part: watermarks and the end of input emit nothing and nothing is late. State holds one
 * version per key.
 *
 * <p>With a {@link StateConfig#stateDirectory()} the versions live in its files, and the watermarks and
 * the counters are carried across a close and reopen.
 *
 * <p>The kind's {@link JoinAlgorithm}: its {@link OperatorDriver} owns the lifecycle (counters, watermarks,
 * the state, persist and close) and calls this for the rows; it keeps no field of its own to persist.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class LookupJoin implements JoinAlgorithm
{
    /** The kind's name in the durable state's layout. */
    static final String LAYOUT = "lookup";

    private final OperatorParts parts;
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final RowView version = new RowView();
    private final UnsafeBuffer versionBuffer = new UnsafeBuffer(0, 0);
    private final boolean padLeft;

    /**
     * The lookup join's algorithm over its driver's parts.
     *
     * @param parts a lookup join's parts, inner or left.
     */
    LookupJoin(final OperatorParts parts)
    {
        this.parts = parts;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.padLeft = parts.spec.type() == JoinType.LEFT;
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
        final int keyLength = parts.keyOf(Side.LEFT, kind, row, ts, step);
        if (keyLength == OperatorParts.REFUSED)
        {
            return;
        }
        if (keyLength != UNMATCHABLE)
        {
            final long bucket = state.index.find(predicate.keyHash(keyLength));
            if (bucket != 0)
            {
                state.countKey(bucket, Side.LEFT, predicate.key, keyLength, 0);
                final long current = state.store.findKey(bucket, Side.RIGHT.ordinal(), predicate.key, 0, keyLength);
                if (current != 0 && RowDescriptor.count(current) == 0)
                {
                    StoredRows.wrap(current, versionBuffer, version);
                    if (predicate.conditionHolds(row, version))
                    {
                        emit.pair(ChangeKind.INSERT, Side.LEFT, row, version, ts, step);
                        return;
                    }
                }
            }
        }
        if (padLeft)
        {
            emit.padded(ChangeKind.INSERT, Side.LEFT, row, ts, step);
        }
    }

    private void onRight(final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        if (kind == ChangeKind.UPDATE_BEFORE)
        {
            return;
        }
        final boolean delete = kind == ChangeKind.DELETE;
        // A version that fails the right filter still replaces the one before it; it matches nothing
        // (count 1). The filter is read once, here; a deletion has none to pass.
        final int keyLength = predicate.extractVersionKey(row, delete);
        final int filtered = predicate.versionFiltered ? 1 : 0;
        if (parts.refuseKey(keyLength, Side.RIGHT, kind, row, ts, step) == OperatorParts.REFUSED || keyLength == UNMATCHABLE)
        {
            return;
        }
        final long hash = predicate.keyHash(keyLength);
        final long existing = state.index.find(hash);
        final long current = existing == 0 ? 0 : state.store.findKey(existing, Side.RIGHT.ordinal(), predicate.key, 0, keyLength);
        if (delete)
        {
            if (current != 0)
            {
                state.retire(current);
            }
            return;
        }
        // Appended before the old version is removed: a removal may shrink the group, an append after it could need memory.
        final long record = parts.admit(Side.RIGHT, kind, row, ts, step, keyLength, hash, existing);
        if (record == PartitionState.REFUSED)
        {
            return;
        }
        RowDescriptor.count(state.base, record, filtered);
        if (current != 0)
        {
            state.store.remove(current);
        }
    }

    /** Time plays no part: the join watermark moves nothing. */
    @Override
    public void onWatermark(final long watermark, final long step)
    {
    }

    /** Time plays no part: the end of input emits nothing. */
    @Override
    public void onEndOfInput(final long step)
    {
    }

    /** The key's current row is its bucket's right record (docs/SEMANTICS.md 14). */
    @Override
    public boolean inspectable()
    {
        return true;
    }

    /** Its count fields hold flags (the filtered bit), not matches. */
    @Override
    public int matches(final long record)
    {
        return -1;
    }

    /** A left row's one candidate is its key's current row (docs/SEMANTICS.md 13): the lookup at its arrival. */
    @Override
    public boolean explainable()
    {
        return true;
    }

    /** The current row fails the right filter ({@code count} 1: it still replaced the one before it), or the condition decides. */
    @Override
    public String explainPair(
        final JoinPredicate predicate, final Side side, final RowView row, final long ts, final long other,
        final StringBuilder detail)
    {
        if (RowDescriptor.count(other) != 0)
        {
            detail.append("the key's current row fails the right filter, so it matches nothing");
            return "FILTER_FAILED";
        }
        return KeyInspector.conditionCode(predicate, side, row, other, detail);
    }
}
