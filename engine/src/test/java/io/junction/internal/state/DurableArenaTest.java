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
    void aHeaderWriteStoresOnlyTheFreeListHeadsInUseAndStillReopensExact(@TempDir final Path dir) throws IOException
    {
        final Path path = dir.resolve("arena.dat");
        final int lastClass = CHUNK / NativeArena.ALIGNMENT;
        final long lastHead;
        final long smallOffset;
        final long midOffset;
        try (MappedFile file = MappedFile.create(path, NativeArena.HEADER_LENGTH + LIMIT, NativeArena.HEADER_LENGTH))
        {
            final NativeArena arena = new NativeArena(file, CHUNK, LIMIT, false);
            final long small = arena.allocate(40);
            final long mid = arena.allocate(4000);
            arena.free(small, 40);
            arena.free(mid, 4000);
            arena.writeHeader();
            assertNull(NativeArena.checkHeader(header(path), Files.size(path)));
            // A head past every class a free used: a cut's header write leaves its page alone (no store, so no
            // write fault on the partition thread once the kernel wrote the page back).
            lastHead = arena.base() + ArenaHeaderDescriptor.freeHeadOffset(lastClass);
            UnsafeApi.putLong(lastHead, 0x5EL);
            arena.markDirty();
            // The 4000-byte class's head is taken again (0 now): a head in use that changed is written.
            assertEquals(mid, arena.allocate(4000));
            arena.writeHeader();
            assertEquals(0x5EL, UnsafeApi.getLong(lastHead), "the unused heads' pages are not stored into");
            assertEquals(0, UnsafeApi.getLong(arena.base() + ArenaHeaderDescriptor.freeHeadOffset(4000 / NativeArena.ALIGNMENT)));
            UnsafeApi.putLong(lastHead, 0);
            arena.writeHeader();
            file.force();
            smallOffset = small - arena.base();
            midOffset = mid - arena.base();
            arena.close();
        }
        assertNull(NativeArena.checkHeader(header(path), Files.size(path)));
        try (MappedFile again = MappedFile.open(path, NativeArena.HEADER_LENGTH + LIMIT))
        {
            final NativeArena reopened = new NativeArena(again, CHUNK, LIMIT, true);
            assertEquals(reopened.base() + smallOffset, reopened.allocate(40), "the small record's head survives");
            final long fresh = reopened.allocate(4000);
            assertEquals(reopened.base() + midOffset + 4000, fresh, "the taken 4000-byte record is not handed out twice");
            // A reopened header's heads bound the next writes as a free's do.
            reopened.free(fresh, 4000);
            reopened.writeHeader();
            assertEquals(fresh - reopened.base(), UnsafeApi.getLong(reopened.base() + ArenaHeaderDescriptor.freeHeadOffset(4000 / NativeArena.ALIGNMENT)));
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
