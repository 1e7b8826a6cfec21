package io.junction.join;

import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.KeyIndex;
import io.junction.testing.Rows;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PartitionState: the live-row limit and the room maker, buckets released once empty, expiry counted. */
class PartitionStateTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final StateConfig BASE = StateConfig.defaults().withMaxKeys(64).withChunkSize(4096).withHashSeed(1);

    private final JoinCounters counters = new JoinCounters();
    private final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
    private final RowView row = Rows.row(SCHEMA, "k", 1L, "v", 2L);

    /** Stores the row under key {@code k}, as an operator does: reserve, bucket, slot, append. */
    private static long store(final PartitionState state, final UnsafeBuffer key, final long k, final Side side, final RowView row)
    {
        key.putLong(0, k);
        final long record = state.reserve(side, 8, row);
        if (record == 0)
        {
            return 0;
        }
        final long bucket = state.index.findOrCreate(k);
        assertNotEquals(KeyIndex.FULL, bucket);
        assertTrue(state.reserveSlot(bucket, side, record, 8, row));
        return state.store.append(record, bucket, side.ordinal(), key, 0, 8, row.buffer(), row.offset(), row.length(), k);
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void reserveRejectsAtTheLiveRowLimitAfterAskingForRoom(final IndexKind index)
    {
        final int[] asked = new int[1];
        try (PartitionState state = PartitionStates.inMemory(BASE.withIndex(index).withMaxLiveRows(2), BucketDescriptor.LENGTH,
            false, counters, () -> { asked[0]++; return false; }))
        {
            assertNotEquals(0, store(state, key, 1, Side.LEFT, row));
            assertNotEquals(0, store(state, key, 2, Side.RIGHT, row));
            assertEquals(0, asked[0], "no room is made below the limit");
            assertFalse(state.hasRoomFor(1));
            assertEquals(0, state.reserve(Side.LEFT, 8, row));
            assertEquals(1, asked[0], "asked once, then rejected");
            assertEquals(2, state.store.liveRows());
        }
    }

    @Test
    void reserveTakesTheRoomItsRoomMakerFrees()
    {
        final long[] oldest = new long[1];
        final PartitionState[] holder = new PartitionState[1];
        final PartitionState.RoomMaker evict = () ->
        {
            if (oldest[0] == 0)
            {
                return false;
            }
            holder[0].expire(oldest[0]);
            oldest[0] = 0;
            return true;
        };
        try (PartitionState state = PartitionStates.inMemory(BASE.withMaxLiveRows(1), BucketDescriptor.LENGTH, false, counters, evict))
        {
            holder[0] = state;
            oldest[0] = store(state, key, 1, Side.LEFT, row);
            assertNotEquals(0, oldest[0]);
            final long second = store(state, key, 2, Side.LEFT, row);
            assertNotEquals(0, second, "the room maker evicted the first row");
            assertEquals(1, counters.expiredRows);
            assertEquals(1, state.store.liveRows());
            assertEquals(1, state.index.size(), "the evicted row's bucket went with it");
            assertEquals(0, store(state, key, 3, Side.LEFT, row), "nothing more to evict");
        }
    }

    @Test
    void hasRoomForCountsWhatIsLeftOfTheLimit()
    {
        try (PartitionState state = PartitionStates.inMemory(BASE.withMaxLiveRows(3), BucketDescriptor.LENGTH, false, counters,
            PartitionState.NO_ROOM))
        {
            assertTrue(state.hasRoomFor(3));
            assertFalse(state.hasRoomFor(4));
            store(state, key, 1, Side.LEFT, row);
            assertTrue(state.hasRoomFor(2));
            assertFalse(state.hasRoomFor(3));
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void releaseIfEmptyKeepsABucketWhileEitherSideHoldsARow(final IndexKind index)
    {
        try (PartitionState state = PartitionStates.inMemory(BASE.withIndex(index), BucketDescriptor.LENGTH, false, counters,
            PartitionState.NO_ROOM))
        {
            final long left = store(state, key, 7, Side.LEFT, row);
            final long right = store(state, key, 7, Side.RIGHT, row);
            final long bucket = state.store.bucketOf(left);
            assertEquals(bucket, state.store.bucketOf(right));
            assertEquals(Side.LEFT, PartitionState.sideOf(left));
            assertEquals(Side.RIGHT, PartitionState.sideOf(right));
            state.store.remove(left);
            state.releaseIfEmpty(bucket);
            assertEquals(1, state.index.size(), "the right row keeps the bucket");
            assertEquals(bucket, state.index.find(7));
            state.store.remove(right);
            state.releaseIfEmpty(bucket);
            assertEquals(0, state.index.size());
            assertEquals(0, state.index.find(7));
        }
    }

    @Test
    void unmatchableBucketIsNeverReleased()
    {
        try (PartitionState state = PartitionStates.inMemory(BASE, BucketDescriptor.LENGTH, false, counters, PartitionState.NO_ROOM))
        {
            final long record = state.reserve(Side.LEFT, 0, row);
            assertTrue(state.reserveSlot(state.unmatchableBucket, Side.LEFT, record, 0, row));
            state.store.append(record, state.unmatchableBucket, Side.LEFT.ordinal(), key, 0, 0, row.buffer(), row.offset(), row.length(), 1);
            state.expire(record);
            assertEquals(1, counters.expiredRows);
            assertTrue(BucketDescriptor.isEmpty(state.unmatchableBucket));
            // Still usable: it was not handed to the index.
            final long again = state.reserve(Side.RIGHT, 0, row);
            assertTrue(state.reserveSlot(state.unmatchableBucket, Side.RIGHT, again, 0, row));
            assertNotEquals(0, state.store.append(again, state.unmatchableBucket, Side.RIGHT.ordinal(), key, 0, 0, row.buffer(), row.offset(), row.length(), 2));
            assertEquals(1, state.store.liveRows(Side.RIGHT.ordinal()));
        }
    }

    @Test
    void expireKeepingBucketLeavesTheBucketToTheCaller()
    {
        try (PartitionState state = PartitionStates.inMemory(BASE, BucketDescriptor.LENGTH, false, counters, PartitionState.NO_ROOM))
        {
            final long record = store(state, key, 5, Side.LEFT, row);
            final long bucket = state.store.bucketOf(record);
            state.expireKeepingBucket(record);
            assertEquals(1, counters.expiredRows);
            assertEquals(0, state.store.liveRows());
            assertEquals(1, state.index.size(), "the empty bucket is still indexed");
            state.releaseIfEmpty(bucket);
            assertEquals(0, state.index.size());
        }
    }

    @Test
    void refreshCountersReportsLiveRowsBytesAndTimers()
    {
        try (PartitionState state = PartitionStates.inMemory(BASE, BucketDescriptor.LENGTH, true, counters, PartitionState.NO_ROOM))
        {
            final long record = store(state, key, 1, Side.LEFT, row);
            store(state, key, 2, Side.RIGHT, row);
            store(state, key, 3, Side.RIGHT, row);
            state.wheel.schedule(record, 100);
            state.refreshCounters();
            assertEquals(1, counters.liveLeft);
            assertEquals(2, counters.liveRight);
            assertEquals(1, counters.pendingTimers);
            assertEquals(state.store.reservedBytes() + state.index.offHeapBytes(), counters.stateBytes);
            assertEquals(state.store.usedBytes() + state.index.maxOffHeapBytes(), counters.usedStateBytes);
            assertTrue(counters.usedStateBytes > state.index.maxOffHeapBytes());
        }
    }

    @Test
    void byteLimitWithoutRoomForRowsBesideTheIndexIsRejected()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
            PartitionStates.inMemory(BASE.withMaxStateBytes(4096), BucketDescriptor.LENGTH, false, counters, PartitionState.NO_ROOM));
        assertTrue(e.getMessage().contains(StateConfig.MAX_BYTES_PROP_NAME), e.getMessage());
    }

    @Test
    void closeIsIdempotent()
    {
        final PartitionState state = PartitionStates.inMemory(BASE, BucketDescriptor.LENGTH, false, counters, PartitionState.NO_ROOM);
        store(state, key, 1, Side.LEFT, row);
        assertTrue(state.store.usedBytes() > 0, "the row is in the store: " + state.store.usedBytes());
        assertTrue(state.store.reservedBytes() > 0, "the store took memory: " + state.store.reservedBytes());
        state.close();
        // The first close gave the row store's memory back (NativeArena.close zeroes both counts).
        assertEquals(0, state.store.reservedBytes());
        assertEquals(0, state.store.usedBytes());
        state.close();
        // The second close changes nothing (and does not free the memory twice).
        assertEquals(0, state.store.reservedBytes());
        assertEquals(0, state.store.usedBytes());
    }
}
