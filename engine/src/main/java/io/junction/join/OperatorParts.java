package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinSpec;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.time.WatermarkTracker;

import java.util.function.BooleanSupplier;

/**
 * The parts an {@link OperatorDriver} owns, handed to its {@link JoinAlgorithm} once, at construction: the
 * spec and configuration, the compiled predicate, the partition state, the emitter, the counters and the
 * watermark tracker. The algorithm reads and changes them on the partition thread; the driver alone
 * advances the watermarks, counts rows in, persists, restores and closes.
 *
 * <p>Besides holding the parts it is the one refusal path of every kind: {@link #keyOf} dead-letters a
 * row whose key is refused ({@code KEY_TOO_LONG}, {@code PREDICATE_FAILED}) and {@link #admit} a row that does
 * not fit the state ({@code STATE_FULL}), so that an algorithm only tests for {@link #REFUSED}.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class OperatorParts
{
    /** Returned by {@link #keyOf} for a row it has dead-lettered (below every {@link JoinPredicate} code). */
    static final int REFUSED = -100;

    /** The join. */
    final JoinSpec spec;
    /** The configuration as given (its sizing: tick shift, wheel slots); the state's {@link PartitionState#config} has the stored hash seed. */
    final StateConfig config;
    /** The spec's keys, filters and condition, compiled. */
    final CompiledJoin compiled;
    /** The stored rows and their limits. */
    final PartitionState state;
    /** The spec's predicate over the row in hand; its error handler was handed in. */
    final JoinPredicate predicate;
    /** Where output and dead letters go. */
    final Emitter emit;
    /** The fold the emitter's output goes through with upsert output (flushed by the algorithm at the end of each event), else null. */
    final UpsertFold fold;
    /** The operator's counters, shared by the state, the predicate and the emitter. */
    final JoinCounters counters;
    /** The inputs' watermarks: read by the algorithm, advanced by the driver only. */
    final WatermarkTracker watermarks;
    /** The spec's output budget of one inserted row ({@link JoinSpec#maxFanOut()}), 0 unbounded. */
    final long maxFanOut;
    /** The watermarks of a join of N inputs (read by its algorithm, advanced by the driver only); null for a two-sided kind. */
    final InputWatermarks inputs;
    /**
     * Set by the driver before the algorithm is built: finishes every watermark's work still pending in slices
     * ({@link JoinAlgorithm#expireSlice}) and says whether there was any; called only off the hot path (a row the
     * state refused, which may fit once the rows already closed have left). Null: nothing is ever pending.
     */
    BooleanSupplier watermarkWork;

    /**
     * @param spec        the join.
     * @param config      the configuration as given.
     * @param compiled    the spec compiled.
     * @param state       the partition state.
     * @param predicate   the predicate.
     * @param emit        the emitter.
     * @param fold        the emitter's upsert fold, or null.
     * @param counters    the counters.
     * @param watermarks  the watermark tracker.
     * @param inputs      the N inputs' watermarks, null for a two-sided kind.
     */
    OperatorParts(
        final JoinSpec spec, final StateConfig config, final CompiledJoin compiled, final PartitionState state,
        final JoinPredicate predicate, final Emitter emit, final UpsertFold fold, final JoinCounters counters,
        final WatermarkTracker watermarks, final InputWatermarks inputs)
    {
        this.spec = spec;
        this.config = config;
        this.compiled = compiled;
        this.state = state;
        this.predicate = predicate;
        this.emit = emit;
        this.fold = fold;
        this.counters = counters;
        this.watermarks = watermarks;
        this.inputs = inputs;
        this.maxFanOut = spec.maxFanOut();
    }

    /**
     * Counts an inserted row's fan-out for the metrics only (an unbounded join, once the row's bucket is at hand).
     *
     * @param fanOut the row's fan-out.
     */
    void countFanOut(final long fanOut)
    {
        if (fanOut > counters.maxFanOut)
        {
            counters.maxFanOut = fanOut;
        }
    }

    /** @return whether the spec declares an output budget, so that a row's fan-out must be known before it is stored. */
    boolean fanOutBounded()
    {
        return maxFanOut > 0;
    }

    /**
     * Counts an inserted row's fan-out (the stored rows it would join, docs/SEMANTICS.md 1.5) and refuses the row
     * past the declared budget, before it has any effect: a {@code FANOUT_EXCEEDED} dead letter, nothing emitted or
     * stored, so the changelog stays exact.
     *
     * @param fanOut the row's fan-out, from counts the state keeps.
     * @param side   the input.
     * @param kind   its change kind.
     * @param row    the row.
     * @param ts     its event time.
     * @param step   its input sequence number.
     * @return true when the row was dead-lettered.
     */
    boolean refuseFanOut(
        final long fanOut, final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        countFanOut(fanOut);
        if (maxFanOut > 0 && fanOut > maxFanOut)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.FANOUT_EXCEEDED);
            return true;
        }
        return false;
    }

    /**
     * Extracts the row's join key into {@code predicate.key} and applies its side's pre-filter; a refused key
     * is dead-lettered here.
     *
     * @param side the input.
     * @param kind its change kind.
     * @param row  the row.
     * @param ts   its event time.
     * @param step its input sequence number.
     * @return the key length, {@link JoinPredicate#UNMATCHABLE} (null key or failed filter), or
     *         {@link #REFUSED} when the row has been dead-lettered.
     */
    int keyOf(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        return refuseKey(predicate.extractKey(side, row), side, kind, row, ts, step);
    }

    /**
     * Dead-letters a row whose key {@link JoinPredicate} refused.
     *
     * @param keyLength what the predicate's key extraction returned.
     * @param side      the input.
     * @param kind      its change kind.
     * @param row       the row.
     * @param ts        its event time.
     * @param step      its input sequence number.
     * @return {@code keyLength}, or {@link #REFUSED} when it was a refusal and the row has been dead-lettered.
     */
    int refuseKey(
        final int keyLength, final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        final DeadLetterReason refused = JoinPredicate.refusal(keyLength);
        if (refused == null)
        {
            return keyLength;
        }
        emit.deadLetter(side, kind, row, ts, step, refused);
        return REFUSED;
    }

    /**
     * Finishes the watermark work the driver has pending in slices, before a retry of what room the rows it will
     * close still hold refused.
     *
     * @return whether any was pending (and so a retry may succeed).
     */
    boolean finishWatermarkWork()
    {
        return watermarkWork != null && watermarkWork.getAsBoolean();
    }

    /**
     * Stores a row under the key in {@code predicate.key} ({@link PartitionState#admit}); a row that does not fit
     * is dead-lettered {@code STATE_FULL} here, whole, and nothing is changed. With {@code bucket} 0, a refusal
     * first finishes the watermark work pending in slices ({@link #finishWatermarkWork}) and tries once more.
     *
     * @param side      the input.
     * @param kind      its change kind.
     * @param row       the row.
     * @param ts        its event time.
     * @param step      its input sequence number.
     * @param keyLength the key's length.
     * @param hash      the key's hash.
     * @param bucket    the key's bucket when the caller has found it, else 0 (found or created here).
     * @return the row's record (its bucket in {@link PartitionState#admittedBucket}), or
     *         {@link PartitionState#REFUSED} when it was dead-lettered.
     */
    long admit(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash, final long bucket)
    {
        long record = state.admit(side, bucket, hash, predicate.key, keyLength, row, ts);
        if (record == PartitionState.REFUSED && bucket == 0 && finishWatermarkWork())
        {
            // Rows a watermark closed still held room until their slice: without slicing they would have left before
            // this row, so they leave now and the row is offered again (the caller holds no bucket they could free).
            record = state.admit(side, 0, hash, predicate.key, keyLength, row, ts);
        }
        if (record == PartitionState.REFUSED)
        {
            refuseFull(side, kind, row, ts, step);
        }
        return record;
    }

    /**
     * As {@link #admit(Side, ChangeKind, RowView, long, long, int, long, long)} for a record taken by
     * {@link #reserve}: a refusal frees it and dead-letters the row (the caller frees the rest of its records).
     *
     * @param reserved  the row's record.
     * @param side      the input.
     * @param kind      its change kind.
     * @param row       the row.
     * @param ts        its event time.
     * @param step      its input sequence number.
     * @param keyLength the key's length.
     * @param hash      the key's hash.
     * @param bucket    the key's bucket when the caller has found it, else 0.
     * @return the row's record, or {@link PartitionState#REFUSED} when it was dead-lettered.
     */
    long admit(
        final long reserved, final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
        final int keyLength, final long hash, final long bucket)
    {
        final long record = state.admit(reserved, side, bucket, hash, predicate.key, keyLength, row, ts);
        if (record == PartitionState.REFUSED)
        {
            refuseFull(side, kind, row, ts, step);
        }
        return record;
    }

    /**
     * Takes {@code n} records for a row stored in several places ({@link PartitionState#reserve(int, Side, int, RowView, long[])}),
     * all or none; none is dead-lettered {@code STATE_FULL} here.
     *
     * @param n         the records.
     * @param keyLength the key length of each.
     * @param side      the input.
     * @param kind      its change kind.
     * @param row       the row.
     * @param ts        its event time.
     * @param step      its input sequence number.
     * @param into      receives the records.
     * @return false when the row was dead-lettered.
     */
    boolean reserve(
        final int n, final int keyLength, final Side side, final ChangeKind kind, final RowView row, final long ts,
        final long step, final long[] into)
    {
        if (state.reserve(n, side, keyLength, row, into))
        {
            return true;
        }
        refuseFull(side, kind, row, ts, step);
        return false;
    }

    /** The one {@code STATE_FULL} dead letter: the row did not fit the state and nothing of it was stored. */
    private void refuseFull(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
    }
}
