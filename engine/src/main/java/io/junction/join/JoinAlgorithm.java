package io.junction.join;

import io.junction.internal.state.RowDescriptor;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;

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
 *   join watermark advanced to w       -&gt;   expireSlice(w, step, budget) until true: fire and expire what
 *                                              w closes, budget rows at a time (default: onWatermark(w, step))
 *   end of input                       -&gt;   onEndOfInput(step): close everything still open
 *   persist / close (durable)          -&gt;   save(out): the algorithm's own heap-held fields
 *   reopen                             -&gt;   load(in): what save wrote, in the same order
 *   counters()                         -&gt;   pendingTimers(): timers of its own wheels; refreshCounters
 *   inputs().onInputRowOf(i, kind, ...) -&gt; onInputRow: a row of input i of a join of N inputs ({@link DriverInputs})
 * </pre>
 * An algorithm is built by a {@link Factory} over the driver's {@link OperatorParts}, and keeps the parts it
 * uses in final fields of its own. Per event it allocates nothing.
 *
 * <p>The kinds' algorithms: {@link IntervalJoin}, {@link TemporalJoin}, {@link LookupJoin},
 * {@link AsofJoin}, {@link RegularJoin}, the window joins {@link TimeWindowJoin} (tumbling, sliding) and
 * {@link SessionWindowJoin}, which each hold a {@link WindowBuckets} for the firing they share
 * ({@link WindowAlgorithm}), and {@link MultiWayJoin} (N inputs, behind {@link MultiJoin}).
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
     * One row of input {@code input} of a join of N inputs (its driver built with inputs &gt; 0), already counted
     * in and its input marked active by the driver, the state marked dirty. A two-sided kind is never called here
     * by its driver; the default forwards input 0 as the left side and any other as the right.
     *
     * @param input the input's index in the spec (one out of range is the algorithm's to dead-letter).
     * @param kind  its change kind.
     * @param row   the row, valid during the call only.
     * @param ts    its event time in ms.
     * @param step  its input sequence number, carried to every output it causes.
     */
    default void onInputRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        onRow(Side.of(input), kind, row, ts, step);
    }

    /**
     * As {@link #onInputRow(int, ChangeKind, RowView, long, long)}, with the row's key hash supplied by the
     * runtime's publisher (the function and seed the state's own hash would use): its driver calls this only
     * when the configuration's seed is fixed and is the state's ({@link OperatorDriver}), the five-argument
     * method otherwise. The default ignores the hash.
     *
     * @param input   the input's index in the spec.
     * @param kind    its change kind.
     * @param row     the row, valid during the call only.
     * @param ts      its event time in ms.
     * @param step    its input sequence number, carried to every output it causes.
     * @param keyHash the seeded hash of the row's key, as input {@code input}'s key extractor encodes it.
     */
    default void onInputRow(
        final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
    {
        onInputRow(input, kind, row, ts, step);
    }

    /**
     * The join's watermark has moved forward (a side's watermark, both, or an idle mark moved it): fires and
     * expires what it closed.
     *
     * @param watermark the join's new watermark, ms.
     * @param step      the input sequence number of the event that moved it, carried to what this emits.
     */
    void onWatermark(long watermark, long step);

    /**
     * Bounded watermark work (docs/SEMANTICS.md 3, "Watermark work is sliced"): does at most {@code budget} rows or
     * timers of what {@link #onWatermark} would do for {@code watermark}, and says whether any is left. The driver
     * calls it again, with the same watermark and step, until it returns true, with rows and further watermarks
     * in between; so a kind may slice only where it has shown that a row the watermark has closed, still stored
     * until its slice comes, can no longer match, count or change anything a row that arrives in between
     * does (see each kind's Javadoc). The default does all of {@link #onWatermark} at once: a kind that does not
     * override it is not sliced.
     *
     * @param watermark the join's watermark this work is for (the join's current one may be higher by now).
     * @param step      the input sequence number of the event that moved it, carried to what this emits.
     * @param budget    the most rows or timers to close in this call, at least 1.
     * @return true when the work for {@code watermark} is done; false when more is left.
     */
    default boolean expireSlice(final long watermark, final long step, final int budget)
    {
        onWatermark(watermark, step);
        return true;
    }

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

    /**
     * The state is at a limit while a row is admitted ({@link PartitionState#admit}): frees room for one row by
     * the {@link FullPolicy}, for a kind that can evict rows early (the regular join's EXPIRE_OLDEST).
     *
     * @return false when nothing could be freed (the default: the row is refused).
     */
    default boolean makeRoom()
    {
        return false;
    }

    /** @return the bytes {@link #save} writes beyond the heap image's fixed room of 64 KiB (a queue that grows with the rows). */
    default int savedLength()
    {
        return 0;
    }

    /**
     * Corrects the counters after the driver has written the state's sizes into them, for a kind whose rows the
     * state's row store does not count itself (the multi-way join's live rows per input).
     *
     * @param counters the operator's counters.
     */
    default void refreshCounters(final JoinCounters counters)
    {
    }

    /** @return the timers pending in the algorithm's own wheels (the state's wheel is counted by the state). */
    default long pendingTimers()
    {
        return 0;
    }

    /**
     * @return whether the kind keeps its rows in the state's buckets of the join key's hash, as the records of
     *         {@link PartitionState}'s store, so that {@link KeyInspector} lists a key's rows (docs/SEMANTICS.md 14);
     *         false by default: a kind says so only once a test has listed its rows.
     */
    default boolean inspectable()
    {
        return false;
    }

    /**
     * @param record a stored record of the kind's state.
     * @return the watermark past which it leaves the state or is acted on (its timer's deadline), or
     *         {@link Long#MAX_VALUE} when no timer holds it; for {@link KeyInspector}. By default its deadline
     *         field, which a kind that schedules every stored record keeps.
     */
    default long due(final long record)
    {
        return RowDescriptor.deadline(record);
    }

    /**
     * The code a pair of {@code row} with a stored record of the other side under its key would get now
     * (docs/SEMANTICS.md 14), for {@link KeyInspector#explain}: by default the join condition's, which is all a
     * regular join asks of a pair of equal keys; a kind with a time bound tests it first.
     *
     * @param predicate the join's predicate (the record is wrapped in its {@code otherRow}).
     * @param side      the side of {@code row}.
     * @param row       the explained row.
     * @param ts        its event time.
     * @param other     the stored record.
     * @param detail    where the sentence that says why goes.
     * @return {@code MATCHED}, {@code CONDITION_FAILED} or the kind's own code.
     */
    default String explainPair(
        final JoinPredicate predicate, final Side side, final RowView row, final long ts, final long other,
        final StringBuilder detail)
    {
        return KeyInspector.conditionCode(predicate, side, row, other, detail);
    }

    /**
     * @param record a stored record of the kind's state.
     * @return the rows of the other side it has joined, as the kind counts them for outer padding, or -1 for a kind
     *         whose count field holds flags instead (temporal, lookup, ASOF); for {@link KeyInspector}.
     */
    default int matches(final long record)
    {
        return RowDescriptor.count(record);
    }

    /**
     * @return whether {@link #explainPair} decides this kind's pairs as the kind does (docs/SEMANTICS.md 14): the
     *         regular, interval, temporal, lookup and ASOF kinds (each deciding as it selects).
     */
    default boolean explainable()
    {
        return false;
    }

    /**
     * @return whether a stored row has joined the stored rows of the other side it matches (a regular or interval
     *         join joins a row as it arrives); false for a kind whose stored rows wait to be decided (a temporal
     *         join's left rows join the version in force when the watermark reaches them): for the fate
     *         {@link KeyInspector#explain} gives a stored row.
     */
    default boolean joinsOnArrival()
    {
        return true;
    }
}
