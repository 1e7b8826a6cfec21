package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;

import org.agrona.UnsafeApi;

/**
 * The slot layout and the two operations that {@link HashKeyIndex} and {@link UniqueKeyIndex} share:
 * an off-heap open-addressing table of 16-byte {@code [hash, value]} slots, a value of 0 marking an
 * empty slot, with Fibonacci hashing and linear probing.
 */
final class HashSlots
{
    /** Offset of a slot's 64-bit hash. */
    static final int HASH_OFFSET = 0;
    /** Offset of a slot's value (an address), 0 when the slot is empty. */
    static final int VALUE_OFFSET = HASH_OFFSET + Long.BYTES;
    /** Bytes per slot. */
    static final int SLOT = VALUE_OFFSET + Long.BYTES;

    private HashSlots()
    {
    }

    /**
     * Fibonacci hashing: the table's index comes from the high bits of a multiplicative mix, so it is
     * independent of the bits that chose the partition.
     *
     * @param hash  the key hash.
     * @param shift 64 minus log2 of the table's slots.
     * @return the slot a hash probes first.
     */
    static long home(final long hash, final int shift)
    {
        return (hash * 0x9E3779B97F4A7C15L) >>> shift;
    }

    /**
     * Empties slot {@code hole} by backward-shift deletion: later entries of its probe run move into the
     * hole (an entry moves only if the hole lies between its home and its slot), so that lookups never
     * need tombstones.
     *
     * @param table the table's address.
     * @param mask  its slot count minus one.
     * @param shift as {@link #home}.
     * @param hole  the slot of the entry to delete.
     */
    static void delete(final long table, final long mask, final int shift, final long hole)
    {
        delete(table, mask, shift, hole, null);
    }

    /**
     * As {@link #delete(long, long, int, long)}, marking every slot it writes in a durable table's tracking.
     *
     * @param table the table's address.
     * @param mask  its slot count minus one.
     * @param shift as {@link #home}.
     * @param hole  the slot of the entry to delete.
     * @param dirty the table's dirty-chunk tracking (durable), or null.
     */
    static void delete(final long table, final long mask, final int shift, final long hole, final DirtyChunks dirty)
    {
        long empty = hole;
        long j = (hole + 1) & mask;
        while (true)
        {
            final long slot = table + j * SLOT;
            final long value = UnsafeApi.getLong(slot + VALUE_OFFSET);
            if (value == 0)
            {
                break;
            }
            final long entryHash = UnsafeApi.getLong(slot + HASH_OFFSET);
            if (((j - home(entryHash, shift)) & mask) >= ((j - empty) & mask))
            {
                final long emptySlot = table + empty * SLOT;
                if (dirty != null)
                {
                    dirty.mark(emptySlot);
                }
                UnsafeApi.putLong(emptySlot + HASH_OFFSET, entryHash);
                UnsafeApi.putLong(emptySlot + VALUE_OFFSET, value);
                empty = j;
            }
            j = (j + 1) & mask;
        }
        final long emptySlot = table + empty * SLOT;
        if (dirty != null)
        {
            dirty.mark(emptySlot);
        }
        UnsafeApi.putLong(emptySlot + HASH_OFFSET, 0);
        UnsafeApi.putLong(emptySlot + VALUE_OFFSET, 0);
    }
}
