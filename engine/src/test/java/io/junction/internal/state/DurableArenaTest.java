package io.junction.internal.state;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The durable arena: file length follows the bump pointer, free lists and bump survive a reopen at another address. */
class DurableArenaTest
{
    static final int CHUNK = 64 * 1024;
    static final long LIMIT = 16L << 20;

    static byte[] header(final Path file) throws IOException
    {
        final byte[] all = Files.readAllBytes(file);
        final byte[] header = new byte[NativeArena.HEADER_LENGTH];
        System.arraycopy(all, 0, header, 0, header.length);
        return header;
    }

    @Test
    void reopensWithItsFreeListsAndBumpPointerAtAnotherAddress(@TempDir final Path dir) throws IOException
    {
        final Path path = dir.resolve("arena.dat");
        final long small;
        final long large;
        final long kept;
        final long firstBase;
        final long used;
        final long reserved;
        try (MappedFile file = MappedFile.create(path, NativeArena.HEADER_LENGTH + LIMIT, NativeArena.HEADER_LENGTH))
        {
            final NativeArena arena = new NativeArena(file, CHUNK, LIMIT, false);
            firstBase = arena.base();
            assertEquals(NativeArena.HEADER_LENGTH, file.length(), "nothing carved yet: the header only");
            kept = arena.allocate(40);
            UnsafeApi.putLong(kept + 8, 0x1234_5678_9ABCL);
            small = arena.allocate(40);
            large = arena.allocate(CHUNK * 2);
            assertNotEquals(0, large);
            assertEquals(NativeArena.HEADER_LENGTH + CHUNK + CHUNK * 2L, file.length(), "one chunk and the large block, no more");
            arena.free(small, 40);
            arena.free(large, CHUNK * 2);
            used = arena.usedBytes();
            reserved = arena.reservedBytes();
            arena.markDirty();
            arena.writeHeader();
            file.force();
            arena.close();
            assertNull(NativeArena.checkHeader(header(path), Files.size(path)));
            final long smallOffset = small - firstBase;
            final long largeOffset = large - firstBase;
            final long keptOffset = kept - firstBase;
            // Reopen while the first mapping still holds its address: the second is elsewhere.
            try (MappedFile again = MappedFile.open(path, NativeArena.HEADER_LENGTH + LIMIT))
            {
                final NativeArena reopened = new NativeArena(again, CHUNK, LIMIT, true);
                assertNotEquals(firstBase, reopened.base());
                assertEquals(used, reopened.usedBytes());
                assertEquals(reserved, reopened.reservedBytes());
                assertEquals(0x1234_5678_9ABCL, UnsafeApi.getLong(reopened.base() + keptOffset + 8));
                assertEquals(reopened.base() + smallOffset, reopened.allocate(40), "the freed record is reused first");
                assertEquals(reopened.base() + largeOffset, reopened.allocate(CHUNK * 2), "the freed large block too");
                final long next = reopened.allocate(40);
                assertTrue(next > reopened.base() + smallOffset, "then the bump pointer goes on where it was");
                assertEquals(NativeArena.HEADER_LENGTH + CHUNK + CHUNK * 2L, again.length());
            }
        }
    }

    @Test
    void aDirtyOrDamagedHeaderIsReported(@TempDir final Path dir) throws IOException
    {
        final Path path = dir.resolve("arena.dat");
        try (MappedFile file = MappedFile.create(path, NativeArena.HEADER_LENGTH + LIMIT, NativeArena.HEADER_LENGTH))
        {
            final NativeArena arena = new NativeArena(file, CHUNK, LIMIT, false);
            arena.allocate(100);
            arena.writeHeader();
            assertNull(NativeArena.checkHeader(header(path), Files.size(path)));
            arena.markDirty();
            assertTrue(NativeArena.checkHeader(header(path), Files.size(path)).contains("dirty"));
            arena.writeHeader();
            final byte[] damaged = header(path);
            damaged[4000] ^= 1;
            assertTrue(NativeArena.checkHeader(damaged, Files.size(path)).contains("checksum"));
            assertTrue(NativeArena.checkHeader(header(path), Files.size(path) - 8).contains("bytes long"));
        }
    }

    @Test
    void stopsAtItsLimit(@TempDir final Path dir) throws IOException
    {
        try (MappedFile file = MappedFile.create(dir.resolve("arena.dat"), NativeArena.HEADER_LENGTH + 2L * CHUNK,
            NativeArena.HEADER_LENGTH))
        {
            final NativeArena arena = new NativeArena(file, CHUNK, 2L * CHUNK, false);
            int records = 0;
            while (arena.allocate(1024) != 0)
            {
                records++;
            }
            assertEquals(2 * CHUNK / 1024, records);
            assertEquals(NativeArena.HEADER_LENGTH + 2L * CHUNK, file.length());
        }
    }
}
