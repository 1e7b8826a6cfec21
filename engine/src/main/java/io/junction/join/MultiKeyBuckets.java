package io.junction.join;

import io.junction.api.RowView;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.BufferCompare;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.MultiBucketDescriptor;
import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.MultiRowStore;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * The multi-way join's buckets by hash (docs/SEMANTICS.md "Multi-way joins"): the key index of the
 * partition state (either {@link IndexKind}) holds, for a key hash, the first bucket of a chain
 * ({@link MultiBucketDescriptor}); distinct keys whose hashes collide get a bucket each, linked after it and
 * told apart by extracting the key of one of the bucket's rows, and the rows that can never match (a null
 * key field, or failing their input's filter) are kept by content, in a bucket marked unmatchable under the
 * row's content hash in the same chains. When the index's bucket of a hash empties, the next one of its
 * chain moves into it. Keeps the count of key buckets (not those of rows that can never match).
 *
 * <p>Nothing is allocated per call. Not thread safe: owned by the partition thread.
 */
final class MultiKeyBuckets
{
    private final KeyIndex index;
    private final MultiRowStore store;
    private final KeyExtractor[] keys;
    private final JoinCounters counters;
    private final long seed;
    /** ANDed into every hash: -1, or narrow in a test of colliding keys. */
    private final long hashMask;
    /** A stored row's key, extracted to tell colliding keys apart. */
    private final UnsafeBuffer storedKey;
    private final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);
    private final RowView storedRow = new RowView();
    /** Buckets of keys (not of rows that can never match). */
    private long keyBuckets;
    /** Whether the row in hand came with its key's hash ({@link #supplyKeyHash}), and that hash, masked. */
    private boolean hashSupplied;
    private long suppliedHash;

    /**
     * @param index        the state's key index.
     * @param store        the records, buckets and arrays.
     * @param keys         each input's key extractor.
     * @param counters     counts the hash collisions met.
     * @param seed         the state's hash seed.
     * @param hashMask     ANDed into every hash; -1 in production.
     * @param maxKeyLength the longest key.
     */
    MultiKeyBuckets(final KeyIndex index, final MultiRowStore store, final KeyExtractor[] keys, final JoinCounters counters,
        final long seed, final long hashMask, final int maxKeyLength)
    {
        this.index = index;
        this.store = store;
        this.keys = keys;
        this.counters = counters;
        this.seed = seed;
        this.hashMask = hashMask;
        this.storedKey = new UnsafeBuffer(ByteBuffer.allocateDirect(maxKeyLength));
    }

    /** @return the hash of a key. */
    long keyHash(final DirectBuffer key, final int keyLength)
    {
        return KeyHash.hash(seed, key, 0, keyLength) & hashMask;
    }

    /**
     * The row in hand came with its key's hash, as the runtime's publisher routed it ({@link KeyHash} of the same
     * {@link KeyExtractor} bytes under the same seed): {@link #rowKeyHash} returns it, masked as every hash here,
     * until the next row. The operator calls this or {@link #hashRowKey} before every row.
     *
     * @param hash the row's key hash.
     */
    void supplyKeyHash(final long hash)
    {
        suppliedHash = hash & hashMask;
        hashSupplied = true;
    }

    /** The row in hand came without its key's hash (a caller other than the runtime's publisher): {@link #rowKeyHash} computes it. */
    void hashRowKey()
    {
        hashSupplied = false;
    }

    /**
     * @param key       the row in hand's key, extracted.
     * @param keyLength its length.
     * @return its hash: the one supplied with the row ({@link #supplyKeyHash}), else {@link #keyHash}. Only for the
     *         row in hand's key: a stored row's key (an expiry's) goes to {@link #keyHash}.
     */
    long rowKeyHash(final DirectBuffer key, final int keyLength)
    {
        return hashSupplied ? suppliedHash : keyHash(key, keyLength);
    }

    /** @return the content hash of a row that can never match. */
    long rowHash(final DirectBuffer buffer, final int offset, final int length)
    {
        return KeyHash.hash(seed, buffer, offset, length) & hashMask;
    }

    /** @return the number of keys with stored rows that can match. */
    long keys()
    {
        return keyBuckets;
    }

    /** @param keys the number of key buckets, from a heap image. */
    void keys(final long keys)
    {
        this.keyBuckets = keys;
    }

    /**
     * @return the bucket of {@code key} ({@code keyLength} bytes, hash {@code hash}), or 0: of the key buckets
     *         in the hash's chain, the one whose rows have that key.
     */
    long findKey(final long hash, final DirectBuffer key, final int keyLength)
    {
        for (long bucket = index.find(hash); bucket != 0; bucket = store.next(bucket))
        {
            if (!MultiBucketDescriptor.unmatchable(bucket))
            {
                if (sameKey(bucket, key, keyLength))
                {
                    return bucket;
                }
                counters.hashCollisions++;
            }
        }
        return 0;
    }

    /** @return whether the bucket's rows have the key: one of them has its key extracted. */
    private boolean sameKey(final long bucket, final DirectBuffer key, final int keyLength)
    {
        final long record = store.anyRecord(bucket);
        if (record == 0)
        {
            return false;
        }
        MultiWayJoin.wrap(record, storedBuffer, storedRow);
        final int length = keys[MultiRowDescriptor.input(record)].extract(storedRow, storedKey, 0, storedKey.capacity());
        return length == keyLength && BufferCompare.equals(storedKey, 0, key, 0, keyLength);
    }

    /** @return the bucket of the rows that can never match under a content hash, or 0. */
    long findRows(final long hash)
    {
        for (long bucket = index.find(hash); bucket != 0; bucket = store.next(bucket))
        {
            if (MultiBucketDescriptor.unmatchable(bucket))
            {
                return bucket;
            }
        }
        return 0;
    }

    /**
     * Finds or creates the bucket of a hash and makes room in its group of {@code input}: a new bucket is the
     * index's for the hash when the hash has none, else one from the arena linked after the index's.
     *
     * @param hash        the key (or content) hash.
     * @param found       the bucket {@link #findKey} or {@link #findRows} found, 0 for none.
     * @param input       the input a row is coming to.
     * @param unmatchable whether the bucket holds rows that can never match.
     * @return the bucket, or 0 (nothing changed) when there is no memory for it.
     */
    long bucketFor(final long hash, final long found, final int input, final boolean unmatchable)
    {
        long bucket = found;
        if (bucket == 0)
        {
            final long keysBefore = index.size();
            final long head = index.findOrCreate(hash);
            if (head == KeyIndex.FULL)
            {
                return 0;
            }
            if (index.size() != keysBefore)
            {
                // Created now: only a standard bucket's length is cleared (a bucket in the index holds a row between events).
                store.initBucket(head, unmatchable);
                bucket = head;
            }
            else
            {
                bucket = store.createBucket(hash, unmatchable);
                if (bucket == 0)
                {
                    return 0;
                }
                store.next(bucket, store.next(head));
                store.next(head, bucket);
            }
            if (!unmatchable)
            {
                keyBuckets++;
            }
        }
        if (!store.reserve(bucket, input))
        {
            release(bucket, hash);
            return 0;
        }
        return bucket;
    }

    /**
     * Drops a bucket once it holds no row: the index's bucket of its hash takes the next one's content (or
     * leaves the index when it has none); a linked one is unlinked and freed.
     */
    void release(final long bucket, final long hash)
    {
        if (!store.isEmpty(bucket))
        {
            return;
        }
        if (!MultiBucketDescriptor.unmatchable(bucket))
        {
            keyBuckets--;
        }
        final long head = index.find(hash);
        if (bucket == head)
        {
            final long next = store.next(head);
            if (next == 0)
            {
                index.remove(head);
            }
            else
            {
                store.moveInto(head, next);
                store.freeBucket(next);
            }
            return;
        }
        long before = head;
        while (store.next(before) != bucket)
        {
            before = store.next(before);
        }
        store.next(before, store.next(bucket));
        store.freeBucket(bucket);
    }

    /** Drops every empty bucket of a hash's chain (a watermark step's, once its walks are done); idempotent. */
    void releaseChain(final long hash)
    {
        final long head = index.find(hash);
        if (head == 0)
        {
            return;
        }
        long before = head;
        for (long bucket = store.next(head); bucket != 0; bucket = store.next(before))
        {
            if (store.isEmpty(bucket))
            {
                release(bucket, hash);
            }
            else
            {
                before = bucket;
            }
        }
        release(head, hash);
    }

    /** @return the live rows of the index's bucket of a key hash, for the hot-key report (its groups' sizes). */
    long liveRowsOfKey(final long hash)
    {
        final long bucket = index.find(hash);
        return bucket == 0 ? 0 : store.rows(bucket);
    }
}
