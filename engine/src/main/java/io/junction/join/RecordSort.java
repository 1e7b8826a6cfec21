package io.junction.join;

import io.junction.internal.state.RowDescriptor;

/**
 * The session window join's in-place sort of {@code long}s: timestamps by value, or records by the ts they hold
 * (a heap sort, allocation-free and, where keys tie, unstable in a way that does not depend on the JDK).
 *
 * <p>Not thread safe: its callers own the arrays; it keeps no state.
 */
final class RecordSort
{
    private RecordSort()
    {
    }

    /**
     * Sorts {@code a[from, to)} ascending in place without allocating: by value, or, when
     * {@code byRecordTs}, by the ts of the records they address. Not {@code Arrays.sort}: the records
     * sort by a key read through their address, which it cannot take, and on {@code long[]} its
     * dual-pivot quicksort (JDK 14+) may allocate a merge buffer for ranges over 4096 elements that
     * hold runs, as the two side chains gathered here do. A heap sort is also unstable in a way that
     * does not depend on the JDK, so the order of a session's output stays as it was.
     */
    static void sort(final long[] a, final int from, final int to, final boolean byRecordTs)
    {
        final int n = to - from;
        for (int i = n / 2 - 1; i >= 0; i--)
        {
            siftDown(a, from, i, n, byRecordTs);
        }
        for (int end = n - 1; end > 0; end--)
        {
            final long t = a[from];
            a[from] = a[from + end];
            a[from + end] = t;
            siftDown(a, from, 0, end, byRecordTs);
        }
    }

    private static void siftDown(final long[] a, final int base, final int start, final int n, final boolean byRecordTs)
    {
        int root = start;
        while (2 * root + 1 < n)
        {
            int child = 2 * root + 1;
            if (child + 1 < n && sortKey(a[base + child], byRecordTs) < sortKey(a[base + child + 1], byRecordTs))
            {
                child++;
            }
            if (sortKey(a[base + root], byRecordTs) >= sortKey(a[base + child], byRecordTs))
            {
                return;
            }
            final long t = a[base + root];
            a[base + root] = a[base + child];
            a[base + child] = t;
            root = child;
        }
    }

    private static long sortKey(final long value, final boolean byRecordTs)
    {
        return byRecordTs ? RowDescriptor.ts(value) : value;
    }
}
