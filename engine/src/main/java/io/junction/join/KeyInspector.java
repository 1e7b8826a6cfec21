package io.junction.join;

import io.junction.api.JoinSpec;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.metrics.KeyState;
import io.junction.metrics.RowExplanation;
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
                algorithm.matches(record), deadline == Long.MAX_VALUE ? KeyState.NEVER_DUE : deadline));
        }
        return more;
    }

    /**
     * Explains a row against what the state holds of its key (docs/SEMANTICS.md 14): each stored row of the other
     * side under the key with the code its pair would get now ({@link JoinAlgorithm#explainPair}), and the row's
     * fate so far: {@code NULL_KEY}; {@code MATCHED} or {@code PENDING} when an equal row of its side is stored
     * (it joined, or it waits); else, as if it came now, {@code MATCHED}, {@code NO_MATCH} or {@code NO_ROW_WITH_KEY}.
     *
     * @param algorithm the kind, which decides each pair.
     * @param state     the partition's state.
     * @param predicate the join's key extraction, filters and condition.
     * @param spec      the join.
     * @param side      the side of {@code row}.
     * @param row       the row.
     * @param ts        its event time.
     * @param cap       the most pairs listed.
     * @param partition the partition, to tag each pair with.
     * @return the explanation.
     */
    RowExplanation explain(
        final JoinAlgorithm algorithm, final PartitionState state, final JoinPredicate predicate, final JoinSpec spec,
        final Side side, final RowView row, final long ts, final int cap, final int partition)
    {
        final List<RowExplanation.Pair> pairs = new ArrayList<>();
        final int keyLength = predicate.extractKeyIgnoringFilter(side, row, predicate.key.capacity());
        if (keyLength < 0)
        {
            return RowExplanation.of(pairs, 0, "NULL_KEY", keyLength == JoinPredicate.TOO_LONG
                ? "its key is longer than a key may be" : "a key field of the " + name(side) + " row is null or absent");
        }
        final long bucket = state.index.find(predicate.hash(predicate.key, keyLength));
        final Side other = side.other();
        final boolean passes = predicate.passesFilter(side, row);
        final StringBuilder detail = new StringBuilder(96);
        long more = 0;
        int candidates = 0;
        int matched = 0;
        if (bucket != 0)
        {
            final long rows = state.store.rows(bucket, other.ordinal());
            for (int i = 0, slots = RowGroup.slots(rows); i < slots; i++)
            {
                final long record = state.store.record(rows, i);
                if (record == 0 || !state.store.keyEquals(record, predicate.key, 0, keyLength))
                {
                    continue;
                }
                candidates++;
                detail.setLength(0);
                final String code;
                if (!passes)
                {
                    detail.append("this ").append(name(side)).append(" row fails the ").append(name(side))
                        .append(" filter, so it matches nothing");
                    code = "FILTER_FAILED";
                }
                else
                {
                    code = algorithm.explainPair(predicate, side, row, ts, record, detail);
                }
                matched += "MATCHED".equals(code) ? 1 : 0;
                if (pairs.size() < cap)
                {
                    StoredRows.wrap(record, storedBuffer, stored);
                    pairs.add(new RowExplanation.Pair(partition, other, RowCodec.decode(spec.schema(other), stored),
                        RowDescriptor.ts(record), code, detail.toString()));
                }
                else
                {
                    more++;
                }
            }
        }
        final long own = bucket == 0 ? 0
            : state.store.findEqual(bucket, side.ordinal(), predicate.key, 0, keyLength, row.buffer(), row.offset(), row.length());
        return RowExplanation.of(pairs, more, fate(algorithm, side, own, passes, candidates, matched),
            fateDetail(algorithm, side, own, passes, candidates, matched));
    }

    private static String fate(
        final JoinAlgorithm algorithm, final Side side, final long own, final boolean passes, final int candidates,
        final int matched)
    {
        if (own != 0)
        {
            return algorithm.joinsOnArrival() && (algorithm.matches(own) > 0 || matched > 0) ? "MATCHED" : "PENDING";
        }
        return matched > 0 ? "MATCHED" : candidates > 0 || !passes ? "NO_MATCH" : "NO_ROW_WITH_KEY";
    }

    private static String fateDetail(
        final JoinAlgorithm algorithm, final Side side, final long own, final boolean passes, final int candidates,
        final int matched)
    {
        final String others = "the " + name(side.other()) + " rows of its key";
        if (own != 0)
        {
            if (!algorithm.joinsOnArrival())
            {
                return "it is stored and waits until the watermark passes " + algorithm.due(own) + "; then it joins " +
                    (matched > 0 ? "the row its pairs call MATCHED" : "nothing of what is stored now (the pairs say why)");
            }
            if (algorithm.matches(own) > 0 || matched > 0)
            {
                return "it is stored and has joined " + others + " (" + Math.max(matched, algorithm.matches(own)) + ")";
            }
            final long due = algorithm.due(own);
            return "it is stored and has joined nothing yet: it waits for a " + name(side.other()) + " row of its key" +
                (due == Long.MAX_VALUE ? " (it stays until retracted)" : " until the watermark passes " + due);
        }
        final String notStored = "an equal row is not stored (never sent, retracted, expired or a dead letter); if it came now, ";
        if (!passes)
        {
            return notStored + "it would fail the " + name(side) + " filter and join nothing";
        }
        if (matched > 0)
        {
            return notStored + "it would join " + matched + " of " + others;
        }
        return candidates > 0 ? notStored + "it would join none of " + others + " (the pairs say why)"
            : notStored + "no " + name(side.other()) + " row of its key is stored";
    }

    private static String name(final Side side)
    {
        return side == Side.LEFT ? "left" : "right";
    }

    /**
     * The join condition's code for a pair of equal keys: {@code MATCHED} when it holds, else {@code CONDITION_FAILED}.
     *
     * @param predicate the join's predicate.
     * @param side      the side of {@code row}.
     * @param row       the explained row.
     * @param other     the stored record of the other side.
     * @param detail    where the sentence goes.
     * @return the code.
     */
    static String conditionCode(
        final JoinPredicate predicate, final Side side, final RowView row, final long other, final StringBuilder detail)
    {
        predicate.wrapOther(other);
        final boolean holds = side == Side.LEFT ? predicate.conditionHolds(row, predicate.otherRow)
            : predicate.conditionHolds(predicate.otherRow, row);
        if (holds)
        {
            detail.append("keys equal, filters and condition hold: they would join");
            return "MATCHED";
        }
        detail.append("the join condition is false for this pair");
        return "CONDITION_FAILED";
    }
}
