package io.junction.join;

import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.internal.metrics.HotKeySketch;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.state.RowGroup;
import io.junction.internal.state.RowStore;
import io.junction.internal.time.TimerWheel;
import io.junction.metrics.HotKey;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * The stored state of one operator in one partition: the key index, the row store, the timer wheel
 * of stored rows, the bucket of rows that can never match, and the limits on them (live rows, bytes,
 * the index's capacity) with the {@link FullPolicy}'s way of making room. An operator holds one and
 * runs its own algorithm over it; this class knows no join semantics beyond keeping rows.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class PartitionState implements AutoCloseable
{
    /** Frees room for one row by the {@link FullPolicy}, for an operator that can evict rows early. */
    interface RoomMaker
    {
        /** @return false when nothing could be freed. */
        boolean makeRoom();
    }

    /** For operators that never make room: a row that does not fit is rejected. */
    static final RoomMaker NO_ROOM = () -> false;

    final KeyIndex index;
    final RowStore store;
    /** Stored rows by deadline: interval and TTL expiry, lone window rows. */
    final TimerWheel wheel;
    /** Holds rows that can never match, so that their retractions can be checked; never in the index. */
    final long unmatchableBucket;
    final FullPolicy fullPolicy;
    private final long maxLiveRows;
    private final JoinCounters counters;
    private final RoomMaker roomMaker;
    /** The heavy hitters among the keys, by rows stored and rows visited by probes ({@link #countKey}). */
    private final HotKeySketch hotKeys;
    private final LongUnaryOperator liveRowsOfKey = this::liveRows;
    private boolean closed;
    /** Keeps what {@link #prefetch} and {@link #touch} read, so that the JIT cannot drop the reads. */
    private long touched;

    /**
     * Allocates the state, rows taking what the key index leaves of {@link StateConfig#maxStateBytes()}.
     *
     * @param config       the sizing and limits.
     * @param bucketLength bytes of a bucket in the key index ({@link BucketDescriptor#LENGTH} or an operator's extension of it).
     * @param timedRows    whether stored rows are linked into the timer wheel (interval and window joins,
     *                     regular joins with a state TTL): only then do records carry timer links.
     * @param counters     the operator's counters: this counts expired rows and reports the state's size.
     * @param roomMaker    called by {@link #reserve} while the state is at a limit.
     * @throws IllegalArgumentException when the byte limit leaves no room for rows beside the key index.
     */
    PartitionState(
        final StateConfig config, final int bucketLength, final boolean timedRows, final JoinCounters counters,
        final RoomMaker roomMaker)
    {
        this(config, bucketLength, timedRows, counters, roomMaker, 0);
    }

    /**
     * @param otherOffHeapBytes the most off-heap bytes of the operator's own structures beyond the key
     *                          index (a regular join's unique-key indexes), taken from the rows' byte budget.
     */
    PartitionState(
        final StateConfig config, final int bucketLength, final boolean timedRows, final JoinCounters counters,
        final RoomMaker roomMaker, final long otherOffHeapBytes)
    {
        this.counters = counters;
        this.roomMaker = roomMaker;
        this.hotKeys = new HotKeySketch(config.hotKeys());
        this.maxLiveRows = config.maxLiveRows();
        this.fullPolicy = config.fullPolicy();
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
        this.wheel = new TimerWheel(config.tickShift(), config.wheelSlots(),
            RowDescriptor.TIMER_PREV_OFFSET, RowDescriptor.TIMER_NEXT_OFFSET, RowDescriptor.DEADLINE_OFFSET);
        RowStore rows = null;
        try
        {
            rows = new RowStore(config.chunkSize(), Math.min(config.preallocate(), rowBytes), rowBytes, timedRows);
            this.unmatchableBucket = UnsafeApi.allocateMemory(bucketLength);
        }
        catch (final RuntimeException | Error e)
        {
            // Nothing of a state that failed to start stays taken from the OS.
            if (rows != null)
            {
                rows.close();
            }
            index.close();
            throw e;
        }
        this.store = rows;
        BucketDescriptor.init(unmatchableBucket, 0);
    }

    /**
     * Takes the memory of one record for the row before the row has any effect, so that a row that
     * does not fit is rejected whole (making room first, as the policy allows).
     *
     * @return an unlinked record for {@link RowStore#append(long, long, Side, org.agrona.DirectBuffer, int, int, RowView, long)},
     *         or 0 when the state is at a limit.
     */
    long reserve(final int keyLength, final RowView row)
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
            if (!roomMaker.makeRoom())
            {
                return 0;
            }
        }
    }

    /** @return true when {@code rows} more live rows stay within the live-row limit. */
    boolean hasRoomFor(final int rows)
    {
        return rows <= maxLiveRows - store.liveRows();
    }

    /**
     * Makes sure the row can join its key's group on {@code side} (which may need a larger array) before
     * the row has any effect; on failure frees the reserved record.
     *
     * @return false, with {@code record} released, when there is no memory for it.
     */
    boolean reserveSlot(final long bucket, final Side side, final long record, final int keyLength, final RowView row)
    {
        if (store.reserveSlot(bucket, side))
        {
            return true;
        }
        store.release(record, keyLength, row.length());
        return false;
    }

    /** Removes a bucket from the index once it holds no row of either side. */
    void releaseIfEmpty(final long bucket)
    {
        if (bucket != 0 && bucket != unmatchableBucket && BucketDescriptor.isEmpty(bucket))
        {
            index.remove(bucket);
        }
    }

    /** Drops a stored row whose time has passed, counted as expired, and its bucket once empty. */
    void expire(final long record)
    {
        final long bucket = bucketOf(record);
        store.remove(record);
        counters.expiredRows++;
        releaseIfEmpty(bucket);
    }

    /** Drops a stored row whose time has passed, counted as expired; the caller deals with its bucket. */
    void expireKeepingBucket(final long record)
    {
        store.remove(record);
        counters.expiredRows++;
    }

    /** @return the bucket a record belongs to. */
    static long bucketOf(final long record)
    {
        return RowDescriptor.bucket(record);
    }

    /** @return the side a record was stored for. */
    static Side sideOf(final long record)
    {
        return RowDescriptor.side(record) == 0 ? Side.LEFT : Side.RIGHT;
    }

    /** Writes the state's size into the counters: live rows per side, bytes, pending row timers. */
    void refreshCounters()
    {
        counters.liveLeft = store.liveRows(Side.LEFT);
        counters.liveRight = store.liveRows(Side.RIGHT);
        counters.stateBytes = store.reservedBytes() + index.offHeapBytes();
        counters.usedStateBytes = store.usedBytes() + index.maxOffHeapBytes();
        counters.liveStateBytes = store.usedBytes() + index.liveBytes();
        counters.pendingTimers = wheel.pending();
    }

    /** Reads ahead the memory a coming row of this key hash will need ({@link JoinOperator#prefetch}). */
    void prefetch(final long keyHash)
    {
        final long bucket = index.prefetch(keyHash);
        if (bucket != 0)
        {
            touched ^= RowStore.touchBucket(bucket);
        }
    }

    /** Reads the headers of a group's records in slots {@code [from, to)} at once, so that their misses overlap ({@link RowGroup#touch}). */
    void touch(final long rows, final int from, final int to)
    {
        touched ^= RowGroup.touch(rows, from, to);
    }

    /**
     * Counts one row event of a key for the hot-key report: the rows it stored and the rows of the other
     * side its probe of {@code bucket} visited (the side's live count: a probe visits every one).
     */
    void countKey(final long bucket, final Side side, final DirectBuffer key, final int keyLength, final int storedRows)
    {
        if (hotKeys.enabled())
        {
            hotKeys.record(BucketDescriptor.hash(bucket), key, 0, keyLength, storedRows, BucketDescriptor.count(bucket, side.other()));
        }
    }

    /** @return the hot-key report, with each key's live rows read from its bucket now. */
    List<HotKey> hotKeys()
    {
        return closed ? List.of() : hotKeys.report(liveRowsOfKey);
    }

    private long liveRows(final long keyHash)
    {
        final long bucket = index.find(keyHash);
        return bucket == 0 ? 0 : (long)BucketDescriptor.count(bucket, Side.LEFT) + BucketDescriptor.count(bucket, Side.RIGHT);
    }

    /** Frees the off-heap state; idempotent. */
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
}
