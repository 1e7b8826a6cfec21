package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.RowDescriptor;

import static io.junction.join.JoinPredicate.UNMATCHABLE;

/**
 * What one row changes in a {@link RegularJoin}, once its side's {@link JoinRecordStateView} has let it through:
 * an accumulated row is admitted, joined and stored; a retracted row is unjoined and removed (SEMANTICS 4).
 * <pre>
 * accumulate r:  user conditions evaluated (one throws: PREDICATE_FAILED, nothing changed)
 *                expired on arrival: joined with what is stored, never stored, no bucket created
 *                else admitted (PartitionState.admit: record, bucket, slot; STATE_FULL when it does not fit)
 *                joined (AssociationProbe); padded when unmatched unless pending; semi: +l when matched
 *                its count set, its timer scheduled (TTL, padded-row delay)
 * retract r:     its stored copy found (else RETRACTION_NOT_IN_STATE), its conditions evaluated
 *                unjoined; -(r, null) when its stored count is 0 and it is not pending; semi: -l when it had matches
 *                its timer cancelled, the record retired (and its bucket once empty)
 * </pre>
 * Retraction uses the stored count, not a recount: rows that expired by TTL keep the counts of the rows they
 * matched (SEMANTICS 4), so a row retracts what it contributed.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class RegularRowChanges
{
    private final OperatorParts parts;
    private final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final AssociationProbe probe;
    private final RegularRowTimers timers;
    private final boolean semi;

    /**
     * @param parts  the join's parts.
     * @param probe  the join's probe.
     * @param timers the join's timers.
     */
    RegularRowChanges(final OperatorParts parts, final AssociationProbe probe, final RegularRowTimers timers)
    {
        this.parts = parts;
        this.state = parts.state;
        this.predicate = parts.predicate;
        this.emit = parts.emit;
        this.probe = probe;
        this.timers = timers;
        this.semi = parts.spec.type() == JoinType.SEMI;
    }

    /**
     * An accumulated row, its join key in the predicate's key buffer.
     *
     * @param side       the row's side.
     * @param kind       its change kind.
     * @param row        the row.
     * @param ts         its event time.
     * @param step       its input sequence number.
     * @param keyLength  its join key's length, or {@link JoinPredicate#UNMATCHABLE}.
     * @param hash       the key's hash (0 when unmatchable).
     * @param liveBucket the key's bucket when the view has found it, else 0.
     * @return the row's stored record, or 0 when it was not stored (refused, or expired on arrival).
     */
    long accumulate(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash, final long liveBucket)
    {
        probe.reset();
        final boolean matchable = keyLength != UNMATCHABLE;
        if (probe.userConditions && matchable &&
            !probe.evaluate(side, row, keyLength, liveBucket != 0 ? liveBucket : state.index.find(hash)))
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.PREDICATE_FAILED);
            return 0;
        }
        if (matchable && parts.fanOutBounded() && refusesFanOut(side, kind, row, ts, step, hash, liveBucket))
        {
            return 0;
        }
        final long record;
        final long bucket;
        if (timers.expiredOnArrival(side, ts))
        {
            // Joined with what is stored, never stored: no bucket is created, so a full state refuses nothing.
            record = 0;
            bucket = matchable ? state.index.find(hash) : state.unmatchableBucket;
        }
        else
        {
            // Everything the row needs is taken before it has any effect: a row that does not fit is rejected
            // whole. Stored before the probe, which reads the other side's group only.
            record = parts.admit(side, kind, row, ts, step, Math.max(keyLength, 0), hash,
                matchable ? liveBucket : state.unmatchableBucket);
            if (record == PartitionState.REFUSED)
            {
                return 0;
            }
            bucket = state.admittedBucket;
        }
        if (matchable && bucket != 0 && !parts.fanOutBounded())
        {
            // Unbounded: the metric's figure, read from the bucket the admission found (a bounded join counted it above).
            parts.countFanOut(BucketDescriptor.count(bucket, side.other().ordinal()));
        }
        final int matches = matchable && bucket != 0 ? probe.join(side, kind, row, ts, step, keyLength, bucket, true) : 0;
        if (record == 0 && matchable && bucket != 0)
        {
            state.countKey(bucket, side, predicate.key, keyLength, 0);
        }
        // SEMANTICS 4.5-4.7: a stored, matchable row of a delayed side waits out its delay before it is padded.
        final boolean pending = record != 0 && matchable && timers.pendsOnArrival(side, ts);
        if (matches == 0 && emit.emitsUnmatched(side) && !pending)
        {
            emit.padded(ChangeKind.INSERT, side, row, ts, step);
        }
        else if (semi && side == Side.LEFT && matches > 0)
        {
            emit.padded(ChangeKind.INSERT, side, row, ts, step);
        }
        if (record == 0)
        {
            state.releaseIfEmpty(bucket);
            return 0;
        }
        RowDescriptor.count(state.base, record, matches);
        timers.scheduleStored(record, side, ts, pending);
        return record;
    }

    /**
     * The output budget (docs/SEMANTICS.md 1.5), checked before the row is admitted: its fan-out is the other side's
     * rows under its key hash, a count its bucket keeps (an upper bound of the pairs it joins: conditions come later).
     *
     * @return true when the row was dead-lettered FANOUT_EXCEEDED.
     */
    private boolean refusesFanOut(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final long hash,
        final long liveBucket)
    {
        final long bucket = liveBucket != 0 ? liveBucket : state.index.find(hash);
        return bucket != 0 && parts.refuseFanOut(BucketDescriptor.count(bucket, side.other().ordinal()), side, kind, row, ts, step);
    }

    /**
     * A retracted row whose stored copy is found by join key and row bytes.
     *
     * @param side      the row's side.
     * @param kind      its change kind.
     * @param row       the row.
     * @param ts        its event time.
     * @param step      its input sequence number.
     * @param keyLength its join key's length, or {@link JoinPredicate#UNMATCHABLE}.
     * @param hash      the key's hash (0 when unmatchable).
     */
    void retractEqual(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long hash)
    {
        probe.reset();
        // Retractions only join with what is stored: they create no bucket (0 when the key has none).
        final long bucket = keyLength == UNMATCHABLE ? state.unmatchableBucket : state.index.find(hash);
        final long record = bucket == 0 ? 0 : state.store.findEqual(bucket, side.ordinal(), predicate.key, 0, Math.max(keyLength, 0),
            row.buffer(), row.offset(), row.length());
        if (record == 0)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
            return;
        }
        if (conditionsHold(side, kind, row, ts, step, keyLength, bucket))
        {
            retract(side, kind, row, ts, step, keyLength, bucket, record);
        }
    }

    /**
     * Evaluates a retracted row's user conditions with the other side's rows of its bucket before it has any
     * effect ({@link AssociationProbe#evaluate}).
     *
     * @return false, with the row dead-lettered PREDICATE_FAILED, when one threw.
     */
    boolean conditionsHold(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long bucket)
    {
        if (probe.evaluate(side, row, keyLength, bucket))
        {
            return true;
        }
        emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.PREDICATE_FAILED);
        return false;
    }

    /**
     * Retracts the stored record of the row: unjoins it, emits its padding and removes it from the state.
     *
     * @param side      the row's side.
     * @param kind      its change kind.
     * @param row       the row.
     * @param ts        its event time.
     * @param step      its input sequence number.
     * @param keyLength its join key's length, or {@link JoinPredicate#UNMATCHABLE}.
     * @param bucket    the record's bucket.
     * @param record    the stored copy.
     */
    void retract(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final int keyLength,
        final long bucket, final long record)
    {
        if (keyLength != UNMATCHABLE)
        {
            probe.join(side, kind, row, ts, step, keyLength, bucket, false);
            state.countKey(bucket, side, predicate.key, keyLength, 0);
        }
        final int count = RowDescriptor.count(record);
        if (count == 0 && emit.emitsUnmatched(side) && !RegularRowTimers.isPending(record))
        {
            emit.padded(ChangeKind.DELETE, side, row, ts, step);
        }
        else if (semi && side == Side.LEFT && count > 0)
        {
            emit.padded(ChangeKind.DELETE, side, row, ts, step);
        }
        timers.cancel(record);
        state.retire(record);
    }
}
