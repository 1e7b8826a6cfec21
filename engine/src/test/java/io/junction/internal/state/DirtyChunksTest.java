package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Dirty-chunk tracking: a persist's sum reads only the chunks marked since the one before (and the chunk
 * whose length changed), records never-written chunks as zeros without reading them, keeps the sums of
 * the rest, and in check mode (the test suites' {@value DirtyChunks#CHECK_PROP_NAME}) refuses a byte
 * changed without a mark; the arena's map in its header marks every write path's chunk.
 */
class DirtyChunksTest
{
    static final int MIB = Chunks.CHUNK_BYTES;
    final ByteBuffer scratch = ByteBuffer.allocateDirect(MIB);

    static int crc32c(final long address, final int length)
    {
        final byte[] bytes = new byte[length];
        new UnsafeBuffer(address, length).getBytes(0, bytes);
        final CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (int)crc.getValue();
    }

    void persist(final DirtyChunks dirty)
    {
        dirty.collect();
        dirty.sum(scratch);
    }

    @Test
    void aSumReadsOnlyWhatWasWrittenAndRecordsTheRestAsZerosOrAsBefore(@TempDir final Path dir) throws IOException
    {
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 16L * MIB, 8L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            persist(dirty);
            assertEquals(8, dirty.zeros().length);
            for (int c = 0; c < 8; c++)
            {
                assertTrue(dirty.zeros()[c], "a fresh file is zeros: chunk " + c);
            }
            assertEquals(0, dirty.bytesSummed(), "a fresh file is not read");
            assertEquals(crc32c(file.address(), MIB), dirty.crc32c()[0], "a zero chunk has the zeros' CRC-32C");

            UnsafeApi.putLong(file.address() + 3L * MIB + 64, 42);
            dirty.mark(file.address() + 3L * MIB + 64);
            persist(dirty);
            assertEquals(MIB, dirty.bytesSummed(), "only the written chunk is read");
            assertFalse(dirty.zeros()[3]);
            assertEquals(crc32c(file.address() + 3L * MIB, MIB), dirty.crc32c()[3]);
            assertTrue(dirty.zeros()[2] && dirty.zeros()[4]);

            persist(dirty);
            assertEquals(0, dirty.bytesSummed(), "nothing written: nothing read");
            assertEquals(crc32c(file.address() + 3L * MIB, MIB), dirty.crc32c()[3], "the sums stay");

            // A range across a chunk boundary marks both chunks; growth adds zero chunks unread.
            UnsafeApi.setMemory(file.address() + 5L * MIB - 8, 16, (byte)7);
            dirty.mark(file.address() + 5L * MIB - 8, 16);
            assertTrue(file.ensureLength(10L * MIB + 100));
            persist(dirty);
            assertEquals(11, dirty.zeros().length);
            assertFalse(dirty.zeros()[4]);
            assertFalse(dirty.zeros()[5]);
            assertTrue(dirty.zeros()[8] && dirty.zeros()[9] && dirty.zeros()[10], "grown by zeros");
            assertEquals(crc32c(file.address() + 10L * MIB, 100), dirty.crc32c()[10], "the short last chunk's zeros");
            assertTrue(dirty.bytesSummed() <= 3L * MIB, "the two written chunks, and at most the one at the old end: " +
                dirty.bytesSummed());

            // Zeroed again: the chunk is recorded as zeros.
            UnsafeApi.putLong(file.address() + 3L * MIB + 64, 0);
            dirty.mark(file.address() + 3L * MIB + 64);
            persist(dirty);
            assertTrue(dirty.zeros()[3]);
        }
    }

    @Test
    void checkModeFindsAWriteThatDidNotMark(@TempDir final Path dir) throws IOException
    {
        assumeTrue(DirtyChunks.checking(), "the test suites run in check mode");
        try (MappedFile file = MappedFile.create(dir.resolve("t.dat"), 4L * MIB, 2L * MIB);
            DirtyChunks dirty = new DirtyChunks(file))
        {
            UnsafeApi.putByte(file.address() + 10, (byte)1);
            dirty.mark(file.address() + 10);
            persist(dirty);
            // A write into the same chunk but another page, unmarked: the chunk is dirty, the page is not.
            UnsafeApi.putByte(file.address() + 10, (byte)2);
            dirty.mark(file.address() + 10);
            UnsafeApi.putByte(file.address() + MIB / 2, (byte)3);
            final IllegalStateException e = assertThrows(IllegalStateException.class, dirty::collect);
            assertTrue(e.getMessage().contains("t.dat byte " + MIB / 2) && e.getMessage().contains("without a dirty mark"),
                e.getMessage());
        }
    }

    @Test
    void theArenasWritePathsMarkTheirChunksInItsHeader(@TempDir final Path dir) throws IOException
    {
        try (MappedFile file = MappedFile.create(dir.resolve("arena.dat"), NativeArena.HEADER_LENGTH + 64L * MIB,
            NativeArena.HEADER_LENGTH))
        {
            final NativeArena arena = new NativeArena(file, 1 << 20, 64L * MIB, false);
            final DirtyChunks dirty = arena.dirtyChunks();
            dirty.collect();
            arena.writeHeader();
            dirty.collectToo(0);
            dirty.sum(scratch);
            final long[] records = new long[3000];
            for (int i = 0; i < records.length; i++)
            {
                records[i] = arena.allocate(4000);
                UnsafeApi.putLong(records[i], i + 1);
                NativeArena.written(arena.base(), records[i]);
            }
            dirty.collect();
            arena.writeHeader();
            dirty.collectToo(0);
            dirty.sum(scratch);
            final long grown = dirty.bytesSummed();
            assertTrue(grown > 10L * MIB, "the chunks written: " + grown);
            // One record written (in place) and one freed (a free-list link): only their chunks are read again.
            UnsafeApi.putLong(records[2000], -1);
            NativeArena.written(arena.base(), records[2000]);
            arena.free(records[10], 4000);
            dirty.collect();
            arena.writeHeader();
            dirty.collectToo(0);
            dirty.sum(scratch);
            assertTrue(dirty.bytesSummed() <= 3L * MIB, "the header's chunk and the two written: " + dirty.bytesSummed());
            for (int at = NativeArena.MAP_OFFSET; at < NativeArena.HEADER_LENGTH; at++)
            {
                assertEquals(0, UnsafeApi.getByte(file.address() + at), "a persisted header holds no mark: byte " + at);
            }
            arena.close();
        }
    }

    @Test
    void cellsCoverTheMappingWithinTheirBudget()
    {
        assertTrue(DirtyChunks.cellShift(1L << 40, NativeArena.MAP_BYTES) > Chunks.CHUNK_SHIFT,
            "a TiB arena has cells of more than a MiB");
        assertTrue(DirtyChunks.cellsOf(1L << 40, DirtyChunks.cellShift(1L << 40, NativeArena.MAP_BYTES)) <= NativeArena.MAP_BYTES);
        assertTrue(DirtyChunks.cellShift(4L << 30, NativeArena.MAP_BYTES) <= Chunks.CHUNK_SHIFT,
            "the default 4 GiB arena is tracked at a MiB or finer");
        assertTrue(NativeArena.MAP_OFFSET >= 2048 + 8 * (NativeArena.MAX_POOLED_SIZE / 8 + 1),
            "the map lies after the largest free-list table");
    }
}
