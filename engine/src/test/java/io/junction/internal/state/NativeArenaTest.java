package io.junction.internal.state;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NativeArenaTest
{
    @Test
    void shouldAlignSizesToEightBytes()
    {
        assertEquals(8, NativeArena.alignedSize(1));
        assertEquals(8, NativeArena.alignedSize(8));
        assertEquals(16, NativeArena.alignedSize(9));
        assertEquals(72, NativeArena.alignedSize(72));
    }

    @Test
    void shouldHandOutAlignedDisjointRecords()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            final long a = arena.allocate(13);
            final long b = arena.allocate(13);
            assertEquals(0, a % NativeArena.ALIGNMENT);
            assertEquals(0, b % NativeArena.ALIGNMENT);
            assertTrue(Math.abs(b - a) >= 16, "records overlap");
            UnsafeApi.putLong(a, 1);
            UnsafeApi.putLong(a + 8, 2);
            UnsafeApi.putLong(b, 3);
            UnsafeApi.putLong(b + 8, 4);
            assertEquals(1, UnsafeApi.getLong(a));
            assertEquals(2, UnsafeApi.getLong(a + 8));
            assertEquals(32, arena.usedBytes());
            assertEquals(4096, arena.reservedBytes());
        }
    }

    @Test
    void shouldReuseFreedRecordOfSameSizeClass()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            final long a = arena.allocate(40);
            arena.allocate(40);
            arena.free(a, 40);
            assertEquals(40, arena.usedBytes());
            assertEquals(a, arena.allocate(33), "33 bytes round up to the same 40-byte class");
            assertEquals(80, arena.usedBytes());
        }
    }

    @Test
    void shouldNotReuseFreedRecordOfAnotherSizeClass()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            final long a = arena.allocate(40);
            arena.free(a, 40);
            assertNotEquals(a, arena.allocate(48));
        }
    }

    @Test
    void shouldReuseFreedRecordsLastInFirstOut()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            final long a = arena.allocate(24);
            final long b = arena.allocate(24);
            arena.free(a, 24);
            arena.free(b, 24);
            assertEquals(b, arena.allocate(24));
            assertEquals(a, arena.allocate(24));
        }
    }

    @Test
    void shouldReuseFreedRecordLargerThanTheInitialFreeListTable()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            final long a = arena.allocate(3000);
            arena.free(a, 3000);
            assertEquals(a, arena.allocate(3000));
        }
    }

    @Test
    void shouldServeRecordLargerThanAChunk()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            final long big = arena.allocate(10_000);
            UnsafeApi.setMemory(big, 10_000, (byte)7);
            assertEquals(10_000, arena.reservedBytes());
            assertEquals(10_000, arena.usedBytes());
            arena.free(big, 10_000);
            // A block of its own goes back to the OS.
            assertEquals(0, arena.reservedBytes());
            assertEquals(0, arena.usedBytes());
            final long again = arena.allocate(10_000);
            UnsafeApi.setMemory(again, 10_000, (byte)7);
            assertEquals(10_000, arena.reservedBytes());
        }
    }

    @Test
    void shouldGiveBlocksAboveThePooledSizeBackToTheOs()
    {
        try (NativeArena arena = new NativeArena(NativeArena.DEFAULT_CHUNK_SIZE))
        {
            final long small = arena.allocate(64);
            final long reservedWithChunk = arena.reservedBytes();
            final int large = NativeArena.MAX_POOLED_SIZE + 8;
            final long a = arena.allocate(large);
            final long b = arena.allocate(large);
            assertEquals(reservedWithChunk + 2L * large, arena.reservedBytes(), "large blocks come from the OS, not the chunk");
            arena.free(a, large);
            arena.free(b, large);
            assertEquals(reservedWithChunk, arena.reservedBytes());
            assertEquals(64, arena.usedBytes());
            // A pooled size is still reused from its free list.
            arena.free(small, 64);
            assertEquals(small, arena.allocate(64));
        }
    }

    @Test
    void shouldStartNewChunkWhenCurrentOneIsFull()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            for (int i = 0; i < 4096 / 64; i++)
            {
                arena.allocate(64);
            }
            assertEquals(4096, arena.reservedBytes());
            arena.allocate(64);
            assertEquals(8192, arena.reservedBytes());
        }
    }

    @Test
    void shouldKeepReservedBytesFlatUnderSteadyChurn()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            final Random random = new Random(42);
            final ArrayDeque<long[]> live = new ArrayDeque<>();
            long reservedAfterWarmUp = -1;
            for (int i = 0; i < 200_000; i++)
            {
                final int length = 72 + 8 * (i % 8) - random.nextInt(8);
                live.addLast(new long[] {arena.allocate(length), length});
                if (live.size() > 100)
                {
                    final long[] oldest = live.removeFirst();
                    arena.free(oldest[0], (int)oldest[1]);
                }
                if (i == 20_000)
                {
                    reservedAfterWarmUp = arena.reservedBytes();
                }
            }
            assertTrue(reservedAfterWarmUp > 0);
            assertEquals(reservedAfterWarmUp, arena.reservedBytes(), "no growth once every size class has its free records");
            long used = 0;
            for (final long[] record : live)
            {
                used += NativeArena.alignedSize((int)record[1]);
            }
            assertEquals(used, arena.usedBytes());
        }
    }

    @Test
    void shouldReturnUsedBytesToZeroWhenEverythingIsFreed()
    {
        try (NativeArena arena = new NativeArena(4096))
        {
            final Set<Long> addresses = new HashSet<>();
            final long[] records = new long[500];
            for (int i = 0; i < records.length; i++)
            {
                records[i] = arena.allocate(8 + i % 100);
                assertTrue(addresses.add(records[i]), "address handed out twice");
            }
            for (int i = 0; i < records.length; i++)
            {
                arena.free(records[i], 8 + i % 100);
            }
            assertEquals(0, arena.usedBytes());
        }
    }

    @Test
    void shouldReleaseEverythingOnCloseAndBeIdempotent()
    {
        final NativeArena arena = new NativeArena(4096);
        arena.allocate(100);
        arena.close();
        assertEquals(0, arena.reservedBytes());
        assertEquals(0, arena.usedBytes());
        arena.close();
    }

    @Test
    void shouldRejectBadChunkSizes()
    {
        assertThrows(IllegalArgumentException.class, () -> new NativeArena(4095));
        assertThrows(IllegalArgumentException.class, () -> new NativeArena(4100));
    }

    @Test
    void shouldServePreallocatedChunksBeforeTakingMoreFromTheOs()
    {
        try (NativeArena arena = new NativeArena(4096, 3 * 4096))
        {
            assertEquals(3 * 4096, arena.reservedBytes(), "three chunks taken up front");
            for (int i = 0; i < 3 * 4096 / 64; i++)
            {
                arena.allocate(64);
            }
            assertEquals(3 * 4096, arena.reservedBytes(), "the preallocated chunks serve the first 12 KiB");
            arena.allocate(64);
            assertEquals(4 * 4096, arena.reservedBytes(), "then the arena grows as before");
        }
    }

    @Test
    void shouldAnswerZeroAtItsLimitAndStayUsable()
    {
        try (NativeArena arena = new NativeArena(4096, 0, 2 * 4096))
        {
            int records = 0;
            long last = 0;
            while (true)
            {
                final long address = arena.allocate(1000);
                if (address == 0)
                {
                    break;
                }
                last = address;
                records++;
            }
            // Four 1000-byte records fit a 4096-byte chunk; the third chunk would pass the limit.
            assertEquals(8, records);
            assertEquals(2 * 4096, arena.reservedBytes());
            assertEquals(8 * 1000, arena.usedBytes());
            assertEquals(0, arena.allocate(5000), "a large record past the limit");
            assertEquals(2 * 4096, arena.reservedBytes());
            // A freed record is reused at the limit.
            arena.free(last, 1000);
            assertEquals(last, arena.allocate(1000));
        }
    }

    @Test
    void shouldClampPreallocationToTheLimit()
    {
        try (NativeArena arena = new NativeArena(4096, 1 << 20, 3 * 4096))
        {
            assertEquals(3 * 4096, arena.reservedBytes());
            assertEquals(0, arena.allocate(4096 * 4));
        }
    }
}
