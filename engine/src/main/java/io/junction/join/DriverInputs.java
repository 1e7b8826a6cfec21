package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.internal.metrics.JoinCounters;

/**
 * The input-indexed entries of an {@link OperatorDriver} built for N inputs (a {@link DriverShape} with inputs
 * &gt; 0: the multi-way join, docs/SEMANTICS.md "Multi-way joins"): what the driver's two-sided
 * {@code onRow}/{@code onWatermark}/{@code onIdle} are for two sides, over the N inputs' watermarks
 * ({@link InputWatermarks}). The driver composes it once over its own state, counters, N inputs' watermarks and
 * algorithm, and hands it out ({@link OperatorDriver#inputs()}); {@link MultiJoin} maps its operator methods onto it.
 * <pre>
 * onInputRowOf(i[, keyHash]):   state.beginMutation; rowsIn++; inputs.markActive(i); algorithm.onInputRow(i, ...[, keyHash])
 *                               (the key hash only when the driver's state takes supplied hashes; else none)
 * onInputWatermarkOf(i, w), onInputsWatermark(w), onInputIdleOf(i):
 *                               state.beginMutation; if the N inputs' join watermark moved: algorithm.onWatermark(it, step)
 * </pre>
 * Not sliced: the N inputs' watermark work is done whole, so nothing here touches the driver's queue of pending
 * watermark work. Per event one call more than the driver's own and no allocation.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class DriverInputs
{
    private final PartitionState state;
    private final JoinCounters counters;
    private final InputWatermarks watermarks;
    private final JoinAlgorithm algorithm;
    /** Whether a key hash given with a row is the state's (the driver's rule: the configuration's seed is fixed and the state's). */
    private final boolean suppliedHashes;

    /**
     * @param state          the driver's partition state.
     * @param counters       the driver's counters.
     * @param watermarks     the N inputs' watermarks, the driver's.
     * @param algorithm      the kind's algorithm.
     * @param suppliedHashes whether the algorithm takes a key hash given with a row as it is.
     */
    DriverInputs(
        final PartitionState state, final JoinCounters counters, final InputWatermarks watermarks, final JoinAlgorithm algorithm,
        final boolean suppliedHashes)
    {
        this.state = state;
        this.counters = counters;
        this.watermarks = watermarks;
        this.algorithm = algorithm;
        this.suppliedHashes = suppliedHashes;
    }

    /**
     * One row of input {@code input} of a join of N inputs.
     *
     * @param input the input's index; one out of range is the algorithm's to dead-letter.
     * @param kind  its change kind.
     * @param row   the row, valid during the call only.
     * @param ts    its event time in ms.
     * @param step  its input sequence number.
     */
    void onInputRowOf(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        acceptInputRow(input);
        algorithm.onInputRow(input, kind, row, ts, step);
    }

    /**
     * As {@link #onInputRowOf(int, ChangeKind, RowView, long, long)}, with the row's key hash from the runtime's
     * publisher: the algorithm takes it when the configuration's seed is fixed and is the state's, as the driver's
     * {@code onRow} with a key hash decides; otherwise it hashes the key itself.
     *
     * @param input   the input's index; one out of range is the algorithm's to dead-letter.
     * @param kind    its change kind.
     * @param row     the row, valid during the call only.
     * @param ts      its event time in ms.
     * @param step    its input sequence number.
     * @param keyHash the seeded hash of the row's key, as input {@code input}'s key extractor encodes it.
     */
    void onInputRowOf(final int input, final ChangeKind kind, final RowView row, final long ts, final long step, final long keyHash)
    {
        acceptInputRow(input);
        if (suppliedHashes)
        {
            algorithm.onInputRow(input, kind, row, ts, step, keyHash);
        }
        else
        {
            algorithm.onInputRow(input, kind, row, ts, step);
        }
    }

    private void acceptInputRow(final int input)
    {
        state.beginMutation();
        counters.rowsIn++;
        watermarks.markActive(input);
    }

    /**
     * Advances the watermark of input {@code input} of a join of N inputs.
     *
     * @param input     the input's index; one out of range changes nothing.
     * @param watermark its new watermark; a lower one than before is ignored.
     * @param step      the input sequence number of the watermark.
     */
    void onInputWatermarkOf(final int input, final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advance(input, watermark))
        {
            algorithm.onWatermark(watermarks.current(), step);
        }
    }

    /**
     * Advances every input's watermark of a join of N inputs.
     *
     * @param watermark the new watermark of every input.
     * @param step      the input sequence number of the watermark.
     */
    void onInputsWatermark(final long watermark, final long step)
    {
        state.beginMutation();
        if (watermarks.advanceAll(watermark))
        {
            algorithm.onWatermark(watermarks.current(), step);
        }
    }

    /**
     * Marks input {@code input} of a join of N inputs idle.
     *
     * @param input the input's index; one out of range changes nothing.
     * @param step  the input sequence number of the idleness event.
     */
    void onInputIdleOf(final int input, final long step)
    {
        state.beginMutation();
        if (watermarks.markIdle(input))
        {
            algorithm.onWatermark(watermarks.current(), step);
        }
    }
}
