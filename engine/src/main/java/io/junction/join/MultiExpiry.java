package io.junction.join;

import io.junction.api.RowView;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.MultiRowStore;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A multi-way join's watermark step of state TTL expiry (SEMANTICS 10 {@code stateTtl}: rows with
 * {@code ts + stateTtl < watermark} leave their inputs, and the step emits the chain's net difference,
 * docs/SEMANTICS.md "Multi-way joins"). The step takes the due records off the {@link MultiTtlQueue}; a row
 * that can never match leaves at once (a first-input one retracts its padded combination); the others are
 * grouped by key bucket, so that each key's change is netted once ({@link MultiCombinations#collect} before
 * and after the key's rows leave, {@link MultiNetting}) and only the difference is emitted. Buckets are
 * released and records freed only when every group is emitted (a release may move another bucket of a chain
 * a later group walks; netted combinations refer to the records).
 *
 * <p>The grouping: per expiring record its bucket (0 for a row that can never match) and its hash, then the
 * matchable records ordered by bucket (a counting sort), the buckets in the order the step first met them,
 * found through an open-addressing set emptied by visiting only the slots they took. All arrays are reused
 * across steps and only grow (doubling): nothing is allocated per step once they have grown to the largest step.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class MultiExpiry
{
    private final MultiTtlQueue queue;
    private final MultiRowStore store;
    private final MultiKeyBuckets buckets;
    private final MultiCombinations combinations;
    private final KeyExtractor[] keys;
    /** The join's live rows per input, decremented for each row that leaves. */
    private final long[] liveRows;
    private final JoinCounters counters;
    /** An expiring row's key, extracted. */
    private final UnsafeBuffer key;
    private final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);
    private final RowView storedRow = new RowView();
    private long[] records = new long[64];
    private long[] bucketOf = new long[64];
    private long[] hashes = new long[64];
    private int[] group = new int[64];
    private int[] order = new int[64];
    private int count;
    /** The step's distinct buckets, in first-met order, and an open-addressing set of them. */
    private long[] groupBuckets = new long[64];
    private int[] groupStart = new int[65];
    private int groupCount;
    private int[] groupSlots = new int[64];
    private long[] groupSet = new long[128];
    private int[] groupSetIndex = new int[128];

    /**
     * @param queue        the TTL queue.
     * @param store        the records' store.
     * @param buckets      the key buckets.
     * @param combinations the enumeration that nets and emits.
     * @param keys         each input's key extractor.
     * @param liveRows     the join's live rows per input (shared, updated here).
     * @param counters     counts the expired rows.
     * @param maxKeyLength the longest key.
     */
    MultiExpiry(final MultiTtlQueue queue, final MultiRowStore store, final MultiKeyBuckets buckets,
        final MultiCombinations combinations, final KeyExtractor[] keys, final long[] liveRows, final JoinCounters counters,
        final int maxKeyLength)
    {
        this.queue = queue;
        this.store = store;
        this.buckets = buckets;
        this.combinations = combinations;
        this.keys = keys;
        this.liveRows = liveRows;
        this.counters = counters;
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(maxKeyLength));
    }

    /**
     * Expires every queued row whose deadline is below the watermark, emitting the net difference.
     *
     * @param watermark the join watermark.
     * @param step      the step the output belongs to.
     */
    void expire(final long watermark, final long step)
    {
        if (!queue.anyBefore(watermark))
        {
            return;
        }
        clear();
        while (queue.anyBefore(watermark))
        {
            add(queue.poll());
        }
        combinations.step(step);
        for (int e = 0; e < count; e++)
        {
            counters.expiredRows++;
            final long record = records[e];
            final int input = MultiRowDescriptor.input(record);
            if ((MultiRowDescriptor.flags(record) & MultiRowDescriptor.FLAG_UNMATCHABLE) != 0)
            {
                final int length = MultiRowDescriptor.rowLength(record);
                storedBuffer.wrap(MultiRowDescriptor.rowAddress(record), length);
                final long hash = buckets.rowHash(storedBuffer, 0, length);
                hashes[e] = hash;
                // Unlinked now, released with the step's other buckets once every walk is done.
                store.unlink(buckets.findRows(hash), input, record);
                liveRows[input]--;
                if (input == 0)
                {
                    combinations.ofFirst(0, record, -1);
                }
                continue;
            }
            MultiWayJoin.wrap(record, storedBuffer, storedRow);
            final int keyLength = keys[input].extract(storedRow, key, 0, key.capacity());
            final long hash = buckets.keyHash(key, keyLength);
            final long bucket = buckets.findKey(hash, key, keyLength);
            hashes[e] = hash;
            bucketOf[e] = bucket;
            group[e] = groupOf(bucket);
        }
        sortByBucket();
        // groupStart[g] is the end of group g's run: its start is the previous group's end.
        int from = 0;
        for (int g = 0; g < groupCount; g++)
        {
            final int to = groupStart[g];
            final long bucket = groupBuckets[g];
            combinations.startNetting();
            combinations.collect(bucket, -1);
            for (int k = from; k < to; k++)
            {
                final long record = records[order[k]];
                final int input = MultiRowDescriptor.input(record);
                store.unlink(bucket, input, record);
                liveRows[input]--;
            }
            combinations.collect(bucket, +1);
            combinations.emitNetted();
            from = to;
        }
        // Only now: releasing a bucket may move another of its chain, which a later group of the step walked.
        for (int e = 0; e < count; e++)
        {
            buckets.releaseChain(hashes[e]);
        }
        // Freed last: the netted combinations refer to them until their group is emitted.
        for (int e = 0; e < count; e++)
        {
            store.freeRecord(records[e]);
        }
        clear();
    }

    /** Starts or ends a step: no record, no group. */
    private void clear()
    {
        count = 0;
        for (int g = 0; g < groupCount; g++)
        {
            groupSet[groupSlots[g]] = 0;
        }
        groupCount = 0;
    }

    /** @param record a record the step expires, its bucket not known yet. */
    private void add(final long record)
    {
        if (count == records.length)
        {
            final int length = records.length * 2;
            records = Arrays.copyOf(records, length);
            bucketOf = Arrays.copyOf(bucketOf, length);
            hashes = Arrays.copyOf(hashes, length);
            group = Arrays.copyOf(group, length);
            order = Arrays.copyOf(order, length);
        }
        bucketOf[count] = 0;
        records[count++] = record;
    }

    /** Orders the matchable records by bucket, the buckets in the order they were met. */
    private void sortByBucket()
    {
        Arrays.fill(groupStart, 0, groupCount + 1, 0);
        for (int e = 0; e < count; e++)
        {
            if (bucketOf[e] != 0)
            {
                groupStart[group[e] + 1]++;
            }
        }
        for (int g = 0; g < groupCount; g++)
        {
            groupStart[g + 1] += groupStart[g];
        }
        for (int e = 0; e < count; e++)
        {
            if (bucketOf[e] != 0)
            {
                order[groupStart[group[e]]++] = e;
            }
        }
    }

    /** @return the index of a bucket among this step's distinct buckets, added when new. */
    private int groupOf(final long bucket)
    {
        if ((groupCount + 1) * 2 > groupSet.length)
        {
            final int length = groupSet.length * 2;
            groupSet = new long[length];
            groupSetIndex = new int[length];
            for (int g = 0; g < groupCount; g++)
            {
                groupSlots[g] = setInsert(groupBuckets[g], g);
            }
        }
        final int mask = groupSet.length - 1;
        for (int s = (int)KeyHash.mix(bucket) & mask; ; s = (s + 1) & mask)
        {
            if (groupSet[s] == bucket)
            {
                return groupSetIndex[s];
            }
            if (groupSet[s] == 0)
            {
                if (groupCount == groupBuckets.length)
                {
                    groupBuckets = Arrays.copyOf(groupBuckets, groupCount * 2);
                    groupStart = Arrays.copyOf(groupStart, groupCount * 2 + 1);
                    groupSlots = Arrays.copyOf(groupSlots, groupCount * 2);
                }
                groupSet[s] = bucket;
                groupSetIndex[s] = groupCount;
                groupSlots[groupCount] = s;
                groupBuckets[groupCount] = bucket;
                return groupCount++;
            }
        }
    }

    private int setInsert(final long bucket, final int index)
    {
        final int mask = groupSet.length - 1;
        int s = (int)KeyHash.mix(bucket) & mask;
        while (groupSet[s] != 0)
        {
            s = (s + 1) & mask;
        }
        groupSet[s] = bucket;
        groupSetIndex[s] = index;
        return s;
    }
}
