package io.junction.tools.workload;

import java.util.Arrays;

/** Tiny open-addressing long to long map for tests (linear probing, fixed capacity, no removal). */
final class LongLongHashMap
{
    static final long MISSING = Long.MIN_VALUE;

    private final long[] keys;
    private final long[] values;
    private final boolean[] used;
    private final int mask;
    private int size;

    LongLongHashMap(final int expected)
    {
        int cap = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
        keys = new long[cap];
        values = new long[cap];
        used = new boolean[cap];
        mask = cap - 1;
        Arrays.fill(values, MISSING);
    }

    /** @return the previous value, or {@link #MISSING} */
    long put(final long key, final long value)
    {
        int i = (int) SplitMix64.mix64(key) & mask;
        while (used[i])
        {
            if (keys[i] == key)
            {
                final long old = values[i];
                values[i] = value;
                return old;
            }
            i = (i + 1) & mask;
        }
        if (size + 1 > (mask + 1) * 3 / 4)
        {
            throw new IllegalStateException("LongLongHashMap full");
        }
        used[i] = true;
        keys[i] = key;
        values[i] = value;
        size++;
        return MISSING;
    }

    long get(final long key)
    {
        int i = (int) SplitMix64.mix64(key) & mask;
        while (used[i])
        {
            if (keys[i] == key)
            {
                return values[i];
            }
            i = (i + 1) & mask;
        }
        return MISSING;
    }

    int size()
    {
        return size;
    }
}
