package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.OutputMode;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.row.BufferCompare;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.state.UniqueKeyIndex;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

import static io.junction.join.JoinPredicate.UNMATCHABLE;

/**
 * The {@link JoinRecordStateView} of a side with a unique key beyond its join key (Flink's
 * {@code InputSideHasUniqueKey}): the side's {@link UniqueKeyIndex} (owned and persisted by the state) finds the
 * row of a unique key in O(1), for retractions and duplicate checks.
 * <pre>
 * every row:   unique key too long -&gt; KEY_TOO_LONG; a null field -&gt; UNIQUE_KEY_VIOLATION
 * accumulate:  a live, matchable row of the same join key and unique key -&gt; UNIQUE_KEY_VIOLATION;
 *              with upsert output: any live row of the unique key -&gt; UNIQUE_KEY_VIOLATION;
 *              else stored, and its record put in the index
 * retract:     the stored copy (equal row bytes, so equal keys) found through the index, else
 *              RETRACTION_NOT_IN_STATE; its user conditions evaluated, its entry removed, the row retracted
 * </pre>
 * Without upsert output only a live row of the same join key counts as a duplicate, as in the other shape: rows
 * are routed by join key, so that is what every partitioning sees alike. With upsert output the unique key keys
 * the result, and two live rows of one would leave one result key with two rows, the upsert table keeping only
 * the later: any live row of the unique key counts, also one of another join key, a null join key or one failing
 * its side's filter (docs/SEMANTICS.md 4.4, 4.6).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class InputSideHasUniqueKey implements JoinRecordStateView
{
    private final RegularRowChanges changes;
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    /** The side's unique-key fields. */
    private final KeyExtractor fields;
    final UniqueKeyIndex index;
    /** Upsert output: any live row of a unique key refuses an insert of it, not only a matchable one of its join key. */
    private final boolean anyLiveRow;
    /** Unique-key bytes of the row being processed, and those of a stored row being compared with them. */
    private final UnsafeBuffer uniqueKey;
    private final UnsafeBuffer storedUniqueKey;
    private final RowView storedRow = new RowView();
    private final UnsafeBuffer storedRowBuffer = new UnsafeBuffer(0, 0);
    /** The lengths of the unique key in {@link #uniqueKey} and of the join key in the predicate's key, for {@link #duplicate}. */
    private int uniqueKeyLength;
    private int joinKeyLength;
    /** The row whose stored copy {@link #equalRow} looks for. */
    private RowView retracted;
    /** Finds a live row that can match with the join key in the predicate's key and the unique key in {@link #uniqueKey}. */
    private final UniqueKeyIndex.Matcher duplicate = this::isDuplicate;
    /** Finds the stored copy of {@link #retracted}. */
    private final UniqueKeyIndex.Matcher equalRow = this::isRetracted;

    /**
     * @param parts   the join's parts.
     * @param side    the view's side.
     * @param changes what a row changes.
     * @param index   the side's unique-key index, opened by the state.
     */
    InputSideHasUniqueKey(
        final OperatorParts parts, final Side side, final RegularRowChanges changes, final UniqueKeyIndex index)
    {
        this.changes = changes;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.fields = parts.compiled.uniqueKey(side);
        this.index = index;
        this.anyLiveRow = parts.spec.output() == OutputMode.UPSERT;
        this.uniqueKey = new UnsafeBuffer(ByteBuffer.allocateDirect(parts.config.maxKeyLength()));
        this.storedUniqueKey = new UnsafeBuffer(ByteBuffer.allocateDirect(parts.config.maxKeyLength()));
    }

    @Override
    public void accumulate(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash)
    {
        if (!extract(side, kind, row, ts, step))
        {
            return;
        }
        final long uniqueKeyHash = predicate.hash(uniqueKey, uniqueKeyLength);
        if (anyLiveRow || keyLength != UNMATCHABLE)
        {
            joinKeyLength = keyLength;
            if (index.find(uniqueKeyHash, duplicate) != 0)
            {
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.UNIQUE_KEY_VIOLATION);
                return;
            }
        }
        final long record = changes.accumulate(side, kind, row, ts, step, keyLength, hash, 0);
        if (record != 0)
        {
            index.put(uniqueKeyHash, record);
        }
    }

    @Override
    public void retract(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash)
    {
        if (!extract(side, kind, row, ts, step))
        {
            return;
        }
        final long uniqueKeyHash = predicate.hash(uniqueKey, uniqueKeyLength);
        // Equal row bytes mean an equal unique key and join key: the record's bucket is the key's (or the
        // unmatchable one), found without the key index.
        retracted = row;
        final long live = index.find(uniqueKeyHash, equalRow);
        if (live == 0)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
            return;
        }
        final long bucket = state.store.bucketOf(live);
        if (changes.conditionsHold(side, kind, row, ts, step, keyLength, bucket))
        {
            index.remove(uniqueKeyHash, live);
            changes.retract(side, kind, row, ts, step, keyLength, bucket, live);
        }
    }

    @Override
    public void forget(final long record)
    {
        StoredRows.wrap(record, storedRowBuffer, storedRow);
        final int length = fields.extract(storedRow, storedUniqueKey, 0, storedUniqueKey.capacity());
        index.remove(predicate.hash(storedUniqueKey, length), record);
    }

    /** @return false, with the row dead-lettered, unless its unique key is now in {@link #uniqueKey}. */
    private boolean extract(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        final int length = fields.extract(row, uniqueKey, 0, uniqueKey.capacity());
        if (length == KeyExtractor.KEY_TOO_LONG)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.KEY_TOO_LONG);
            return false;
        }
        if (length == KeyExtractor.NULL_KEY)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.UNIQUE_KEY_VIOLATION);
            return false;
        }
        uniqueKeyLength = length;
        return true;
    }

    /** {@link #duplicate}: a row that can match, of the join key in the predicate's key and the unique key in {@link #uniqueKey}? */
    private boolean isDuplicate(final long record)
    {
        if (!anyLiveRow && (state.store.bucketOf(record) == state.unmatchableBucket ||
            !state.store.keyEquals(record, predicate.key, 0, joinKeyLength)))
        {
            return false;
        }
        // Same join key (or any, with upsert output); the unique key's hash may still be another unique key's.
        StoredRows.wrap(record, storedRowBuffer, storedRow);
        final int length = fields.extract(storedRow, storedUniqueKey, 0, storedUniqueKey.capacity());
        return length == uniqueKeyLength && BufferCompare.equals(storedUniqueKey, 0, uniqueKey, 0, length);
    }

    /** {@link #equalRow}: the stored copy of {@link #retracted}? */
    private boolean isRetracted(final long record)
    {
        return state.store.rowEquals(record, retracted.buffer(), retracted.offset(), retracted.length());
    }
}
