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
    static final int UNMATCHABLE = -1;
    /** Returned by {@link #extractKey} when the key does not fit the key buffer. */
    static final int TOO_LONG = -2;

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
    /** {@link JoinType#emitsUnmatched(Side)} per side, read once: it is asked per row. */
    private final boolean emitsUnmatchedLeft;
    private final boolean emitsUnmatchedRight;
    /** Seed of the key hash: the engine's, so that routing and the index agree. */
    final long hashSeed;

    /** Key of the row being processed; valid from {@link #extractKey} until the next call. */
    final UnsafeBuffer key;
    /** Holds rows that can never match, so that their retractions can be checked; never in the index. */
    final long unmatchableBucket;

    /** A stored row of the other side while probing. */
    final RowView otherRow = new RowView();
    final UnsafeBuffer otherBuffer = new UnsafeBuffer(0, 0);
    /** A stored row of this side (expiry, padding). */
    final RowView storedRow = new RowView();
    final UnsafeBuffer storedBuffer = new UnsafeBuffer(0, 0);

    private boolean closed;

    AbstractJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters)
    {
        this(spec, config, results, deadLetters, BucketDescriptor.LENGTH);
    }

    AbstractJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final int bucketLength)
    {
        this(spec, config, results, deadLetters, bucketLength, 0);
    }

    /**
     * @param otherOffHeapBytes the most off-heap bytes of the operator's own structures beyond the key
     *                          index (a regular join's unique-key indexes), taken from the rows' byte budget.
     */
    AbstractJoin(
        final JoinSpec spec, final StateConfig config, final ResultHandler results, final DeadLetterHandler deadLetters,
        final int bucketLength, final long otherOffHeapBytes)
    {
        this.spec = spec;
        this.compiled = CompiledJoin.of(spec);
        this.type = spec.type();
        this.emitsUnmatchedLeft = type.emitsUnmatched(Side.LEFT);
        this.emitsUnmatchedRight = type.emitsUnmatched(Side.RIGHT);
        this.results = results;
        this.deadLetters = deadLetters;
        this.key = new UnsafeBuffer(ByteBuffer.allocateDirect(config.maxKeyLength()));
        this.maxLiveRows = config.maxLiveRows();
        this.fullPolicy = config.fullPolicy();
        this.hashSeed = config.withResolvedHashSeed().hashSeed();
        // Every key in the index holds at least one live row, so the live-row limit caps the keys too.
        this.index = KeyIndex.create(config.indexKind(), Math.min(config.maxKeys(), config.maxLiveRows()), bucketLength,
            config.preallocate());
        final long rowBytes = config.maxStateBytes() - index.maxOffHeapBytes() - otherOffHeapBytes;
        if (rowBytes < config.chunkSize())
        {
            index.close();
            throw new IllegalArgumentException(StateConfig.MAX_BYTES_PROP_NAME + " = " + config.maxStateBytes() +
                " leaves no room for rows: the key index for " + index.capacity() + " keys takes " +
                index.maxOffHeapBytes() + " bytes" + (otherOffHeapBytes == 0 ? "" : ", the unique-key indexes " +
                otherOffHeapBytes + " bytes (" + StateConfig.MAX_LIVE_ROWS_PROP_NAME + " = " + config.maxLiveRows() + ")") +
                "; raise it or lower " + StateConfig.MAX_KEYS_PROP_NAME +
                (otherOffHeapBytes == 0 ? "" : " or " + StateConfig.MAX_LIVE_ROWS_PROP_NAME));
        }
        this.store = new RowStore(config.chunkSize(), Math.min(config.preallocate(), rowBytes), rowBytes);
        this.wheel = new TimerWheel(config.tickShift(), config.wheelSlots(),
            RowDescriptor.TIMER_PREV_OFFSET, RowDescriptor.TIMER_NEXT_OFFSET, RowDescriptor.DEADLINE_OFFSET);
        this.unmatchableBucket = UnsafeApi.allocateMemory(bucketLength);
        BucketDescriptor.init(unmatchableBucket, 0);
    }

    /** Checks the spec's kind before any state is allocated. */
    static JoinSpec requireKind(final JoinSpec spec, final JoinKind kind)
    {
        if (spec.kind() != kind)
        {
            throw new IllegalArgumentException("this operator runs " + kind + " joins, not: " + spec);
        }
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
        if (!compiled.filter(side).test(row))
        {
            return UNMATCHABLE;
        }
        final int length = compiled.key(side).extract(row, key, 0, capacity);
        if (length == KeyExtractor.KEY_TOO_LONG)
        {
            return TOO_LONG;
        }
        return length == KeyExtractor.NULL_KEY ? UNMATCHABLE : length;
    }

    /** @return the hash of the key in {@link #key}. */
    final long keyHash(final int keyLength)
    {
        return KeyHash.hash(hashSeed, key, 0, keyLength);
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
        while (true)
        {
            if (store.liveRows() < maxLiveRows)
            {
                final long record = store.allocate(keyLength, row.length());
                if (record != 0)
                {
                    return record;
                }
            }
            if (!makeRoom())
            {
                return 0;
            }
        }
    }

    /** Frees room for one row by the {@link FullPolicy}; @return false when nothing could be freed. */
    boolean makeRoom()
    {
        return false;
    }

    /** @return true when a row of {@code side} without a match is emitted (padded, or alone for anti): {@link JoinType#emitsUnmatched(Side)}. */
    final boolean emitsUnmatched(final Side side)
    {
        return side == Side.LEFT ? emitsUnmatchedLeft : emitsUnmatchedRight;
    }

    /** @return true when a stored record of the other side has the current key and satisfies the condition. */
    final boolean matches(final long otherRecord, final int keyLength, final Side side, final RowView row)
    {
        if (!store.keyEquals(otherRecord, key, 0, keyLength))
        {
            counters.hashCollisions++;
            return false;
        }
        RowStore.wrap(otherRecord, otherBuffer, otherRow);
        return compiled.condition().acceptsAll() ||
            (side == Side.LEFT ? compiled.condition().test(row, otherRow) : compiled.condition().test(otherRow, row));
    }

    /** Emits a pair, ordering the two rows by side. */
    final void emitPair(final ChangeKind kind, final Side side, final RowView row, final RowView other, final long ts, final long step)
    {
        counters.rowsOut++;
        if (side == Side.LEFT)
        {
            results.onResult(kind, row, other, ts, step);
        }
        else
        {
            results.onResult(kind, other, row, ts, step);
        }
    }

    /** Emits a row of {@code side} padded with nulls (or alone, for semi and anti joins). */
    final void emitPadded(final ChangeKind kind, final Side side, final RowView row, final long ts, final long step)
    {
        counters.rowsOut++;
        if (side == Side.LEFT)
        {
            results.onResult(kind, row, null, ts, step);
        }
        else
        {
            results.onResult(kind, null, row, ts, step);
        }
    }

    /** Emits a pair of a window join with its window. */
    final void emitWindowPair(final RowView left, final RowView right, final long start, final long end, final long step)
    {
        counters.rowsOut++;
        results.onWindowResult(ChangeKind.INSERT, left, right, start, end, step);
    }

    /** Emits a row of a window join padded with nulls (or alone, for semi and anti joins), with its window. */
    final void emitWindowPadded(final Side side, final RowView row, final long start, final long end, final long step)
    {
        counters.rowsOut++;
        if (side == Side.LEFT)
        {
            results.onWindowResult(ChangeKind.INSERT, row, null, start, end, step);
        }
        else
        {
            results.onWindowResult(ChangeKind.INSERT, null, row, start, end, step);
        }
    }

    final void deadLetter(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
    {
        if (reason == DeadLetterReason.LATE || reason == DeadLetterReason.LATE_WINDOW)
        {
            counters.lateRows++;
        }
        else
        {
            counters.badInputs++;
        }
        deadLetters.onDeadLetter(side, kind, row, ts, step, reason);
    }

    /** Removes a bucket from the index once it holds no row of either side. */
    final void releaseIfEmpty(final long bucket)
    {
        if (bucket != unmatchableBucket && BucketDescriptor.isEmpty(bucket))
        {
            index.remove(bucket);
        }
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
        counters.liveLeft = store.liveRows(Side.LEFT);
        counters.liveRight = store.liveRows(Side.RIGHT);
        counters.stateBytes = store.reservedBytes() + index.offHeapBytes();
        counters.usedStateBytes = store.usedBytes() + index.maxOffHeapBytes();
        counters.pendingTimers = wheel.pending();
        counters.watermark = watermarks.current();
        return counters;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        index.close();
        store.close();
        UnsafeApi.freeMemory(unmatchableBucket);
    }

    /** @return {@code a + b}, clamped to the long range instead of wrapping. */
    static long saturatedAdd(final long a, final long b)
    {
        final long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** @return {@code a - b}, clamped to the long range instead of wrapping. */
    static long saturatedSubtract(final long a, final long b)
    {
        final long r = a - b;
        if (((a ^ b) & (a ^ r)) < 0)
        {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }
}
