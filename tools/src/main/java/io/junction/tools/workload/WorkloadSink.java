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
 */
public interface WorkloadSink {
    /** Side of a left-input row (impressions in W1, orders in W2/W3). */
    int LEFT = 0;
    /** Side of a right-input row (clicks in W1, payments in W2/W3). */
    int RIGHT = 1;

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
     * A watermark for both inputs; strictly increasing within one sequence.
     *
     * @param watermark event time (ms) below or at which no more rows will come
     */
    void watermark(long watermark);

    /** End of input, equivalent to a watermark of +infinity; called exactly once, last. */
    void end();
}
