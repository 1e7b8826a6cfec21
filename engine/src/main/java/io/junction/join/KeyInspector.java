package io.junction.join;

import io.junction.api.JoinSpec;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.metrics.KeyState;
import java.util.ArrayList;
import java.util.List;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Lists what a partition's state holds of one join key (docs/SEMANTICS.md 14): the records of both sides
 * stored in the key's bucket whose key bytes are the key's (a bucket holds every key of its hash), each with its
 * time, its match count and the deadline of its timer. For the kinds that keep their rows in buckets of the
 * join key's hash ({@link JoinAlgorithm#inspectable()}). Reads only; allocates the answer.
 *
 * <p>Not thread safe: runs on the partition thread, between two events.
 */
final class KeyInspector
{
    private final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);
    private final RowView stored = new RowView();

    /**
     * @param algorithm the kind, which says each record's due time.
     * @param state     the partition's state.
     * @param predicate the join's key extraction and hashing.
     * @param spec      the join (the sides' schemas to decode rows with).
     * @param side      the side whose row names the key.
     * @param row       a row of that side holding the key fields.
     * @param cap       the most rows listed per side.
     * @param partition the partition, to tag each row with.
     * @return the key's stored rows.
     */
    KeyState list(
        final JoinAlgorithm algorithm, final PartitionState state, final JoinPredicate predicate, final JoinSpec spec, final Side side, final RowView row,
        final int cap, final int partition)
    {
        final List<KeyState.StoredRow> left = new ArrayList<>();
        final List<KeyState.StoredRow> right = new ArrayList<>();
        final int keyLength = predicate.extractKeyIgnoringFilter(side, row, predicate.key.capacity());
        if (keyLength < 0)
        {
            // A null (or over-long) key matches nothing and is stored under no key.
            return KeyState.of(left, right, 0, 0);
        }
        final long bucket = state.index.find(predicate.hash(predicate.key, keyLength));
        if (bucket == 0)
        {
            return KeyState.of(left, right, 0, 0);
        }
        final long moreLeft = side(algorithm, state, predicate, spec, Side.LEFT, bucket, keyLength, cap, partition, left);
        final long moreRight = side(algorithm, state, predicate, spec, Side.RIGHT, bucket, keyLength, cap, partition, right);
        return KeyState.of(left, right, moreLeft, moreRight);
    }

    private long side(
        final JoinAlgorithm algorithm, final PartitionState state, final JoinPredicate predicate, final JoinSpec spec, final Side side, final long bucket,
        final int keyLength, final int cap, final int partition, final List<KeyState.StoredRow> into)
    {
        long more = 0;
        final long rows = state.store.rows(bucket, side.ordinal());
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            final long record = state.store.record(rows, i);
            if (record == 0 || !state.store.keyEquals(record, predicate.key, 0, keyLength))
            {
                continue;
            }
            if (into.size() >= cap)
            {
                more++;
                continue;
            }
            StoredRows.wrap(record, storedBuffer, stored);
            final long deadline = algorithm.due(record);
            into.add(new KeyState.StoredRow(partition, side, RowCodec.decode(spec.schema(side), stored), RowDescriptor.ts(record),
                RowDescriptor.count(record), deadline == Long.MAX_VALUE ? KeyState.NEVER_DUE : deadline));
        }
        return more;
    }
}
