package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every mapped file of a durable partition state persists itself through {@link MappedPart} (docs/ARCHITECTURE.md
 * "State parts and their persistence"): the arena, the hash index's table and a unique-key index name their file,
 * collect the chunks written since the last image, force the file and report its length; the Chronicle Map index
 * reports no tracking (it is read whole) and syncs its file. The partition state's loop relies on nothing else.
 */
class MappedPartTest
{
    static final int CHUNK = 64 * 1024;
    static final long LIMIT = 16L << 20;
    static final long KEYS = 1024;

    /** The contract every part keeps: its file's name and length, its marks taken by collect, a force that works. */
    static void assertPersistsItself(final MappedPart part, final Path path, final boolean tracked) throws IOException
    {
        assertEquals(path.getFileName().toString(), part.fileName());
        part.collect();
        final DirtyChunks dirty = part.dirtyChunks();
        if (tracked)
        {
            assertNotNull(dirty, part.fileName() + " is tracked");
            assertTrue(dirty.collectedBytes() > 0, part.fileName() + ": collect took the chunks written");
            assertEquals(path.getFileName().toString(), dirty.name());
            dirty.uncollect();
        }
        else
        {
            assertNull(dirty, part.fileName() + " is not tracked");
        }
        part.force();
        assertEquals(Files.size(path), part.fileLength());
        assertTrue(part.fileLength() > 0);
    }

    static MappedFile arenaFile(final Path path) throws IOException
    {
        return MappedFile.create(path, NativeArena.HEADER_LENGTH + LIMIT, NativeArena.HEADER_LENGTH);
    }

    @Test
    void theArenaWritesItsHeaderWhenItCollects(@TempDir final Path dir) throws IOException
    {
        final Path path = dir.resolve("arena.dat");
        final long used;
        try (MappedFile file = arenaFile(path))
        {
            final NativeArena arena = new NativeArena(file, CHUNK, LIMIT, false);
            assertNotEquals(0, arena.allocate(64));
            assertNotEquals(0, arena.allocate(CHUNK * 2));
            used = arena.usedBytes();
            assertPersistsItself(arena, path, true);
            arena.close();
        }
        try (MappedFile file = MappedFile.open(path, NativeArena.HEADER_LENGTH + LIMIT))
        {
            // Only the header written by collect carries the bump pointer past both blocks.
            final NativeArena reopened = new NativeArena(file, CHUNK, LIMIT, true);
            assertEquals(used, reopened.usedBytes());
            reopened.close();
        }
    }

    @Test
    void theHashIndexTableIsATrackedPart(@TempDir final Path dir) throws IOException
    {
        final Path path = dir.resolve("index.dat");
        try (MappedFile arenaFile = arenaFile(dir.resolve("arena.dat")))
        {
            final NativeArena arena = new NativeArena(arenaFile, CHUNK, LIMIT, false);
            final long tableBytes = HashKeyIndex.tableBytes(KEYS);
            final MappedFile table = MappedFile.create(path, tableBytes, tableBytes);
            try (KeyIndex index = new HashKeyIndex(KEYS, BucketDescriptor.LENGTH, arena, table, 0))
            {
                for (long k = 1; k <= 10; k++)
                {
                    assertNotEquals(0, index.findOrCreate(k * 0x9E37_79B9_7F4A_7C15L));
                }
                assertPersistsItself(index, path, true);
            }
            arena.close();
        }
    }

    @Test
    void theChronicleIndexIsAnUntrackedPart(@TempDir final Path dir) throws IOException
    {
        final Path path = dir.resolve("index.chronicle");
        try (MappedFile arenaFile = arenaFile(dir.resolve("arena.dat")))
        {
            final NativeArena arena = new NativeArena(arenaFile, CHUNK, LIMIT, false);
            try (KeyIndex index = new ChronicleKeyIndex(KEYS, BucketDescriptor.LENGTH, arena, path.toFile(), 0))
            {
                for (long k = 1; k <= 10; k++)
                {
                    assertNotEquals(0, index.findOrCreate(k * 0x9E37_79B9_7F4A_7C15L));
                }
                assertPersistsItself(index, path, false);
            }
            arena.close();
        }
    }

    @Test
    void aUniqueKeyIndexIsATrackedPart(@TempDir final Path dir) throws IOException
    {
        final Path path = dir.resolve("unique-left.dat");
        try (MappedFile arenaFile = arenaFile(dir.resolve("arena.dat")))
        {
            final NativeArena arena = new NativeArena(arenaFile, CHUNK, LIMIT, false);
            final MappedFile file = MappedFile.create(path, UniqueKeyIndex.maxOffHeapBytes(KEYS), 0);
            try (UniqueKeyIndex unique = new UniqueKeyIndex(KEYS, arena.base(), file, 0))
            {
                final long record = arena.allocate(64);
                assertTrue(unique.ensureRoom());
                unique.put(42, record);
                assertPersistsItself(unique, path, true);
            }
            arena.close();
        }
    }
}
