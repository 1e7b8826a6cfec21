package io.junction.internal.state;

import org.agrona.UnsafeApi;

/**
 * A multi-way join's index from a 64-bit hash to a bucket ({@link MultiBucketDescriptor}): an open-addressing
 * table of {@code [hash, bucket]} slots in native memory ({@link HashSlots}: linear probing, backward-shift
 * deletion), load factor at most 1/2, doubled when a key would pass it, so that it takes memory as keys
 * come instead of being sized for the most keys up front.
 *
 * <p>Unlike {@link HashKeyIndex}, two slots may hold one hash: distinct keys whose hashes collide get one
 * bucket each, and the caller tells them apart while probing ({@link #home}, {@link #next}: every slot of
 * the probe run up to the first empty one is a candidate), so a bucket only ever holds one key's rows.
 * Probing visits slots in order, so a caller inserting a key it did not find inserts it with
 * {@link #insert} (the first empty slot from its home).
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class MultiKeyTable implements AutoCloseable
{
    private static final int SLOT = HashSlots.SLOT;
    /** Slots of a new table. */
    static final int INITIAL_SLOTS = 64;
    /** The most slots: at most 2^30 keys. */
    private static final long MAX_SLOTS = 1L << 31;

    private long table;
    private long mask;
    private int shift;
    private long size;
    private boolean closed;

    /** A table of {@link #INITIAL_SLOTS} slots. */
    public MultiKeyTable()
    {
        this.table = allocateTable(INITIAL_SLOTS);
        if (table == 0)
        {
            throw new OutOfMemoryError("cannot allocate a key table of " + INITIAL_SLOTS + " slots");
        }
        setSlots(INITIAL_SLOTS);
    }

    private void setSlots(final long slots)
    {
        this.mask = slots - 1;
        this.shift = 64 - Long.numberOfTrailingZeros(slots);
    }

    private static long allocateTable(final long slots)
    {
        final long address;
        try
        {
            address = UnsafeApi.allocateMemory(slots * SLOT);
        }
        catch (final OutOfMemoryError e)
        {
            return 0;
        }
        UnsafeApi.setMemory(address, slots * SLOT, (byte)0);
        return address;
    }

    /**
     * @param hash a hash.
     * @return the slot its probe run starts at.
     */
    public long home(final long hash)
    {
        return HashSlots.home(hash, shift);
    }

    /**
     * @param slot a slot.
     * @return the slot after it in a probe run.
     */
    public long next(final long slot)
    {
        return (slot + 1) & mask;
    }

    /**
     * @param slot a slot.
     * @return its bucket, 0 when it is empty (which ends a probe run).
     */
    public long bucketAt(final long slot)
    {
        return UnsafeApi.getLong(table + slot * SLOT + HashSlots.VALUE_OFFSET);
    }

    /**
     * @param slot an occupied slot.
     * @return its hash.
     */
    public long hashAt(final long slot)
    {
        return UnsafeApi.getLong(table + slot * SLOT + HashSlots.HASH_OFFSET);
    }

    /**
     * Adds a bucket under a hash, doubling the table first when it would pass its load factor.
     *
     * @param hash   the hash.
     * @param bucket the bucket, not 0.
     * @return false, with the table as it was, when it is at its most slots or the OS has no memory to grow it.
     */
    public boolean insert(final long hash, final long bucket)
    {
        if ((size + 1) * 2 > mask + 1 && !grow())
        {
            return false;
        }
        long i = home(hash);
        while (bucketAt(i) != 0)
        {
            i = next(i);
        }
        final long slot = table + i * SLOT;
        UnsafeApi.putLong(slot + HashSlots.HASH_OFFSET, hash);
        UnsafeApi.putLong(slot + HashSlots.VALUE_OFFSET, bucket);
        size++;
        return true;
    }

    private boolean grow()
    {
        final long slots = (mask + 1) * 2;
        if (slots > MAX_SLOTS)
        {
            return false;
        }
        final long grown = allocateTable(slots);
        if (grown == 0)
        {
            return false;
        }
        final long old = table;
        final long oldSlots = mask + 1;
        table = grown;
        setSlots(slots);
        for (long s = 0; s < oldSlots; s++)
        {
            final long bucket = UnsafeApi.getLong(old + s * SLOT + HashSlots.VALUE_OFFSET);
            if (bucket == 0)
            {
                continue;
            }
            final long hash = UnsafeApi.getLong(old + s * SLOT + HashSlots.HASH_OFFSET);
            long i = home(hash);
            while (bucketAt(i) != 0)
            {
                i = next(i);
            }
            UnsafeApi.putLong(table + i * SLOT + HashSlots.HASH_OFFSET, hash);
            UnsafeApi.putLong(table + i * SLOT + HashSlots.VALUE_OFFSET, bucket);
        }
        UnsafeApi.freeMemory(old);
        return true;
    }

    /**
     * Removes a bucket from the table (the caller frees it).
     *
     * @param hash   the hash it was inserted under.
     * @param bucket the bucket.
     * @return whether it was in the table.
     */
    public boolean remove(final long hash, final long bucket)
    {
        for (long i = home(hash); ; i = next(i))
        {
            final long value = bucketAt(i);
            if (value == 0)
            {
                return false;
            }
            if (value == bucket)
            {
                HashSlots.delete(table, mask, shift, i);
                size--;
                return true;
            }
        }
    }

    /** @return the buckets in the table. */
    public long size()
    {
        return size;
    }

    /** @return the table's slots (for a walk over every bucket with {@link #bucketAt}). */
    public long slots()
    {
        return mask + 1;
    }

    /** @return the native bytes the table takes. */
    public long bytes()
    {
        return (mask + 1) * SLOT;
    }

    /**
     * @return the bytes the live keys account for: two slots each, the most a key takes at the load factor's
     *         bound (as {@link HashKeyIndex#liveBytes()} counts its table).
     */
    public long liveBytes()
    {
        return size * 2L * SLOT;
    }

    /** Frees the table. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        UnsafeApi.freeMemory(table);
        table = 0;
        size = 0;
    }
}
