package io.junction.join;

import io.junction.internal.state.RowDescriptor;

/**
 * The window joins' in-place sorts of {@code long}s: timestamps by value, records by the ts they hold (sessions),
 * and positions into records by (ts, position) (the window coGroup's sessions in arrival order). Heap sorts:
 * allocation-free and, where keys tie, unstable in a way that does not depend on the JDK.
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

    /**
     * The window coGroup's sort: heap-sorts the positions {@code order[from, to)} into {@code records} without allocating: by the ts of the record each position names,
     * then by position ({@code byTs}), or by position alone (arrival order). The keys are unique.
     */
    static void sortPositions(final long[] order, final long[] records, final int from, final int to, final boolean byTs)
    {
        final int n = to - from;
        for (int i = n / 2 - 1; i >= 0; i--)
        {
            siftDownPositions(order, records, from, i, n, byTs);
        }
        for (int last = n - 1; last > 0; last--)
        {
            final long t = order[from];
            order[from] = order[from + last];
            order[from + last] = t;
            siftDownPositions(order, records, from, 0, last, byTs);
        }
    }

    private static void siftDownPositions(
        final long[] order, final long[] records, final int base, final int start, final int n, final boolean byTs)
    {
        int root = start;
        while (2 * root + 1 < n)
        {
            int child = 2 * root + 1;
            if (child + 1 < n && less(records, order[base + child], order[base + child + 1], byTs))
            {
                child++;
            }
            if (!less(records, order[base + root], order[base + child], byTs))
            {
                return;
            }
            final long t = order[base + root];
            order[base + root] = order[base + child];
            order[base + child] = t;
            root = child;
        }
    }

    private static boolean less(final long[] records, final long a, final long b, final boolean byTs)
    {
        if (byTs)
        {
            final long ta = RowDescriptor.ts(records[(int)a]);
            final long tb = RowDescriptor.ts(records[(int)b]);
            if (ta != tb)
            {
                return ta < tb;
            }
        }
        return a < b;
    }
}
