package io.junction.tools.workload;

/**
 * Brute-force model of a regular (unbounded, no TTL) equi-join, counting output rows for W2/W3 tests.
 * Keys must lie in {@code [0, keyBound)}; per-key counts live in plain int arrays.
 * <ul>
 *   <li>inner: one row per (left, right) pair with equal keys</li>
 *   <li>changelog left outer (Flink SQL, WORKLOADS.md "Counting"): a left row with no match emits
 *       {@code +I(l,null)}; a right row emits, per existing left row of its key, 1 row if that left row
 *       already had a match, else 2 ({@code -D(l,null)}, {@code +I(l,r)}); a left row arriving when right rows
 *       exist emits one row per right row</li>
 *   <li>append-only left outer: the pairs plus one row per left row that never matched</li>
 * </ul>
 */
final class RegularJoinCounter implements WorkloadSink
{
    final int[] left;
    final int[] right;
    /** Left rows of a key that have not matched yet (still padded with null). */
    final int[] unmatched;
    long inner;
    long changelog;
    boolean ended;

    RegularJoinCounter(final int keyBound)
    {
        left = new int[keyBound];
        right = new int[keyBound];
        unmatched = new int[keyBound];
    }

    @Override
    public void row(final int side, final long key, final long ts, final long f1)
    {
        final int k = Math.toIntExact(key);
        if (side == LEFT)
        {
            final int r = right[k];
            inner += r;
            if (r == 0)
            {
                changelog += 1;
                unmatched[k]++;
            }
            else
            {
                changelog += r;
            }
            left[k]++;
        }
        else
        {
            inner += left[k];
            changelog += left[k] + unmatched[k];   // matched lefts: +I; unmatched: -D then +I
            unmatched[k] = 0;
            right[k]++;
        }
    }

    @Override
    public void watermark(final long watermark)
    {
        throw new AssertionError("regular-join workloads have no watermarks, got " + watermark);
    }

    @Override
    public void end()
    {
        ended = true;
    }

    long appendOnlyLeftOuter()
    {
        long rows = inner;
        for (int k = 0; k < left.length; k++)
        {
            if (right[k] == 0)
            {
                rows += left[k];
            }
        }
        return rows;
    }

    long innerFromCounts()
    {
        long rows = 0;
        for (int k = 0; k < left.length; k++)
        {
            rows += (long) left[k] * right[k];
        }
        return rows;
    }

    int distinctKeys()
    {
        int d = 0;
        for (int k = 0; k < left.length; k++)
        {
            if (left[k] + right[k] > 0)
            {
                d++;
            }
        }
        return d;
    }

    /** @return the key with the most rows of both sides (smallest such key on ties) */
    int hottestKey()
    {
        int best = 0;
        for (int k = 1; k < left.length; k++)
        {
            if (left[k] + right[k] > left[best] + right[best])
            {
                best = k;
            }
        }
        return best;
    }
}
