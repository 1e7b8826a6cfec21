package io.junction.internal.durable;

import io.junction.internal.state.Chunks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A restore writes only the chunks whose sums differ from the live state's (docs/DURABILITY.md "Recovery"):
 * after changes in k of n chunks it writes k chunks and leaves the directory byte-identical to a full
 * restore's; a chunk equal to the live one is not read from the checkpoint (its damage is not looked at);
 * a damaged live chunk is restored and named; a truncated, grown or missing live file is restored; a
 * damaged checkpoint chunk that the restore needs is refused, named, as before.
 */
class IncrementalRestoreTest
{
    private static final long FINGERPRINT = 0x5EEDL;
    private static final int CHUNK = Chunks.CHUNK_BYTES;

    @TempDir
    Path temp;

    private static CheckpointStore.Checkpoint checkpoint(final StateImage image, final CheckpointStore store, final long id)
        throws IOException
    {
        final CheckpointFiles writer = store.begin(id, FINGERPRINT, new long[] {id});
        image.write(writer, writer.directory());
        writer.commit(false);
        image.committed();
        return store.open(id, FINGERPRINT);
    }

    /** Opens a checkpoint as the engine does for a restore: verified as far as the restore reads it. */
    private static CheckpointStore.Checkpoint openForRestore(final StateImage image, final CheckpointStore store, final long id)
        throws IOException
    {
        image.beginRestore();
        return store.open(id, FINGERPRINT, image.reads());
    }

    /** @return every file of a directory (but the lock), relative, with its bytes. */
    private static Map<String, byte[]> content(final Path dir) throws IOException
    {
        final Map<String, byte[]> files = new LinkedHashMap<>();
        try (Stream<Path> walk = Files.walk(dir))
        {
            final List<Path> paths = new ArrayList<>();
            walk.filter(Files::isRegularFile).sorted(Comparator.naturalOrder()).forEach(paths::add);
            for (final Path path : paths)
            {
                final String relative = dir.relativize(path).toString();
                if (!relative.equals(DirectoryLock.FILE_NAME))
                {
                    files.put(relative, Files.readAllBytes(path));
                }
            }
        }
        return files;
    }

    private static void assertSameContent(final Map<String, byte[]> expected, final Map<String, byte[]> actual, final String what)
    {
        assertEquals(expected.keySet(), actual.keySet(), what + ": the files");
        for (final Map.Entry<String, byte[]> file : expected.entrySet())
        {
            assertArrayEquals(file.getValue(), actual.get(file.getKey()), what + ": " + file.getKey());
        }
    }

    private static void overwrite(final Path file, final long at, final byte[] bytes) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(at);
            raf.write(bytes);
        }
    }

    /** A state of a few multi-chunk files, some chunks zeros, and small files. */
    private static void build(final Path state, final Random random, final int chunks) throws IOException
    {
        Files.createDirectories(state);
        final byte[] arena = new byte[chunks * CHUNK + random.nextInt(CHUNK)];
        random.nextBytes(arena);
        for (int c = 0; c < chunks; c += 3)
        {
            // Every third chunk zeros: recorded in the index, not stored.
            Arrays.fill(arena, c * CHUNK, Math.min(arena.length, (c + 1) * CHUNK), (byte)0);
        }
        Files.write(state.resolve("arena.dat"), arena);
        Files.write(state.resolve("index.dat"), new byte[2 * CHUNK]);
        final byte[] heap = new byte[100 + random.nextInt(1000)];
        random.nextBytes(heap);
        Files.write(state.resolve("heap.dat"), heap);
    }

    @Test
    void aRestoreAfterChangesInKOfNChunksWritesKAndEqualsAFullRestore() throws IOException
    {
        for (int seed = 0; seed < 24; seed++)
        {
            final Random random = new Random(1000 + seed);
            final Path root = temp.resolve("s" + seed);
            final Path state = root.resolve("state");
            final int chunks = 2 + random.nextInt(5);
            build(state, random, chunks);
            final StateImage image = new StateImage(state);
            final CheckpointStore store = new CheckpointStore(root.resolve("chk"));
            checkpoint(image, store, 1);
            final Map<String, byte[]> atCheckpoint = content(state);

            // k distinct chunks of the arena changed (some to zeros, some a byte), maybe a file grown, cut or added.
            final int k = random.nextInt(chunks + 1);
            final List<Integer> order = new ArrayList<>();
            for (int c = 0; c < chunks; c++)
            {
                order.add(c);
            }
            Collections.shuffle(order, random);
            long expectedWritten = 0;
            final Path arena = state.resolve("arena.dat");
            final byte[] before = Files.readAllBytes(arena);
            for (int i = 0; i < k; i++)
            {
                final int c = order.get(i);
                final int at = c * CHUNK + random.nextInt(CHUNK);
                final byte old = before[at];
                overwrite(arena, at, new byte[] {(byte)(old + 1 + random.nextInt(200))});
                expectedWritten += CHUNK;
            }
            final int shape = random.nextInt(4);
            if (shape == 1)
            {
                try (RandomAccessFile raf = new RandomAccessFile(state.resolve("index.dat").toFile(), "rw"))
                {
                    raf.setLength(3L * CHUNK + 5);
                }
            }
            else if (shape == 2)
            {
                try (RandomAccessFile raf = new RandomAccessFile(state.resolve("index.dat").toFile(), "rw"))
                {
                    raf.setLength(CHUNK / 2);
                }
                expectedWritten += CHUNK - CHUNK / 2 + CHUNK;
            }
            else if (shape == 3)
            {
                Files.write(state.resolve("stray.tmp"), new byte[] {1, 2, 3});
                Files.write(state.resolve("other.dat"), new byte[] {4});
            }

            final CheckpointStore.Checkpoint opened = openForRestore(image, store, 1);
            image.restore(opened);
            assertSameContent(atCheckpoint, content(state), "seed " + seed + ", " + k + " of " + chunks + " chunks changed");
            if (shape != 2)
            {
                assertEquals(expectedWritten, image.restoreBytesWritten(), "seed " + seed + ": only the changed chunks are written");
            }
            else
            {
                // The cut index file: its first chunk's rest and its second chunk (zeros) written again.
                assertEquals(k * (long)CHUNK + 2L * CHUNK, image.restoreBytesWritten(), "seed " + seed);
            }

            // The same checkpoint restored in full into an empty directory: the same bytes.
            final Path fresh = root.resolve("fresh");
            final StateImage full = new StateImage(fresh);
            full.restore(store.open(1, FINGERPRINT));
            assertSameContent(atCheckpoint, content(fresh), "seed " + seed + ": a full restore");
        }
    }

    @Test
    void aRestoreOfUnchangedStateWritesNothingAndReadsNoChunkOfTheCheckpoint() throws IOException
    {
        final Path state = temp.resolve("state");
        build(state, new Random(3), 4);
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(temp.resolve("chk"));
        final CheckpointStore.Checkpoint written = checkpoint(image, store, 1);
        final Map<String, byte[]> atCheckpoint = content(state);
        // Damage every stored chunk of the checkpoint: a restore that needs none of them never reads them.
        for (final Map.Entry<String, Path> file : written.files().entrySet())
        {
            if (file.getKey().startsWith("c-"))
            {
                overwrite(file.getValue(), 0, new byte[] {(byte)0x5A, (byte)0xA5});
            }
        }
        final CheckpointStore.Checkpoint opened = openForRestore(image, store, 1);
        for (final String name : opened.files().keySet())
        {
            assertEquals(!name.startsWith("c-"), opened.verified(name), name + ": only what the restore reads is verified");
        }
        image.restore(opened);
        assertEquals(0, image.restoreBytesWritten());
        assertSameContent(atCheckpoint, content(state), "unchanged");
        assertTrue(image.restoreDamaged().isEmpty());
        // Opened in full, the same checkpoint is refused, naming the damaged chunk.
        final IOException e = assertThrows(IOException.class, () -> store.open(1, FINGERPRINT));
        assertTrue(e.getMessage().contains("is damaged (its checksum does not match the manifest)"), e.getMessage());
    }

    @Test
    void aDamagedCheckpointChunkThatTheRestoreNeedsIsRefusedAndNamed() throws IOException
    {
        final Path state = temp.resolve("state");
        build(state, new Random(4), 3);
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(temp.resolve("chk"));
        checkpoint(image, store, 1);
        final Path arena = state.resolve("arena.dat");
        overwrite(arena, CHUNK + 10, new byte[] {1, 2, 3, 4});
        // Chunk 1 of the arena (file 0 of the sorted list) differs: its checkpoint file is read, and it is damaged.
        final Path chunk = store.directoryOf(1).resolve("c-0000-00000001");
        assertTrue(Files.exists(chunk));
        overwrite(chunk, 7, new byte[] {9, 9, 9});
        final byte[] live = Files.readAllBytes(arena);
        final IOException e = assertThrows(IOException.class, () -> openForRestore(image, store, 1));
        assertTrue(e.getMessage().contains(chunk.toString()) && e.getMessage().contains("is damaged"), e.getMessage());
        assertArrayEquals(live, Files.readAllBytes(arena), "nothing was written: the checkpoint was refused before");
        // latest() passes it over as any damaged checkpoint, and says so when none is left.
        image.beginRestore();
        final IOException none = assertThrows(IOException.class, () -> store.latest(FINGERPRINT, null, image.reads()));
        assertTrue(none.getMessage().contains("no complete checkpoint") && none.getMessage().contains(chunk.toString()),
            none.getMessage());
    }

    @Test
    void aDamagedLiveChunkIsRestoredAndNamed() throws IOException
    {
        final Path state = temp.resolve("state");
        build(state, new Random(5), 3);
        // A persisted state: its chunk sums and marker beside it (the sums a reopen verifies).
        final Map<String, ChunkSums.FileSums> sums = new LinkedHashMap<>();
        for (final String name : List.of("arena.dat", "index.dat"))
        {
            sums.put(name, ChunkSums.compute(state.resolve(name), Files.size(state.resolve(name))));
        }
        Files.write(state.resolve(ChunkSums.FILE_NAME), ChunkSums.encode(sums));
        Files.write(state.resolve(ChunkSums.MARKER_NAME), new byte[] {1});
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(temp.resolve("chk"));
        checkpoint(image, store, 1);
        final Map<String, byte[]> atCheckpoint = content(state);
        final Path arena = state.resolve("arena.dat");
        overwrite(arena, 2L * CHUNK + 99, new byte[] {(byte)0xFF, (byte)0xEE});
        image.restore(openForRestore(image, store, 1));
        assertSameContent(atCheckpoint, content(state), "damaged live chunk restored");
        assertEquals(CHUNK + Files.size(state.resolve(ChunkSums.MARKER_NAME)), image.restoreBytesWritten(),
            "the damaged chunk and the marker (always written last) only");
        assertEquals(1, image.restoreDamaged().size(), image.restoreDamaged().toString());
        final String named = image.restoreDamaged().get(0);
        assertTrue(named.contains(arena.toString()) && named.contains("chunk 2"), named);
    }

    @Test
    void aMissingOrTruncatedLiveFileIsRestoredAndAMissingDirectoryIsAFullCopy() throws IOException
    {
        final Path state = temp.resolve("state");
        build(state, new Random(6), 3);
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(temp.resolve("chk"));
        checkpoint(image, store, 1);
        final Map<String, byte[]> atCheckpoint = content(state);
        long total = 0;
        for (final byte[] bytes : atCheckpoint.values())
        {
            total += bytes.length;
        }

        Files.delete(state.resolve("index.dat"));
        try (RandomAccessFile raf = new RandomAccessFile(state.resolve("arena.dat").toFile(), "rw"))
        {
            raf.setLength(0);
        }
        image.restore(openForRestore(image, store, 1));
        assertSameContent(atCheckpoint, content(state), "missing and truncated");

        // Nothing there at all: every byte written, zeros included (no holes in a mapped file).
        new StateImage(state).clear();
        Files.delete(state);
        assertFalse(Files.exists(state));
        image.restore(openForRestore(image, store, 1));
        assertSameContent(atCheckpoint, content(state), "full copy");
        assertEquals(total, image.restoreBytesWritten());
        assertEquals(0, image.restoreBytesCompared(), "nothing live to compare");
    }

    @Test
    void aRestoreReturnsTheSumsOfWhatItRestoredAndKeepsNoneAnywhere() throws IOException
    {
        final Path state = temp.resolve("state");
        build(state, new Random(7), 2);
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(temp.resolve("chk"));
        checkpoint(image, store, 1);
        final Map<String, ChunkSums.FileSums> returned = image.restore(openForRestore(image, store, 1));
        final ChunkSums.FileSums arena = ChunkSums.compute(state.resolve("arena.dat"), Files.size(state.resolve("arena.dat")));
        assertArrayEquals(arena.crc32cs(), returned.get("arena.dat").crc32cs());
        assertArrayEquals(arena.crc32s(), returned.get("arena.dat").crc32s());
        assertArrayEquals(arena.zeros(), returned.get("arena.dat").zeros());
        assertEquals(arena.length, returned.get("arena.dat").length);
        // Another state directory restored in the same process gets its own sums: nothing is shared or mixed.
        final Path other = temp.resolve("other");
        build(other, new Random(8), 3);
        final StateImage otherImage = new StateImage(other);
        final CheckpointStore otherStore = new CheckpointStore(temp.resolve("chk-other"));
        checkpoint(otherImage, otherStore, 1);
        final Map<String, ChunkSums.FileSums> otherReturned = otherImage.restore(openForRestore(otherImage, otherStore, 1));
        final ChunkSums.FileSums otherArena = ChunkSums.compute(other.resolve("arena.dat"), Files.size(other.resolve("arena.dat")));
        assertArrayEquals(otherArena.crc32cs(), otherReturned.get("arena.dat").crc32cs());
        assertFalse(Arrays.equals(arena.crc32cs(), otherArena.crc32cs()), "the two directories differ");
        assertArrayEquals(arena.crc32cs(), returned.get("arena.dat").crc32cs(), "the first restore's sums are its own");
    }
}
