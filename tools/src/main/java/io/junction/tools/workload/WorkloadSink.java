package io.junction.tools.workload;

/**
 * Receiver of one globally ordered workload event sequence (WORKLOADS.md, "Input order").
 * <p>
 * A generator calls {@link #row}, {@link #watermark} and {@link #end} in the order the peers must consume
 * them; a peer with two inputs gets each row on its side in that order, and each watermark on both inputs.
 * <p>
 * Only {@code key}, {@code ts} and {@code f1} are passed: the rest of a row's 48-byte payload is derived
 * (see {@link RowPayload}): {@code f2 = key * 1_000_003 + side} (wrapping) and
 * {@code f3 = hex16(f2) ++ hex16(f1)}.
 * <p>
 * W1-W3 are insert-only: every row is a {@code +I}, passed to {@link #row}. W4 is a changelog: its inserts
 * come through {@link #row} as well, its updates through {@link #change} as a {@code -U} of the previous
 * version followed by a {@code +U} of the new one. A sink that only takes inserts keeps the default
 * {@link #change}, which refuses anything but an insert, so a changelog is never silently read as inserts.
 */
public interface WorkloadSink
{
    /** Side of a left-input row (impressions in W1, orders in W2/W3/W4). */
    int LEFT = 0;
    /** Side of a right-input row (clicks in W1, payments in W2/W3/W4). */
    int RIGHT = 1;

    /** Change kind {@code +I}, a new row (the ordinal of Junction's {@code ChangeKind}, Flink's {@code RowKind} byte). */
    byte INSERT = 0;
    /** Change kind {@code -U}: retracts the previous version of an updated row (an equal row added earlier). */
    byte UPDATE_BEFORE = 1;
    /** Change kind {@code +U}: the new version of an updated row. */
    byte UPDATE_AFTER = 2;
    /** Change kind {@code -D}: retracts a row (no workload has deletes yet). */
    byte DELETE = 3;

    /**
     * One row.
     *
     * @param side {@link #LEFT} or {@link #RIGHT}
     * @param key  join key
     * @param ts   event time in ms
     * @param f1   0-based sequence number of the row within its side
     */
    void row(int side, long key, long ts, long f1);

    /**
     * One changelog row: {@link #row} when {@code kind} is {@link #INSERT}. A retraction ({@link #UPDATE_BEFORE},
     * {@link #DELETE}) carries every field of the row it retracts. The default takes inserts only and throws for
     * any other kind; sinks that understand a changelog override it.
     *
     * @param side {@link #LEFT} or {@link #RIGHT}
     * @param kind {@link #INSERT}, {@link #UPDATE_BEFORE}, {@link #UPDATE_AFTER} or {@link #DELETE}
     * @param key  join key
     * @param ts   event time in ms
     * @param f1   the row's id within its side (W4: the unique key)
     * @throws UnsupportedOperationException for a kind other than {@link #INSERT}, unless overridden
     */
    default void change(final int side, final byte kind, final long key, final long ts, final long f1)
    {
        if (kind != INSERT)
        {
            throw new UnsupportedOperationException(getClass().getName() + " takes insert-only workloads (W1-W3), got a "
                + kindName(kind) + " row: W4 is a changelog");
        }
        row(side, key, ts, f1);
    }

    /**
     * A watermark for both inputs; strictly increasing within one sequence.
     *
     * @param watermark event time (ms) below or at which no more rows will come
     */
    void watermark(long watermark);

    /** End of input, equivalent to a watermark of +infinity; called exactly once, last. */
    void end();

    /**
     * @param kind a change kind of this interface
     * @return {@code +I}, {@code -U}, {@code +U} or {@code -D}
     * @throws IllegalArgumentException for any other value
     */
    static String kindName(final byte kind)
    {
        switch (kind)
        {
            case INSERT:
                return "+I";
            case UPDATE_BEFORE:
                return "-U";
            case UPDATE_AFTER:
                return "+U";
            case DELETE:
                return "-D";
            default:
                throw new IllegalArgumentException("change kind " + kind + " is none of +I (0), -U (1), +U (2), -D (3)");
        }
    }
}
