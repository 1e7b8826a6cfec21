package io.junction.internal.durable;

import io.junction.internal.state.Chunks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The chunk sums taken by a pool of workers are those of one reader, chunk by chunk, whatever the pool's size. */
final class ParallelSumsTest
{
    private static final int CHUNK = Chunks.CHUNK_BYTES;

    @TempDir
    Path temp;

    /** Seven chunks and a bit: random ones, zero ones, and a short last one of random bytes. */
    private Path file(final String name, final long seed) throws IOException
    {
        final byte[] bytes = new byte[7 * CHUNK + 12_345];
        new Random(seed).nextBytes(bytes);
        Arrays.fill(bytes, 2 * CHUNK, 4 * CHUNK, (byte)0);
        final Path path = temp.resolve(name);
        Files.write(path, bytes);
        return path;
    }

    @Test
    void everyPoolSizeGivesTheSumsOfOneSequentialReader() throws IOException
    {
        final Path path = file("a", 1);
        final byte[] bytes = Files.readAllBytes(path);
        final int chunks = ChunkSums.chunks(bytes.length);
        assertEquals(8, chunks);
        for (final int threads : new int[] {1, 2, 3, 16})
        {
            final ParallelSums.Whole whole = new ParallelSums.Whole(path, bytes.length);
            ParallelSums.sum(List.of(whole), threads);
            assertEquals(bytes.length, whole.bytesRead, threads + " threads read every byte once");
            for (int c = 0; c < chunks; c++)
            {
                final int at = c * CHUNK;
                final int length = Math.min(CHUNK, bytes.length - at);
                final CRC32C a = new CRC32C();
                a.update(bytes, at, length);
                final CRC32 b = new CRC32();
                b.update(bytes, at, length);
                assertEquals((int)a.getValue(), whole.crc32c[c], threads + " threads, chunk " + c);
                assertEquals((int)b.getValue(), whole.crc32[c], threads + " threads, chunk " + c);
                assertEquals(c == 2 || c == 3, whole.zero[c], threads + " threads, chunk " + c + " zero");
            }
        }
        final ChunkSums.FileSums computed = ChunkSums.compute(path, bytes.length);
        final ParallelSums.Whole one = new ParallelSums.Whole(path, bytes.length);
        ParallelSums.sum(List.of(one), 1);
        assertArrayEquals(one.crc32c, computed.crc32cs());
        assertArrayEquals(one.crc32, computed.crc32s());
        assertArrayEquals(one.zero, computed.zeros());
    }

    @Test
    void severalFilesAtOnceKeepTheirOwnSumsAndOnlyTheChunksAskedAreRead() throws IOException
    {
        final Path a = file("a", 2);
        final Path b = file("b", 3);
        final ParallelSums.Whole wholeA = new ParallelSums.Whole(a, Files.size(a));
        ParallelSums.sum(List.of(wholeA), 1);
        final ParallelSums.Whole wholeB = new ParallelSums.Whole(b, Files.size(b));
        ParallelSums.sum(List.of(wholeB), 1);

        final ParallelSums.Whole bothA = new ParallelSums.Whole(a, Files.size(a));
        final boolean[] todo = new boolean[ChunkSums.chunks(Files.size(b))];
        todo[1] = true;
        todo[7] = true;
        final int[] crc32c = new int[todo.length];
        final int[] crc32 = new int[todo.length];
        final boolean[] hasCrc32 = new boolean[todo.length];
        // CRC-32 only where the CRC-32C is chunk 1's (as a restore takes it only where the CRC-32C matches).
        final ParallelSums.Target someB = new ParallelSums.Target(b, Files.size(b), todo.length, todo, crc32c, crc32, hasCrc32, null)
        {
            @Override
            boolean wantsCrc32(final int c, final int sum)
            {
                return sum == wholeB.crc32c[1];
            }
        };
        ParallelSums.sum(List.of(bothA, someB), 2);
        assertArrayEquals(wholeA.crc32c, bothA.crc32c);
        assertArrayEquals(wholeA.crc32, bothA.crc32);
        assertEquals(CHUNK + 12_345, someB.bytesRead, "chunks 1 and 7 only");
        assertEquals(wholeB.crc32c[1], crc32c[1]);
        assertEquals(wholeB.crc32c[7], crc32c[7]);
        assertTrue(hasCrc32[1]);
        assertEquals(wholeB.crc32[1], crc32[1]);
        assertFalse(hasCrc32[7], "its CRC-32C decided: no CRC-32 taken");
        assertEquals(0, crc32c[0], "not asked, not read");
    }

    @Test
    void aFileShorterThanItsTargetFailsNamingIt() throws IOException
    {
        final Path a = file("a", 4);
        final ParallelSums.Whole whole = new ParallelSums.Whole(a, Files.size(a) + CHUNK);
        final EOFException e = assertThrows(EOFException.class, () -> ParallelSums.sum(List.of(whole), 2));
        assertTrue(e.getMessage().contains(a.toString()), e.getMessage());
    }
}
