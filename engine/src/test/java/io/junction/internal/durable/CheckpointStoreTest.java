package io.junction.internal.durable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Checkpoints are complete or ignored, damage is named, another join's state is refused, two are kept. */
class CheckpointStoreTest
{
    private static final long FINGERPRINT = 0xFEEDL;

    @TempDir
    Path temp;

    private static Path write(final CheckpointStore store, final long id, final String content) throws IOException
    {
        try (CheckpointFiles writer = store.begin(id, FINGERPRINT, new long[] {id * 10, id * 20}))
        {
            final WritableByteChannel a = writer.file("arena.bin");
            a.write(ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8)));
            final WritableByteChannel b = writer.file("index.bin");
            final ByteBuffer direct = ByteBuffer.allocateDirect(4096);
            for (int i = 0; i < 4096; i++)
            {
                direct.put((byte)(i * id));
            }
            direct.flip();
            b.write(direct);
            return writer.commit();
        }
    }

    private static void flipByte(final Path file, final long at) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, at);
            one.flip();
            one.put(0, (byte)(one.get(0) ^ 0x01));
            channel.write(one, at);
        }
    }

    @Test
    void aCommittedCheckpointOpensWithItsPositionsAndFiles() throws IOException
    {
        final CheckpointStore store = new CheckpointStore(temp.resolve("p0"));
        assertNull(store.latest(FINGERPRINT), "an empty directory has no checkpoint");
        write(store, 1, "first");
        write(store, 2, "second");
        final CheckpointStore.Checkpoint latest = store.latest(FINGERPRINT);
        assertEquals(2, latest.id);
        assertArrayEquals(new long[] {20, 40}, latest.positions());
        assertEquals(List.of("arena.bin", "index.bin"), new ArrayList<>(latest.files().keySet()));
        assertEquals("second", Files.readString(latest.files().get("arena.bin")));
        assertTrue(latest.skipped().isEmpty());
    }

    @Test
    void aCheckpointWithoutItsManifestIsIgnored() throws IOException
    {
        final CheckpointStore store = new CheckpointStore(temp);
        write(store, 1, "complete");
        // Closed (aborted) only after latest() has looked at the half-written checkpoint.
        try (CheckpointFiles half = store.begin(2, FINGERPRINT, new long[] {5}))
        {
            half.file("arena.bin").write(ByteBuffer.wrap(new byte[100]));
            // The process dies here: no commit.
            final CheckpointStore.Checkpoint latest = store.latest(FINGERPRINT);
            assertEquals(1, latest.id);
            assertTrue(latest.skipped().get(0).contains("incomplete"), latest.skipped().toString());
        }
    }

    @Test
    void aFlippedByteTruncationOrMissingFileIsNamedAndThePreviousCheckpointIsUsed() throws IOException
    {
        for (final String damage : new String[] {"flip", "truncate", "empty", "delete", "manifest"})
        {
            final CheckpointStore store = new CheckpointStore(temp.resolve(damage));
            write(store, 1, "older");
            final Path newest = write(store, 2, "newer");
            final Path index = newest.resolve("index.bin");
            switch (damage)
            {
                case "flip":
                    flipByte(index, 1234);
                    break;
                case "truncate":
                    try (FileChannel channel = FileChannel.open(index, StandardOpenOption.WRITE))
                    {
                        channel.truncate(100);
                    }
                    break;
                case "empty":
                    Files.write(index, new byte[0]);
                    break;
                case "delete":
                    Files.delete(index);
                    break;
                default:
                    flipByte(newest.resolve(CheckpointStore.MANIFEST), 30);
            }
            final CheckpointStore.Checkpoint latest = store.latest(FINGERPRINT);
            assertEquals(1, latest.id, damage);
            assertEquals("older", Files.readString(latest.files().get("arena.bin")));
            final String reason = latest.skipped().get(0);
            assertTrue(reason.contains(damage.equals("manifest") ? "MANIFEST" : "index.bin"), damage + ": " + reason);
        }
    }

    @Test
    void whenEveryCheckpointIsDamagedOpeningFailsNamingEachFile() throws IOException
    {
        final CheckpointStore store = new CheckpointStore(temp);
        flipByte(write(store, 1, "a").resolve("arena.bin"), 0);
        flipByte(write(store, 2, "b").resolve("index.bin"), 7);
        final IOException e = assertThrows(IOException.class, () -> store.latest(FINGERPRINT));
        assertTrue(e.getMessage().contains("arena.bin"),
            e.getMessage());
        assertTrue(e.getMessage().contains("index.bin"), e.getMessage());
    }

    @Test
    void anotherJoinsCheckpointIsRefused() throws IOException
    {
        final CheckpointStore store = new CheckpointStore(temp);
        write(store, 1, "x");
        final IOException e = assertThrows(IOException.class, () -> store.latest(0xBADL));
        assertTrue(e.getMessage().contains("another join"), e.getMessage());
        assertTrue(e.getMessage().contains("000000000000feed"), e.getMessage());
    }

    @Test
    void theNewestTwoCompleteCheckpointsAreKept() throws IOException
    {
        final CheckpointStore store = new CheckpointStore(temp);
        for (long id = 1; id <= 5; id++)
        {
            write(store, id, "c" + id);
        }
        try (Stream<Path> dirs = Files.list(temp))
        {
            assertEquals(List.of("chk-0000000000000000004", "chk-0000000000000000005"),
                dirs.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertThrows(IOException.class, () -> store.begin(5, FINGERPRINT, new long[0]), "ids only grow");
    }

    @Test
    void stateDirectoriesAndFilesAreOwnerOnly() throws IOException
    {
        final CheckpointStore store = new CheckpointStore(temp.resolve("a/b/state"));
        final Path dir = write(store, 1, "secret rows");
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(store.directory())));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("arena.bin"))));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(CheckpointStore.MANIFEST))));
    }

    @Test
    void anAbortedCheckpointLeavesNothing() throws IOException
    {
        final CheckpointStore store = new CheckpointStore(temp);
        try (CheckpointFiles writer = store.begin(1, FINGERPRINT, new long[0]))
        {
            writer.file("arena.bin").write(ByteBuffer.wrap(new byte[10]));
        }
        try (Stream<Path> dirs = Files.list(temp))
        {
            assertEquals(0, dirs.count());
        }
        try (CheckpointFiles writer = store.begin(2, FINGERPRINT, new long[0]))
        {
            assertThrows(IllegalArgumentException.class, () -> writer.file("../escape"));
        }
        try (Stream<Path> dirs = Files.list(temp))
        {
            assertEquals(0, dirs.count());
        }
    }
}
