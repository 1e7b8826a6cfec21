package io.junction.tools.workload;

import java.util.HashMap;
import java.util.Map;

/**
 * Output row counts of the regular (unbounded, no TTL) equi-join on {@code key} with no other condition, for
 * a workload sequence with or without retractions, following SEMANTICS.md section 4.2 and Flink's
 * {@code StreamingJoinOperator}: inner, and left outer as a changelog. Used to check a run's output count
 * (loadgen, the peers) at any size, where WORKLOADS.md's table only holds the default sizes.
 * <p>
 * With no condition every left row of a key matches every live right row of that key, so the counts follow
 * from the live rows per key and side ({@code L}, {@code R}) before each event:
 * <ul>
 *   <li>inner: a row added or retracted on one side emits one row per live row of the other side
 *       ({@code R} for a left row, {@code L} for a right row), with its own kind.</li>
 *   <li>left outer: a left row added or retracted emits {@code max(R, 1)} rows (its pairs, or its
 *       null-padded row); a right row added emits {@code L} pairs, plus {@code L} more ({@code -D(l, null)})
 *       when it is the key's first live right row; a right row retracted emits {@code L} pairs
 *       ({@code -D(l, r)}), plus {@code L} more ({@code +I(l, null)}) when it was the key's last.</li>
 * </ul>
 * A retraction of a row that no live row equals is a dead letter (no output, no change), as in Junction; the
 * counter cannot tell rows of one key apart, so it counts a retraction as a dead letter only when its side has
 * no live row of that key ({@link #deadLetters()}); the workloads have none.
 * <p>
 * Not thread safe. Allocates per distinct key (a boxed key and a small array): not for timed sections.
 */
public final class RegularJoinCounts implements WorkloadSink
{
    private final Map<Long, long[]> live = new HashMap<>(1 << 16);
    private long inner;
    private long leftChangelog;
    private long deadLetters;
    private long rows;

    /**
     * Counts a whole tape.
     *
     * @param tape the events
     * @return the counts
     */
    public static RegularJoinCounts of(final EventTape tape)
    {
        final RegularJoinCounts counts = new RegularJoinCounts();
        tape.replay(counts);
        return counts;
    }

    @Override
    public void row(final int side, final long key, final long ts, final long f1)
    {
        change(side, INSERT, key, ts, f1);
    }

    @Override
    public void change(final int side, final byte kind, final long key, final long ts, final long f1)
    {
        rows++;
        final long[] lr = live.computeIfAbsent(key, k -> new long[2]);
        final long l = lr[LEFT];
        final long r = lr[RIGHT];
        final boolean add = kind == INSERT || kind == UPDATE_AFTER;
        if (!add && lr[side] == 0)
        {
            deadLetters++;
            return;
        }
        if (side == LEFT)
        {
            inner += r;
            leftChangelog += Math.max(r, 1);
        }
        else
        {
            inner += l;
            final boolean firstOrLast = add ? r == 0 : r == 1;
            leftChangelog += firstOrLast ? 2 * l : l;
        }
        lr[side] += add ? 1 : -1;
    }

    @Override
    public void watermark(final long watermark)
    {
        // no state TTL: a watermark changes nothing
    }

    @Override
    public void end()
    {
        // a regular join emits as rows arrive
    }

    /** @return output rows of the inner join */
    public long inner()
    {
        return inner;
    }

    /** @return output rows of the left outer join as a changelog ({@code +I(l, null)}, {@code -D(l, null)}, pairs) */
    public long leftChangelog()
    {
        return leftChangelog;
    }

    /** @return retractions with no live row of their key and side (no output) */
    public long deadLetters()
    {
        return deadLetters;
    }

    /** @return rows counted, both sides, every kind */
    public long rows()
    {
        return rows;
    }

    /** @return keys seen, both sides */
    public int distinctKeys()
    {
        return live.size();
    }
}
