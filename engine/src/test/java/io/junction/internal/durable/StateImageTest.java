package io.junction.internal.durable;

import io.junction.internal.state.Chunks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Assumptions;

/** State directories are copied chunk by chunk, unchanged chunks linked, and restored byte for byte. */
class StateImageTest
{
    private static final long FINGERPRINT = 0xABCL;

    @TempDir
    Path temp;

    private final Random random = new Random(17);

    private byte[] bytes(final int size)
    {
        final byte[] data = new byte[size];
        random.nextBytes(data);
        return data;
    }

    private static CheckpointStore.Checkpoint checkpoint(final StateImage image, final CheckpointStore store, final long id)
        throws IOException
    {
        final CheckpointFiles writer = store.begin(id, FINGERPRINT, new long[] {id});
        image.write(writer, writer.directory());
        writer.commit(false);
        image.committed();
        return store.open(id, FINGERPRINT);
    }

    @Test
    void aStateDirectoryIsRestoredByteForByteFromItsChunks() throws IOException
    {
        final Path state = temp.resolve("state");
        Files.createDirectories(state.resolve("index"));
        final byte[] big = bytes(Chunks.CHUNK_BYTES * 2 + 123);
        final byte[] small = bytes(77);
        Files.write(state.resolve("arena.bin"), big);
        Files.write(state.resolve("index").resolve("map.dat"), small);
        Files.write(state.resolve("empty"), new byte[0]);
        final StateImage image = new StateImage(state);
        final CheckpointStore.Checkpoint first = checkpoint(image, new CheckpointStore(temp.resolve("chk")), 1);
        assertEquals(big.length + small.length, image.bytesWritten());

        Files.write(state.resolve("arena.bin"), bytes(10));
        Files.write(state.resolve("stray"), bytes(10));
        image.restore(first);
        assertArrayEquals(big, Files.readAllBytes(state.resolve("arena.bin")));
        assertArrayEquals(small, Files.readAllBytes(state.resolve("index").resolve("map.dat")));
        assertEquals(0, Files.size(state.resolve("empty")));
        assertFalse(Files.exists(state.resolve("stray")), "a restore replaces the directory's content");
    }

    @Test
    void unchangedChunksAreHardLinkedAndChangedOnesWritten() throws IOException
    {
        final Path state = temp.resolve("state");
        Files.createDirectories(state);
        final byte[] big = bytes(Chunks.CHUNK_BYTES * 3);
        Files.write(state.resolve("arena.bin"), big);
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(temp.resolve("chk"));
        final CheckpointStore.Checkpoint first = checkpoint(image, store, 1);

        big[Chunks.CHUNK_BYTES + 5] ^= 1;
        Files.write(state.resolve("arena.bin"), big);
        final CheckpointStore.Checkpoint second = checkpoint(image, store, 2);
        assertEquals(Chunks.CHUNK_BYTES, image.bytesWritten(), "only the middle chunk changed");
        assertEquals(2L * Chunks.CHUNK_BYTES, image.bytesLinked());
        final Object firstChunk = Files.readAttributes(first.files().get("c-0000-00000000"), BasicFileAttributes.class).fileKey();
        assertEquals(firstChunk, Files.readAttributes(second.files().get("c-0000-00000000"), BasicFileAttributes.class).fileKey(),
            "an unchanged chunk is the same file (a hard link)");
        assertNotEquals(Files.readAttributes(first.files().get("c-0000-00000001"), BasicFileAttributes.class).fileKey(),
            Files.readAttributes(second.files().get("c-0000-00000001"), BasicFileAttributes.class).fileKey());

        // The older checkpoint goes: the newer one still restores whole.
        store.retainOnly(Set.of(2L));
        Files.write(state.resolve("arena.bin"), bytes(1));
        image.restore(store.open(2, FINGERPRINT));
        assertArrayEquals(big, Files.readAllBytes(state.resolve("arena.bin")));

        // Linking to a checkpoint that was deleted since writes the chunk instead.
        final CheckpointStore.Checkpoint third = checkpoint(image, store, 3);
        store.retainOnly(Set.of());
        assertFalse(Files.exists(third.directory));
        checkpoint(image, store, 4);
        assertEquals(3L * Chunks.CHUNK_BYTES, image.bytesWritten());
    }

    @Test
    void aSymbolicLinkInTheStateDirectoryIsRefused() throws IOException
    {
        final Path state = temp.resolve("state");
        Files.createDirectories(state);
        Files.write(temp.resolve("outside"), bytes(10));
        Files.createSymbolicLink(state.resolve("link"), temp.resolve("outside"));
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(temp.resolve("chk"));
        final CheckpointFiles writer = store.begin(1, FINGERPRINT, new long[0]);
        final IOException refused = assertThrows(IOException.class, () -> image.write(writer, writer.directory()));
        assertTrue(refused.getMessage().contains("link"), refused.getMessage());
        writer.abort();
    }

    @Test
    void smallFilesAreWholeOrRefusedNamingTheFile() throws IOException
    {
        final Path file = temp.resolve("CLOSED");
        assertEquals(null, SmallFiles.read(file));
        SmallFiles.write(file, List.of("a", SmallFiles.positionsLine(new long[] {3, -4})));
        assertEquals(List.of("a", "positions 2 3 -4"), SmallFiles.read(file));
        assertArrayEquals(new long[] {3, -4}, SmallFiles.parsePositions(SmallFiles.read(file).get(1), file));
        final byte[] good = Files.readAllBytes(file);
        final byte[] flipped = good.clone();
        flipped[0] ^= 1;
        Files.write(file, flipped);
        assertTrue(assertThrows(IOException.class, () -> SmallFiles.read(file)).getMessage().contains(file + " is damaged"));
        Files.write(file, Arrays.copyOf(good, good.length - 3));
        assertTrue(assertThrows(IOException.class, () -> SmallFiles.read(file)).getMessage().contains(file.toString()));
        Files.write(file, new byte[0]);
        assertTrue(assertThrows(IOException.class, () -> SmallFiles.read(file)).getMessage().contains(file + " is truncated"));
    }

    @Test
    void theLockFileAndLeftoverTmpFilesAreNeitherCopiedNorDeletedByARestore() throws IOException
    {
        final Path state = temp.resolve("state");
        Files.createDirectories(state.resolve("sub"));
        final byte[] arena = bytes(1000);
        Files.write(state.resolve("arena.bin"), arena);
        // What a crash in the middle of an atomic write leaves: never renamed into place, not state.
        Files.write(state.resolve("heap.dat.tmp"), bytes(10));
        Files.write(state.resolve("sub").resolve("clean.tmp"), bytes(10));
        final StateImage image = new StateImage(state);
        try (DirectoryLock lock = DirectoryLock.acquire(state, "the state directory"))
        {
            final CheckpointStore.Checkpoint checkpoint = checkpoint(image, new CheckpointStore(temp.resolve("chk")), 1);
            final String index = Files.readString(checkpoint.files().get(StateImage.INDEX));
            assertTrue(index.contains("arena.bin"), index);
            assertFalse(index.contains(".tmp"), "a leftover temporary file is not state: " + index);
            assertFalse(index.contains(DirectoryLock.FILE_NAME), "the lock file is not state: " + index);
            assertEquals(arena.length, image.bytesWritten());
            image.restore(checkpoint);
            assertArrayEquals(arena, Files.readAllBytes(state.resolve("arena.bin")));
            assertFalse(Files.exists(state.resolve("heap.dat.tmp")), "a restore empties the directory first");
            assertTrue(Files.exists(lock.file()), "but never deletes the lock file: a waiter could lock another one");
            assertTrue(image.hasFiles());
            image.clear();
            assertFalse(image.hasFiles(), "the lock file alone is no state");
            assertTrue(Files.exists(lock.file()));
        }
    }

    @Test
    @SuppressWarnings("try") // a resource held for the duration of the block, not used in it
    void aDirectoryIsLockedByOneHolderAtATime() throws IOException
    {
        final Path dir = Files.createDirectories(temp.resolve("locked"));
        try (DirectoryLock first = DirectoryLock.acquire(dir, "the state root"))
        {
            final IOException refused = assertThrows(IOException.class, () -> DirectoryLock.acquire(dir, "the state root"));
            assertTrue(refused.getMessage().contains(dir.resolve(DirectoryLock.FILE_NAME) + " is locked"), refused.getMessage());
        }
        // Released: taken again, and the file left in place is reused.
        DirectoryLock.acquire(dir, "the state root").close();
    }

    @Test
    void aChunkThatCannotBeLinkedIsCopiedAndVerifies() throws IOException
    {
        // A hard link across file systems fails (EXDEV): the chunk is copied (and fsynced) instead.
        final Path shm = Path.of("/dev/shm");
        Assumptions.assumeTrue(Files.isDirectory(shm) && Files.isWritable(shm) &&
            !Files.getFileStore(shm).equals(Files.getFileStore(temp)), "needs a second file system (/dev/shm)");
        final Path elsewhere = Files.createTempFile(shm, "junction-chunk", ".bin");
        try
        {
            final byte[] data = bytes(5000);
            Files.write(elsewhere, data);
            final CRC32C crc = new CRC32C();
            crc.update(data);
            final CheckpointStore store = new CheckpointStore(temp.resolve("chk"));
            final CheckpointFiles writer = store.begin(1, FINGERPRINT, new long[] {1});
            writer.link("c-0000-00000000", elsewhere, data.length, crc.getValue());
            writer.commit(false);
            final CheckpointStore.Checkpoint opened = store.open(1, FINGERPRINT);
            assertArrayEquals(data, Files.readAllBytes(opened.files().get("c-0000-00000000")));
            assertEquals(1, ((Number)Files.getAttribute(opened.files().get("c-0000-00000000"), "unix:nlink")).intValue(),
                "a copy, not a link");
        }
        finally
        {
            Files.deleteIfExists(elsewhere);
        }
    }
}
