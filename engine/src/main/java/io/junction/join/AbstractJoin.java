package io.junction.join;

import io.junction.metrics.OperatorCounters;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.WatermarkTracker;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * What every join operator shares: the key index, the row store, the timer wheel, the watermark,
 * key extraction into a reused buffer, and emission with counting. Designed for extension by the
 * operators of this package only.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
abstract class AbstractJoin implements JoinOperator
{
    /** Returned by {@link #extractKey} when the row can never match: a null key or a failed pre-filter. */
    static final int UNMATCHABLE = JoinPredicate.UNMATCHABLE;
    /** Returned by {@link #extractKey} when the key does not fit the key buffer. */
    static final int TOO_LONG = JoinPredicate.TOO_LONG;

    final JoinSpec spec;
    final CompiledJoin compiled;
    final JoinType type;
    final ResultHandler results;
    final DeadLetterHandler deadLetters;
    final JoinCounters counters = new JoinCounters();
    final KeyIndex index;
    final RowStore store;
    final TimerWheel wheel;
    final WatermarkTracker watermarks = new WatermarkTracker();
    final long maxLiveRows;
    final FullPolicy fullPolicy;
    final Emitter emit;
    final PartitionState state;
    final JoinPredicate predicate;

    /** Key of the row being processed; valid from {@link #extractKey} until the next call. */
    final UnsafeBuffer key;
    /** Holds rows that can never match, so that their retractions can be checked; never in the index. */
    final long unmatchableBucket;

    /** A stored row of the other side while probing. */
    final RowView otherRow;
    final UnsafeBuffer otherBuffer = new UnsafeBuffer(0, 0);
    /** A stored row of this side (expiry, padding). */
    final RowView storedRow = new RowView();
    final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);

    /**
     * @param timedRows whether stored rows are linked into the timer wheel (interval and window joins,
     *                  regular joins with a state TTL): only then do records carry timer links.
     */
    AbstractJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final boolean timedRows)
    {
        this(spec, config, results, deadLetters, BucketDescriptor.LENGTH, timedRows);
    }

    AbstractJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final int bucketLength, final boolean timedRows)
    {
        this.spec = spec;
        this.compiled = CompiledJoin.of(spec);
        this.type = spec.type();
        this.results = results;
        this.deadLetters = deadLetters;
        this.emit = new Emitter(type, results, deadLetters, counters);
        this.maxLiveRows = config.maxLiveRows();
        this.fullPolicy = config.fullPolicy();
        this.state = new PartitionState(config, bucketLength, timedRows, counters, this::makeRoom);
        this.predicate = new JoinPredicate(compiled, config, state.store, counters);
        this.key = predicate.key;
        this.otherRow = predicate.otherRow;
        this.index = state.index;
        this.store = state.store;
        this.wheel = state.wheel;
        this.unmatchableBucket = state.unmatchableBucket;
    }

    /** Checks the spec's kind before any state is allocated. */
    static JoinSpec requireKind(final JoinSpec spec, final JoinKind kind)
    {
        JoinOperators.requireKind(spec, kind);
        return spec;
    }

    /**
     * Extracts the join key of a row into {@link #key} and applies the row's own pre-filter.
     *
     * @return the key length, {@link #UNMATCHABLE} or {@link #TOO_LONG}.
     */
    final int extractKey(final Side side, final RowView row)
    {
        return extractKey(side, row, key.capacity());
    }

    /** As {@link #extractKey(Side, RowView)}, leaving the key buffer's tail beyond {@code capacity} free. */
    final int extractKey(final Side side, final RowView row, final int capacity)
    {
        return predicate.extractKey(side, row, capacity);
    }

    /** @return the hash of the key in {@link #key}. */
    final long keyHash(final int keyLength)
    {
        return predicate.keyHash(keyLength);
    }

    /**
     * Takes the memory of one record for the row before the row has any effect, so that a row that
     * does not fit is rejected whole ({@link #makeRoom} first, as the policy allows).
     *
     * @return an unlinked record for {@link RowStore#append(long, long, Side, org.agrona.DirectBuffer, int, int, RowView, long)},
     *         or 0 when the state is at a limit.
     */
    final long reserve(final int keyLength, final RowView row)
    {
        return state.reserve(keyLength, row);
    }

    /**
     * Makes sure the row can join its key's group on {@code side} (which may need a larger array) before
     * the row has any effect; on failure frees the reserved record.
     *
     * @return false, with {@code record} released, when there is no memory for it.
     */
    final boolean reserveSlot(final long bucket, final Side side, final long record, final int keyLength, final RowView row)
    {
        return state.reserveSlot(bucket, side, record, keyLength, row);
    }

    /** Frees room for one row by the {@link FullPolicy}; @return false when nothing could be freed. */
    boolean makeRoom()
    {
        return false;
    }

    /** @return true when a row of {@code side} without a match is emitted (padded, or alone for anti): {@link JoinType#emitsUnmatched(Side)}. */
    final boolean emitsUnmatched(final Side side)
    {
        return emit.emitsUnmatched(side);
    }

    /** @return true when a stored record of the other side has the current key and satisfies the condition. */
    final boolean matches(final long otherRecord, final int keyLength, final Side side, final RowView row)
    {
        return predicate.matches(otherRecord, keyLength, side, row);
    }

    /** Emits a pair, ordering the two rows by side. */
    final void emitPair(final ChangeKind kind, final Side side, final RowView row, final RowView other, final long ts, final long step)
    {
        emit.pair(kind, side, row, other, ts, step);
    }

    /** Emits a row of {@code side} padded with nulls (or alone, for semi and anti joins). */
    final void emitPadded(final ChangeKind kind, final Side side, final RowView row, final long ts, final long step)
    {
        emit.padded(kind, side, row, ts, step);
    }

    /** Emits a pair of a window join with its window. */
    final void emitWindowPair(final RowView left, final RowView right, final long start, final long end, final long step)
    {
        emit.windowPair(left, right, start, end, step);
    }

    /** Emits a row of a window join padded with nulls (or alone, for semi and anti joins), with its window. */
    final void emitWindowPadded(final Side side, final RowView row, final long start, final long end, final long step)
    {
        emit.windowPadded(side, row, start, end, step);
    }

    final void deadLetter(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
    {
        emit.deadLetter(side, kind, row, ts, step, reason);
    }

    /** Removes a bucket from the index once it holds no row of either side. */
    final void releaseIfEmpty(final long bucket)
    {
        state.releaseIfEmpty(bucket);
    }

    /** @return the bucket a record belongs to. */
    static long bucketOf(final long record)
    {
        return RowDescriptor.bucket(record);
    }

    static Side sideOf(final long record)
    {
        return RowDescriptor.side(record) == 0 ? Side.LEFT : Side.RIGHT;
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

    /** The join's watermark moved forward to {@code watermark}. */
    abstract void onJoinWatermark(long watermark, long step);

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

    /** @return {@code a + b}, clamped to the long range instead of wrapping. */
    static long saturatedAdd(final long a, final long b)
    {
        return TimeMath.saturatedAdd(a, b);
    }

    /** @return {@code a - b}, clamped to the long range instead of wrapping. */
    static long saturatedSubtract(final long a, final long b)
    {
        return TimeMath.saturatedSubtract(a, b);
    }
}
