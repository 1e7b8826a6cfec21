package io.junction.join;

import io.junction.internal.row.KeyHash;
import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.MultiRowStore;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

/**
 * The multiset a multi-way join's watermark step nets its changes in (SEMANTICS 10: the minimal changelog; a step
 * that expires several rows of a key at once emits only the difference of the chain's results before and
 * after it, docs/SEMANTICS.md "Multi-way joins"). An entry is a combination by content (per input a stored
 * record, 0 for a padded input; two combinations are the same when every input's row bytes are equal) and
 * its net count. Entries stay in the order they were first added, so that a step emits its netted changes in
 * the order its walks met them, whatever the rows' hashes are.
 *
 * <p>Allocation-free once grown: the entries are rows of a flat {@code long[]} (n records each) beside their
 * counts and hashes, found through an open-addressing table of entry numbers (linear probing, at most half
 * full); {@link #clear()} empties only the table slots the entries took. The arrays double when a step holds
 * more combinations than any step before it.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class MultiNetting
{
    private final int n;
    private final UnsafeBuffer scratch = new UnsafeBuffer(0, 0);
    /** Entry e's records: {@code rows[e * n + i]} is input i's, 0 for padded. */
    private long[] rows;
    private int[] counts;
    private int[] hashes;
    /** Entry e's slot in {@link #table}, so that a clear visits only those. */
    private int[] slots;
    /** Open addressing: entry number + 1, 0 for an empty slot. */
    private int[] table;
    private int size;

    /**
     * @param inputs the join's inputs.
     */
    MultiNetting(final int inputs)
    {
        this.n = inputs;
        this.rows = new long[16 * inputs];
        this.counts = new int[16];
        this.hashes = new int[16];
        this.slots = new int[16];
        this.table = new int[32];
    }

    /** @return the entries, in first-added order. */
    int size()
    {
        return size;
    }

    /**
     * @param entry an entry, below {@link #size()}.
     * @param input an input.
     * @return the entry's record of the input, 0 for padded.
     */
    long record(final int entry, final int input)
    {
        return rows[entry * n + input];
    }

    /**
     * @param entry an entry, below {@link #size()}.
     * @return its net count: positive for insertions, negative for retractions, 0 when they cancel.
     */
    int count(final int entry)
    {
        return counts[entry];
    }

    /**
     * Adds {@code sign} to the count of the combination {@code combo} (by content), added as a new entry when
     * no entry has its content.
     *
     * @param combo per input a stored record, 0 for padded; copied.
     * @param sign  +1 or -1.
     */
    void add(final long[] combo, final int sign)
    {
        final int hash = hash(combo);
        final int mask = table.length - 1;
        int s = mix(hash) & mask;
        for (int at = table[s]; at != 0; at = table[s])
        {
            final int entry = at - 1;
            if (hashes[entry] == hash && sameContent(entry, combo))
            {
                counts[entry] += sign;
                return;
            }
            s = (s + 1) & mask;
        }
        if (size == counts.length)
        {
            grow();
            add(combo, sign);
            return;
        }
        final int entry = size++;
        System.arraycopy(combo, 0, rows, entry * n, n);
        counts[entry] = sign;
        hashes[entry] = hash;
        slots[entry] = s;
        table[s] = entry + 1;
    }

    /** Empties the multiset, keeping its arrays. */
    void clear()
    {
        for (int e = 0; e < size; e++)
        {
            table[slots[e]] = 0;
        }
        size = 0;
    }

    private void grow()
    {
        final int capacity = counts.length * 2;
        rows = Arrays.copyOf(rows, capacity * n);
        counts = Arrays.copyOf(counts, capacity);
        hashes = Arrays.copyOf(hashes, capacity);
        slots = Arrays.copyOf(slots, capacity);
        table = new int[capacity * 2];
        final int mask = table.length - 1;
        for (int e = 0; e < size; e++)
        {
            int s = mix(hashes[e]) & mask;
            while (table[s] != 0)
            {
                s = (s + 1) & mask;
            }
            table[s] = e + 1;
            slots[e] = s;
        }
    }

    private boolean sameContent(final int entry, final long[] combo)
    {
        final int from = entry * n;
        for (int i = 0; i < n; i++)
        {
            final long a = rows[from + i];
            final long b = combo[i];
            if (a == 0 ? b != 0 : b == 0 || !MultiRowStore.sameRow(a, b))
            {
                return false;
            }
        }
        return true;
    }

    /** @return the combination's hash over its rows' bytes (a padded input hashes as 0). */
    private int hash(final long[] combo)
    {
        int h = 1;
        for (int i = 0; i < n; i++)
        {
            final long record = combo[i];
            int rowHash = 0;
            if (record != 0)
            {
                final int length = MultiRowDescriptor.rowLength(record);
                scratch.wrap(MultiRowDescriptor.rowAddress(record), length);
                final long z = KeyHash.hash(scratch, 0, length);
                rowHash = (int)(z ^ (z >>> 32));
            }
            h = 31 * h + rowHash;
        }
        return h;
    }

    private static int mix(final int hash)
    {
        return (int)KeyHash.mix(hash);
    }
}
