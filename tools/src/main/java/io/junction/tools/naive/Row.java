package io.junction.tools.naive;

import io.junction.tools.workload.RowPayload;

/**
 * One input row of the naive joins, on the heap, the way an application would hold it: the five
 * workload columns (WORKLOADS.md "Rows") as fields, {@code f3} as a {@link String}, plus the join's
 * own bookkeeping.
 * <p>
 * Identity, not value, equality (no {@code equals}): rows are unique by {@code (side, f1)} anyway,
 * and the joins remove rows from their lists by reference.
 * <p>
 * Not thread safe: owned by the join that stores it.
 */
public final class Row
{
    /** {@link io.junction.tools.workload.WorkloadSink#LEFT} or {@link io.junction.tools.workload.WorkloadSink#RIGHT}. */
    public final int side;
    /** Join key. */
    public final long key;
    /** Event time, ms. */
    public final long ts;
    /** Sequence number within the side. */
    public final long f1;
    /** {@code key * 1_000_003 + side}. */
    public final long f2;
    /** {@code hex16(f2) ++ hex16(f1)}. */
    public final String f3;
    /** Interval join: whether this row has matched at least once (a matched row is never padded). */
    boolean matched;
    /** Regular join: number of rows of the other side this (left) row currently matches. */
    int associations;

    /**
     * @param side side
     * @param key  join key
     * @param ts   event time
     * @param f1   sequence number within the side
     * @param f2   derived column
     * @param f3   derived column
     */
    public Row(final int side, final long key, final long ts, final long f1, final long f2, final String f3)
    {
        this.side = side;
        this.key = key;
        this.ts = ts;
        this.f1 = f1;
        this.f2 = f2;
        this.f3 = f3;
    }

    /**
     * Builds a workload row with its derived columns ({@link RowPayload}).
     *
     * @param side    side
     * @param key     join key
     * @param ts      event time
     * @param f1      sequence number within the side
     * @param scratch reused to format f3 (then copied into a new String)
     * @return the row
     */
    public static Row of(final int side, final long key, final long ts, final long f1, final StringBuilder scratch)
    {
        final long f2 = RowPayload.f2(key, side);
        return new Row(side, key, ts, f1, f2, RowPayload.f3(f2, f1, scratch).toString());
    }

    @Override
    public String toString()
    {
        return (side == 0 ? "L" : "R") + "{key=" + key + ", ts=" + ts + ", f1=" + f1 + ", f2=" + f2 + ", f3=" + f3 + '}';
    }
}
