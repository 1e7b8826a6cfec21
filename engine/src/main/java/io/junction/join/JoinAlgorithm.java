package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;

import java.nio.ByteBuffer;

/**
 * What one join kind is, once the {@link OperatorDriver} has taken the lifecycle away from it: what a row
 * matches, what it stores, what it emits, and what expires when the join's watermark moves. The driver owns
 * the counters, the watermark tracker, the partition state, the emitter and the heap part, and calls these
 * methods in the order its Javadoc draws; an algorithm never advances a watermark, never persists, never
 * closes anything, and never counts a row in.
 * <pre>
 * driver                                   algorithm
 *   onRow(side, kind, row, ts, step)   -&gt;   onRow: match, store (PartitionState.admit), emit
 *   join watermark advanced to w       -&gt;   onWatermark(w, step): fire and expire what w closes
 *   end of input                       -&gt;   onEndOfInput(step): close everything still open
 *   persist / close (durable)          -&gt;   save(out): the algorithm's own heap-held fields
 *   reopen                             -&gt;   load(in): what save wrote, in the same order
 *   counters()                         -&gt;   pendingTimers(): timers of its own wheels
 * </pre>
 * An algorithm is built by a {@link Factory} over the driver's {@link OperatorParts}, and keeps the parts it
 * uses in final fields of its own. Per event it allocates nothing.
 *
 * <p>Ported to the driver: {@link IntervalJoin}, {@link TemporalJoin}, {@link LookupJoin}, {@link AsofJoin}, and the
 * window joins {@link TimeWindowJoin} (tumbling, sliding) and {@link SessionWindowJoin}, which each hold a
 * {@link WindowBuckets} for the firing they share ({@link WindowAlgorithm}). Not yet (each still a {@link JoinOperator} of its own):
 * {@link RegularJoin}, {@link MultiJoin}.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
interface JoinAlgorithm
{
    /** Builds a kind's algorithm over the parts its driver has made (once, at construction). */
    interface Factory
    {
        /**
         * @param parts the driver's parts: spec, state, predicate, emitter, counters, watermarks.
         * @return the algorithm, holding what it needs of {@code parts}.
         */
        JoinAlgorithm create(OperatorParts parts);
    }

    /**
     * One input row, already counted in and its side marked active by the driver, the state marked dirty.
     *
     * @param side the input.
     * @param kind its change kind.
     * @param row  the row, valid during the call only.
     * @param ts   its event time in ms.
     * @param step its input sequence number, carried to every output it causes.
     */
    void onRow(Side side, ChangeKind kind, RowView row, long ts, long step);

    /**
     * The join's watermark has moved forward (a side's watermark, both, or an idle mark moved it): fires and
     * expires what it closed.
     *
     * @param watermark the join's new watermark, ms.
     * @param step      the input sequence number of the event that moved it, carried to what this emits.
     */
    void onWatermark(long watermark, long step);

    /**
     * The end of input, after the driver has moved both watermarks to +infinity: closes everything.
     *
     * @param step the input sequence number of the end of input.
     */
    void onEndOfInput(long step);

    /**
     * Writes the algorithm's own heap-held fields, after the driver's counters and watermarks (durable mode).
     *
     * @param out the heap image.
     */
    default void save(final ByteBuffer out)
    {
    }

    /**
     * Reads what {@link #save} wrote, in the same order.
     *
     * @param in the heap image, at the algorithm's part.
     */
    default void load(final ByteBuffer in)
    {
    }

    /** @return the timers pending in the algorithm's own wheels (the state's wheel is counted by the state). */
    default long pendingTimers()
    {
        return 0;
    }
}
