package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import io.junction.metrics.OperatorCounters;

import static io.junction.join.JoinPredicate.TOO_LONG;
import static io.junction.join.JoinPredicate.UNMATCHABLE;
import static io.junction.join.TimeMath.saturatedAdd;

/**
 * The regular (unbounded) join with a retraction changelog, as Flink SQL's
 * {@code StreamingJoinOperator} and {@code StreamingSemiAntiJoinOperator} (SPEC 2.1).
 *
 * <p>Predicate: keys equal (a null key matches nothing), both rows pass their side's pre-filter,
 * and the post-join condition holds. Every row is stored until it is retracted or, with a state TTL,
 * until the watermark passes {@code ts + stateTtl}. Each stored row carries its association count:
 * the number of other-side rows it matched, so that outer and semi/anti output can change state
 * exactly when a count crosses zero.
 * <pre>
 * on row r of side S, other side O, kind k:
 *   if k retracts and no stored copy of r: dead-letter, stop
 *   for each stored o of O matching r:
 *     accumulate: if O is outer and o.count == 0: emit -(o, null);  o.count++;  emit k(r, o)
 *     retract:    emit k(r, o);  o.count--;  if O is outer and o.count == 0: emit +(o, null)
 *   if S is outer and r matched nothing: emit +(r, null) / -(r, null)
 *   accumulate: store r with its count (unless already older than watermark - stateTtl)
 *   retract:    remove the stored copy
 * semi: +l when l's count goes 0 -> 1, -l when 1 -> 0.  anti: +l while 0, -l when it leaves 0.
 * </pre>
 * Output timestamps are max(left.ts, right.ts) for pairs and the row's own ts when padded. Expiry
 * by TTL emits nothing and leaves the counts of the rows that the expired row matched as they are,
 * so nothing emitted is retracted by expiry.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class RegularJoin implements JoinOperator
{
    private final JoinCounters counters = new JoinCounters();
    private final WatermarkTracker watermarks = new WatermarkTracker();
    /** The stored rows; package-private for tests that look at the index and the store. */
    final PartitionState state;
    private final JoinPredicate predicate;
    private final Emitter emit;
    private final boolean semiOrAnti;
    private final boolean semi;
    private final long stateTtl;
    private final TimerWheel.ExpiryHandler expiry = this::expire;

    /**
     * Creates the operator and allocates its off-heap state.
     *
     * @param spec        a regular join.
     * @param config      the sizing of the off-heap state.
     * @param results     receives the output.
     * @param deadLetters receives the rows that cannot be processed.
     * @throws IllegalArgumentException when the spec is of another join kind.
     */
    public RegularJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        JoinOperators.requireKind(spec, JoinKind.REGULAR);
        final CompiledJoin compiled = CompiledJoin.of(spec);
        this.emit = new Emitter(spec.type(), results, deadLetters, counters);
        this.state = new PartitionState(config, BucketDescriptor.LENGTH, spec.stateTtl() > 0, counters, this::makeRoom);
        this.predicate = new JoinPredicate(compiled, config, state.store, counters);
        this.semiOrAnti = spec.type().isSemiOrAnti();
        this.semi = spec.type() == JoinType.SEMI;
        this.stateTtl = spec.stateTtl();
    }

    @Override
    public void prefetch(final long keyHash)
    {
        state.prefetch(keyHash);
    }

    @Override
    public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
    {
        counters.rowsIn++;
        watermarks.markActive(side);
        final int keyLength = predicate.extractKey(side, row);
        if (keyLength == TOO_LONG)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.KEY_TOO_LONG);
            return;
        }
        final boolean accumulate = kind.isAccumulate();
        final int storedKeyLength = Math.max(keyLength, 0);
        // An accumulated row's record is taken before it has any effect: a row that does not fit is
        // rejected whole, never joined and then lost.
        final boolean stores = accumulate && !isExpiredOnArrival(ts);
        final long reserved = stores ? state.reserve(storedKeyLength, row) : 0;
        if (stores && reserved == 0)
        {
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }
        final long bucket;
        if (keyLength == UNMATCHABLE)
        {
            bucket = state.unmatchableBucket;
        }
        else if (accumulate)
        {
            bucket = findOrCreate(predicate.keyHash(keyLength));
            if (bucket == KeyIndex.FULL)
            {
                if (reserved != 0)
                {
                    state.store.release(reserved, storedKeyLength, row.length());
                }
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
                return;
            }
        }
        else
        {
            bucket = state.index.find(predicate.keyHash(keyLength));
        }
        if (reserved != 0 && !state.reserveSlot(bucket, side, reserved, storedKeyLength, row))
        {
            state.releaseIfEmpty(bucket);
            emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.STATE_FULL);
            return;
        }

        if (accumulate)
        {
            final int matches = keyLength == UNMATCHABLE ? 0 : probe(side, kind, row, ts, step, keyLength, bucket, true);
            if (matches == 0 && emit.emitsUnmatched(side))
            {
                emit.padded(ChangeKind.INSERT, side, row, ts, step);
            }
            else if (semi && side == Side.LEFT && matches > 0)
            {
                emit.padded(ChangeKind.INSERT, side, row, ts, step);
            }
            if (reserved == 0)
            {
                // Expired on arrival: joined, never stored.
                state.releaseIfEmpty(bucket);
                return;
            }
            final long record = state.store.append(reserved, bucket, side, predicate.key, 0, storedKeyLength, row, ts);
            RowDescriptor.count(record, matches);
            if (stateTtl > 0)
            {
                scheduleExpiry(record, ts);
            }
        }
        else
        {
            final long record = bucket == 0 ? 0 : state.store.findEqual(bucket, side, predicate.key, 0, storedKeyLength, row);
            if (record == 0)
            {
                emit.deadLetter(side, kind, row, ts, step, DeadLetterReason.RETRACTION_NOT_IN_STATE);
                return;
            }
            if (keyLength != UNMATCHABLE)
            {
                probe(side, kind, row, ts, step, keyLength, bucket, false);
            }
            // The stored count, not a recount: rows that expired by TTL keep the counts of the rows they
            // matched (SPEC 2.1), so the row retracts what it contributes, not what a recount would say.
            final int count = RowDescriptor.count(record);
            if (count == 0 && emit.emitsUnmatched(side))
            {
                emit.padded(ChangeKind.DELETE, side, row, ts, step);
            }
            else if (semi && side == Side.LEFT && count > 0)
            {
                emit.padded(ChangeKind.DELETE, side, row, ts, step);
            }
            removeRecord(record);
            state.releaseIfEmpty(bucket);
        }
    }

    /**
     * Joins the row with the matching rows of the other side, updating their association counts.
     *
     * @return how many rows of the other side the row matches.
     */
    private int probe(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step,
        final int keyLength, final long bucket, final boolean accumulate)
    {
        final Side otherSide = side.other();
        final boolean otherOuter = emit.padsUnmatched(otherSide);
        final boolean updatesLeftRows = semiOrAnti && side == Side.RIGHT;
        int matches = 0;
        final long rows = BucketDescriptor.rows(bucket, otherSide);
        final int slots = RowGroup.slots(rows);
        for (int i = 0; i < slots; i++)
        {
            if ((i & (RowGroup.TOUCH_GROUP - 1)) == 0 && slots > 1)
            {
                state.touch(rows, i, Math.min(slots, i + RowGroup.TOUCH_GROUP));
            }
            final long other = RowGroup.record(rows, i);
            if (other == 0 || !predicate.matches(other, keyLength, side, row))
            {
                continue;
            }
            matches++;
            if (semiOrAnti)
            {
                if (updatesLeftRows)
                {
                    final int count = RowDescriptor.count(other);
                    final long otherTs = RowDescriptor.ts(other);
                    if (accumulate)
                    {
                        RowDescriptor.count(other, count + 1);
                        if (count == 0)
                        {
                            emit.padded(semi ? ChangeKind.INSERT : ChangeKind.DELETE, Side.LEFT, predicate.otherRow, otherTs, step);
                        }
                    }
                    else
                    {
                        RowDescriptor.count(other, count - 1);
                        if (count == 1)
                        {
                            emit.padded(semi ? ChangeKind.DELETE : ChangeKind.INSERT, Side.LEFT, predicate.otherRow, otherTs, step);
                        }
                    }
                }
                continue;
            }
            final long otherTs = RowDescriptor.ts(other);
            final long pairTs = Math.max(ts, otherTs);
            if (accumulate)
            {
                final int count = RowDescriptor.count(other);
                if (otherOuter && count == 0)
                {
                    emit.padded(ChangeKind.DELETE, otherSide, predicate.otherRow, otherTs, step);
                }
                RowDescriptor.count(other, count + 1);
                emit.pair(otherOuter || emit.padsUnmatched(side) ? ChangeKind.INSERT : kind, side, row, predicate.otherRow, pairTs, step);
            }
            else
            {
                emit.pair(otherOuter || emit.padsUnmatched(side) ? ChangeKind.DELETE : kind, side, row, predicate.otherRow, pairTs, step);
                final int count = RowDescriptor.count(other) - 1;
                RowDescriptor.count(other, count);
                if (otherOuter && count == 0)
                {
                    emit.padded(ChangeKind.INSERT, otherSide, predicate.otherRow, otherTs, step);
                }
            }
        }
        return matches;
    }

    /** @return the key's bucket, making room by the policy while the index is full, or {@link KeyIndex#FULL}. */
    private long findOrCreate(final long hash)
    {
        long bucket = state.index.findOrCreate(hash);
        while (bucket == KeyIndex.FULL && makeRoom())
        {
            bucket = state.index.findOrCreate(hash);
        }
        return bucket;
    }

    /**
     * The state's {@link PartitionState.RoomMaker}. EXPIRE_OLDEST: the row with the earliest TTL deadline
     * leaves early, as if its TTL had passed.
     */
    private boolean makeRoom()
    {
        if (state.fullPolicy != FullPolicy.EXPIRE_OLDEST || stateTtl <= 0)
        {
            return false;
        }
        final long oldest = state.wheel.earliest();
        if (oldest == 0)
        {
            return false;
        }
        state.wheel.cancel(oldest);
        expire(oldest);
        return true;
    }

    private boolean isExpiredOnArrival(final long ts)
    {
        return stateTtl > 0 && saturatedAdd(ts, stateTtl) < watermarks.current();
    }

    private void scheduleExpiry(final long record, final long ts)
    {
        state.wheel.schedule(record, saturatedAdd(ts, stateTtl));
        RowDescriptor.flags(record, RowDescriptor.flags(record) | RowDescriptor.FLAG_IN_TIMER);
    }

    private void removeRecord(final long record)
    {
        if ((RowDescriptor.flags(record) & RowDescriptor.FLAG_IN_TIMER) != 0)
        {
            state.wheel.cancel(record);
        }
        state.store.remove(record);
    }

    private void expire(final long record)
    {
        state.expire(record);
    }

    @Override
    public void onWatermark(final Side side, final long watermark, final long step)
    {
        if (watermarks.advance(side, watermark))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onWatermark(final long watermark, final long step)
    {
        if (watermarks.advanceBoth(watermark))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    @Override
    public void onIdle(final Side side, final long step)
    {
        if (watermarks.markIdle(side))
        {
            onJoinWatermark(watermarks.current(), step);
        }
    }

    /** The join's watermark moved forward to {@code watermark}: rows past their TTL expire. */
    private void onJoinWatermark(final long watermark, final long step)
    {
        if (stateTtl > 0)
        {
            // A row expires once watermark - stateTtl > ts, i.e. its deadline ts + stateTtl < watermark.
            state.wheel.advance(watermark, expiry);
        }
    }

    @Override
    public void onEndOfInput(final long step)
    {
        // Regular joins keep state until retraction or TTL; the end of input closes nothing.
    }

    @Override
    public OperatorCounters counters()
    {
        state.refreshCounters();
        counters.watermark = watermarks.current();
        return counters;
    }

    @Override
    public void close()
    {
        state.close();
    }
}
