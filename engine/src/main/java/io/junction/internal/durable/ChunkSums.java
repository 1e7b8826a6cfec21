package io.junction.internal.durable;

import io.junction.internal.state.Chunks;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The chunk sums of a state directory's mapped files as of its last persist, in the file
 * {@value #FILE_NAME} beside them, so that a checkpoint ({@link StateImage#write}) knows every chunk's
 * checksums without reading it: a chunk whose sums equal the previous checkpoint's is linked unread, a
 * chunk of zeros is recorded and not stored. Written by the persist before the state's marker, which is
 * removed before any change to the files: the sums describe the files exactly while
 * {@value #MARKER_NAME} exists, and are not used otherwise.
 * <pre>
 *   0        8        12       16
 *   +--------+--------+--------+------------------------------------------------+
 *   | magic  | version| files  | per file: name length (u16), name (UTF-8),      |
 *   | (i64)  | (i32)  | (i32)  | length (i64), chunks (i32), per chunk: zero (u8),|
 *   |        |        |        | CRC-32C (i32), CRC-32 (i32)                      |
 *   +--------+--------+--------+------------------------------------------------+
 *   | CRC-32C of everything before (i64)                                          |
 *   +------------------------------------------------------------------------------+
 * </pre>
 *
 * <p>Not thread safe: used by the thread that persists or checkpoints the state.
 */
public final class ChunkSums
{
    /** The file's name in a state directory. */
    public static final String FILE_NAME = "chunks.sum";
    /** The state's marker, written after this file and removed before any change to the state. */
    public static final String MARKER_NAME = "clean";
    private static final long MAGIC = 0x4A4E4353554D5331L;
    private static final int VERSION = 1;
    private static final int HEADER_LENGTH = 8 + 4 + 4;
    private static final int PER_CHUNK = 1 + 4 + 4;

    private ChunkSums()
    {
    }

    /** The sums of one file: per chunk a zero flag, the CRC-32C and the CRC-32. */
    public static final class FileSums
    {
        /** The file's length. */
        public final long length;
        private final boolean[] zero;
        private final int[] crc32c;
        private final int[] crc32;

        /**
         * @param length the file's length.
         * @param zero   per chunk, whether it holds zeros only.
         * @param crc32c per chunk, its CRC-32C.
         * @param crc32  per chunk, its CRC-32.
         */
        public FileSums(final long length, final boolean[] zero, final int[] crc32c, final int[] crc32)
        {
            if (zero.length != ChunkSums.chunks(length) || crc32c.length != zero.length || crc32.length != zero.length)
            {
                throw new IllegalArgumentException(zero.length + " chunk sums for a file of " + length + " bytes");
            }
            this.length = length;
            this.zero = zero;
            this.crc32c = crc32c;
            this.crc32 = crc32;
        }

        /** @return the number of chunks. */
        public int chunks()
        {
            return zero.length;
        }

        /** @return whether chunk {@code c} holds zeros only. */
        public boolean zero(final int c)
        {
            return zero[c];
        }

        /** @return chunk {@code c}'s CRC-32C. */
        public int crc32c(final int c)
        {
            return crc32c[c];
        }

        /** @return chunk {@code c}'s CRC-32. */
        public int crc32(final int c)
        {
            return crc32[c];
        }

        /** @return per chunk, whether it holds zeros only (a copy). */
        public boolean[] zeros()
        {
            return zero.clone();
        }

        /** @return per chunk, its CRC-32C (a copy). */
        public int[] crc32cs()
        {
            return crc32c.clone();
        }

        /** @return per chunk, its CRC-32 (a copy). */
        public int[] crc32s()
        {
            return crc32.clone();
        }

        /** @return bytes of chunk {@code c}. */
        public int chunkLength(final int c)
        {
            return (int)Math.min(Chunks.CHUNK_BYTES, length - (long)c * Chunks.CHUNK_BYTES);
        }
    }

    /** @return the chunks of a file of {@code length} bytes. */
    public static int chunks(final long length)
    {
        return (int)((length + Chunks.CHUNK_BYTES - 1) / Chunks.CHUNK_BYTES);
    }

    /**
     * Reads a whole file and sums each chunk (a file no write path tracks: a Chronicle Map's, or a file
     * reopened and verified), on a bounded pool of the machine's cores ({@link ParallelSums}): the caller's
     * thread only waits, so its interrupt cannot break the reads.
     *
     * @param path   the file.
     * @param length its length.
     * @return its sums.
     * @throws EOFException when it is shorter than {@code length}.
     * @throws IOException  when it cannot be read.
     */
    public static FileSums compute(final Path path, final long length) throws IOException
    {
        final ParallelSums.Whole whole = new ParallelSums.Whole(path, length);
        ParallelSums.sum(List.of(whole), ParallelSums.threads());
        return new FileSums(length, whole.zero, whole.crc32c, whole.crc32);
    }

    /**
     * @param sums every tracked file's sums, by name.
     * @return the bytes of a {@value #FILE_NAME} file holding them.
     */
    public static byte[] encode(final Map<String, FileSums> sums)
    {
        int length = HEADER_LENGTH + 8;
        for (final Map.Entry<String, FileSums> file : sums.entrySet())
        {
            length += 2 + file.getKey().getBytes(StandardCharsets.UTF_8).length + 8 + 4 + PER_CHUNK * file.getValue().chunks();
        }
        final ByteBuffer out = ByteBuffer.allocate(length);
        out.putLong(MAGIC).putInt(VERSION).putInt(sums.size());
        for (final Map.Entry<String, FileSums> file : sums.entrySet())
        {
            final byte[] name = file.getKey().getBytes(StandardCharsets.UTF_8);
            final FileSums s = file.getValue();
            out.putShort((short)name.length).put(name).putLong(s.length).putInt(s.chunks());
            for (int c = 0; c < s.chunks(); c++)
            {
                out.put((byte)(s.zero[c] ? 1 : 0)).putInt(s.crc32c[c]).putInt(s.crc32[c]);
            }
        }
        final CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putLong(crc.getValue());
        return out.array();
    }

    /**
     * The sums a state directory's last persist recorded, when they still describe its files: the
     * directory holds its marker ({@value #MARKER_NAME}) and an intact {@value #FILE_NAME}.
     *
     * @param stateDirectory the state directory.
     * @return the sums by file name; empty when there are none to trust (every chunk is then read).
     */
    public static Map<String, FileSums> readValid(final Path stateDirectory)
    {
        final Path file = stateDirectory.resolve(FILE_NAME);
        if (!Files.exists(stateDirectory.resolve(MARKER_NAME)) || !Files.exists(file))
        {
            return Collections.emptyMap();
        }
        try
        {
            return decode(Files.readAllBytes(file));
        }
        catch (final IOException e)
        {
            // Unreadable: every chunk is read instead.
            return Collections.emptyMap();
        }
    }

    /**
     * @param bytes a {@value #FILE_NAME} file's bytes ({@link #encode}).
     * @return the sums by file name; empty when the bytes are not intact sums (every chunk is then read).
     */
    public static Map<String, FileSums> decode(final byte[] bytes)
    {
        try
        {
            if (bytes.length < HEADER_LENGTH + 8)
            {
                return Collections.emptyMap();
            }
            final ByteBuffer in = ByteBuffer.wrap(bytes);
            final CRC32C crc = new CRC32C();
            crc.update(bytes, 0, bytes.length - 8);
            if (in.getLong(bytes.length - 8) != crc.getValue() || in.getLong() != MAGIC || in.getInt() != VERSION)
            {
                return Collections.emptyMap();
            }
            final int files = in.getInt();
            final Map<String, FileSums> sums = new LinkedHashMap<>();
            for (int f = 0; f < files; f++)
            {
                final byte[] name = new byte[in.getShort()];
                in.get(name);
                final long length = in.getLong();
                final int chunks = in.getInt();
                if (chunks != chunks(length))
                {
                    return Collections.emptyMap();
                }
                final boolean[] zero = new boolean[chunks];
                final int[] crc32c = new int[chunks];
                final int[] crc32 = new int[chunks];
                for (int c = 0; c < chunks; c++)
                {
                    zero[c] = in.get() != 0;
                    crc32c[c] = in.getInt();
                    crc32[c] = in.getInt();
                }
                sums.put(new String(name, StandardCharsets.UTF_8), new FileSums(length, zero, crc32c, crc32));
            }
            return sums;
        }
        catch (final RuntimeException e)
        {
            // Unreadable or malformed: every chunk is read instead.
            return Collections.emptyMap();
        }
    }
}
