package io.junction.internal.durable;

import io.junction.internal.cut.CutFile;
import io.junction.internal.cut.StagedCut;
import io.junction.internal.durable.StateFilesIndex.Chunk;
import io.junction.internal.state.Chunks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The writing half of a {@link StateImage}: a checkpoint of the state directory, from the live files or from a
 * staged cut, each chunk written, hard-linked to the previous checkpoint's or recorded as zeros, and the
 * {@value StateImage#INDEX} index. The thread that checkpoints the partition (its own, or its background writer
 * for a staged cut), as {@link StateImage} says.
 */
final class StateImageWriter
{
    private final StateImage image;

    StateImageWriter(final StateImage image)
    {
        this.image = image;
    }

    /** As {@link StateImage#write}. */
    void write(final CheckpointFiles writer, final Path dir) throws IOException
    {
        image.bytesWritten = 0;
        image.bytesLinked = 0;
        image.bytesRead = 0;
        image.bytesZero = 0;
        final List<String> files = image.list();
        // The mapped files' chunk sums as of the persist just made (while its marker is there): chunks of
        // zeros are recorded unread, chunks equal to the previous checkpoint's are linked unread.
        final Map<String, ChunkSums.FileSums> known = ChunkSums.readValid(image.stateDirectory);
        final Map<String, Chunk> written = new HashMap<>();
        final StringBuilder index = new StringBuilder(256).append(StateFilesIndex.HEADER).append('\n');
        final CRC32C crc32c = new CRC32C();
        final CRC32 crc32 = new CRC32();
        for (int f = 0; f < files.size(); f++)
        {
            final String relative = files.get(f);
            try (FileChannel in = FileChannel.open(image.stateDirectory.resolve(relative), StandardOpenOption.READ))
            {
                final long size = in.size();
                final long chunks = (size + Chunks.CHUNK_BYTES - 1) / Chunks.CHUNK_BYTES;
                final ChunkSums.FileSums sums = known.get(relative);
                final boolean summed = sums != null && sums.length == size;
                index.append("file ").append(relative).append(' ').append(size).append(' ').append(chunks).append('\n');
                for (long c = 0; c < chunks; c++)
                {
                    final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
                    final long at = c * Chunks.CHUNK_BYTES;
                    final long length = Math.min(Chunks.CHUNK_BYTES, size - at);
                    final Chunk before = image.previous.get(relative + '#' + c);
                    if (summed)
                    {
                        final int i = (int)c;
                        final long sumC = sums.crc32c(i) & 0xFFFFFFFFL;
                        final long sum = sums.crc32(i) & 0xFFFFFFFFL;
                        if (sums.zero(i))
                        {
                            zero(index, written, relative, c, length, sumC, sum);
                            continue;
                        }
                        if (before != null && before.file != null && before.size == length && before.crc32c == sumC &&
                            before.crc32 == sum && link(writer, name, before, length))
                        {
                            chunk(index, written, relative, c, name, length, sumC, sum, dir);
                            continue;
                        }
                    }
                    image.read(in, image.stateDirectory.resolve(relative), at, (int)length);
                    crc32c.reset();
                    crc32.reset();
                    crc32c.update(image.buffer.duplicate());
                    crc32.update(image.buffer.duplicate());
                    if (summed && (crc32c.getValue() != (sums.crc32c((int)c) & 0xFFFFFFFFL) ||
                        crc32.getValue() != (sums.crc32((int)c) & 0xFFFFFFFFL)))
                    {
                        throw new IOException(String.format(Locale.ROOT, "%s chunk %d changed since the persist that summed it " +
                            "(CRC-32C %08x, %s says %08x): the state changed under the checkpoint",
                            image.stateDirectory.resolve(relative), c, crc32c.getValue(), ChunkSums.FILE_NAME, sums.crc32c((int)c)));
                    }
                    if (Chunks.isZero(image.buffer))
                    {
                        zero(index, written, relative, c, length, crc32c.getValue(), crc32.getValue());
                        continue;
                    }
                    if (!(before != null && before.file != null && before.size == length && before.crc32c == crc32c.getValue() &&
                        before.crc32 == crc32.getValue() && link(writer, name, before, length)))
                    {
                        final WritableByteChannel out = writer.file(name);
                        out.write(image.buffer);
                        image.bytesWritten += length;
                    }
                    chunk(index, written, relative, c, name, length, crc32c.getValue(), crc32.getValue(), dir);
                }
            }
        }
        final WritableByteChannel out = writer.file(StateImage.INDEX);
        out.write(ByteBuffer.wrap(index.toString().getBytes(StandardCharsets.US_ASCII)));
        image.pending = written;
    }

    /** As {@link StateImage#write}. */
    void write(final CheckpointFiles writer, final Path dir, final StagedCut cut) throws IOException
    {
        image.bytesWritten = 0;
        image.bytesLinked = 0;
        image.bytesRead = 0;
        image.bytesZero = 0;
        final Map<String, CutFile> tracked = new HashMap<>();
        for (int i = 0; i < cut.files(); i++)
        {
            tracked.put(cut.file(i).name(), cut.file(i));
        }
        final List<String> files = new ArrayList<>(tracked.keySet());
        files.add(cut.heapName());
        files.add(ChunkSums.FILE_NAME);
        files.add(ChunkSums.MARKER_NAME);
        Collections.sort(files);
        final Map<String, Integer> order = new HashMap<>();
        for (int f = 0; f < files.size(); f++)
        {
            order.put(files.get(f), f);
        }
        final Map<String, Chunk> written = new HashMap<>();
        cut.drain((file, i, bytes) -> writeStagedChunk(writer, dir, written, order.get(file.name()), file, i, bytes));
        final Map<String, ChunkSums.FileSums> sums = new LinkedHashMap<>();
        for (int i = 0; i < cut.files(); i++)
        {
            final CutFile file = cut.file(i);
            sums.put(file.name(), new ChunkSums.FileSums(file.length(), file.zeros(), file.crc32cs(), file.crc32s()));
        }
        final Map<String, byte[]> small = new HashMap<>();
        small.put(cut.heapName(), Arrays.copyOf(cut.heap(), cut.heapLength()));
        small.put(ChunkSums.FILE_NAME, ChunkSums.encode(sums));
        small.put(ChunkSums.MARKER_NAME, cut.marker().encode(cut));
        final StringBuilder index = new StringBuilder(256).append(StateFilesIndex.HEADER).append('\n');
        for (int f = 0; f < files.size(); f++)
        {
            final String relative = files.get(f);
            final CutFile file = tracked.get(relative);
            if (file != null)
            {
                writeUnstaged(writer, dir, index, written, f, file, cut);
            }
            else
            {
                writeBytes(writer, dir, index, written, f, relative, small.get(relative));
            }
        }
        final WritableByteChannel out = writer.file(StateImage.INDEX);
        out.write(ByteBuffer.wrap(index.toString().getBytes(StandardCharsets.US_ASCII)));
        image.pending = written;
    }

    /** One staged chunk, summed, as the cut's drain hands it over: zeros, a link, or a chunk file from its bytes. */
    void writeStagedChunk(final CheckpointFiles writer, final Path dir, final Map<String, Chunk> written,
        final int f, final CutFile file, final int i, final ByteBuffer bytes) throws IOException
    {
        final String relative = file.name();
        final int c = file.stagedChunk(i);
        final long length = bytes.remaining();
        final long sumC = file.crc32c(c) & 0xFFFFFFFFL;
        final long sum = file.crc32(c) & 0xFFFFFFFFL;
        if (file.zero(c))
        {
            written.put(relative + '#' + c, new Chunk(null, length, sumC, sum, null));
            image.bytesZero += length;
            return;
        }
        final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
        final Chunk before = image.previous.get(relative + '#' + c);
        if (!(before != null && before.file != null && before.size == length && before.crc32c == sumC && before.crc32 == sum &&
            link(writer, name, before, length)))
        {
            final WritableByteChannel out = writer.file(name);
            while (bytes.hasRemaining())
            {
                out.write(bytes);
            }
            image.bytesWritten += length;
        }
        written.put(relative + '#' + c, new Chunk(name, length, sumC, sum, dir.resolve(name)));
    }

    /**
     * A tracked file's index lines, in chunk order: a staged chunk as its drain recorded it, any other (unchanged
     * since the cut before) as zeros or a link to the previous checkpoint's.
     */
    void writeUnstaged(final CheckpointFiles writer, final Path dir, final StringBuilder index,
        final Map<String, Chunk> written, final int f, final CutFile file, final StagedCut cut) throws IOException
    {
        final String relative = file.name();
        final long size = file.length();
        final int chunks = file.chunks();
        index.append("file ").append(relative).append(' ').append(size).append(' ').append(chunks).append('\n');
        int next = 0;
        for (int c = 0; c < chunks; c++)
        {
            if (next < file.staged() && file.stagedChunk(next) == c)
            {
                next++;
                final Chunk staged = written.get(relative + '#' + c);
                if (staged.name == null)
                {
                    index.append(String.format(Locale.ROOT, "zero %d %08x %08x", staged.size, staged.crc32c, staged.crc32)).append('\n');
                }
                else
                {
                    index.append(String.format(Locale.ROOT, "chunk %s %d %08x %08x", staged.name, staged.size, staged.crc32c,
                        staged.crc32)).append('\n');
                }
                continue;
            }
            final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
            final long length = Math.min(Chunks.CHUNK_BYTES, size - (long)c * Chunks.CHUNK_BYTES);
            final long sumC = file.crc32c(c) & 0xFFFFFFFFL;
            final long sum = file.crc32(c) & 0xFFFFFFFFL;
            if (file.zero(c))
            {
                zero(index, written, relative, c, length, sumC, sum);
                continue;
            }
            final Chunk before = image.previous.get(relative + '#' + c);
            if (before != null && before.file != null && before.size == length && before.crc32c == sumC && before.crc32 == sum &&
                link(writer, name, before, length))
            {
                chunk(index, written, relative, c, name, length, sumC, sum, dir);
                continue;
            }
            cut.baseMissing();
            throw new IOException(String.format(Locale.ROOT, "%s chunk %d did not change since the checkpoint before, " +
                "but that checkpoint no longer holds it (pruned): the next checkpoint copies every chunk",
                image.stateDirectory.resolve(relative), c));
        }
    }

    void writeBytes(final CheckpointFiles writer, final Path dir, final StringBuilder index,
        final Map<String, Chunk> written, final int f, final String relative, final byte[] bytes) throws IOException
    {
        final long size = bytes.length;
        final long chunks = (size + Chunks.CHUNK_BYTES - 1) / Chunks.CHUNK_BYTES;
        index.append("file ").append(relative).append(' ').append(size).append(' ').append(chunks).append('\n');
        final CRC32C crc32c = new CRC32C();
        final CRC32 crc32 = new CRC32();
        for (int c = 0; c < chunks; c++)
        {
            final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
            final int at = c * Chunks.CHUNK_BYTES;
            final int length = (int)Math.min(Chunks.CHUNK_BYTES, size - at);
            crc32c.reset();
            crc32.reset();
            crc32c.update(bytes, at, length);
            crc32.update(bytes, at, length);
            final ByteBuffer chunk = ByteBuffer.wrap(bytes, at, length);
            if (Chunks.isZero(chunk))
            {
                zero(index, written, relative, c, length, crc32c.getValue(), crc32.getValue());
                continue;
            }
            final Chunk before = image.previous.get(relative + '#' + c);
            if (!(before != null && before.file != null && before.size == length && before.crc32c == crc32c.getValue() &&
                before.crc32 == crc32.getValue() && link(writer, name, before, length)))
            {
                final WritableByteChannel out = writer.file(name);
                while (chunk.hasRemaining())
                {
                    out.write(chunk);
                }
                image.bytesWritten += length;
            }
            chunk(index, written, relative, c, name, length, crc32c.getValue(), crc32.getValue(), dir);
        }
    }

    /** @return whether the chunk was linked to the previous checkpoint's (false when that was pruned). */
    boolean link(final CheckpointFiles writer, final String name, final Chunk before, final long length)
        throws IOException
    {
        try
        {
            writer.link(name, before.file, length, before.crc32c);
            image.bytesLinked += length;
            return true;
        }
        catch (final NoSuchFileException e)
        {
            // The previous checkpoint was pruned: the chunk is written.
            return false;
        }
    }

    static void chunk(final StringBuilder index, final Map<String, Chunk> written, final String relative, final long c,
        final String name, final long length, final long crc32c, final long crc32, final Path dir)
    {
        index.append(String.format(Locale.ROOT, "chunk %s %d %08x %08x", name, length, crc32c, crc32)).append('\n');
        written.put(relative + '#' + c, new Chunk(name, length, crc32c, crc32, dir.resolve(name)));
    }

    void zero(final StringBuilder index, final Map<String, Chunk> written, final String relative, final long c,
        final long length, final long crc32c, final long crc32)
    {
        index.append(String.format(Locale.ROOT, "zero %d %08x %08x", length, crc32c, crc32)).append('\n');
        written.put(relative + '#' + c, new Chunk(null, length, crc32c, crc32, null));
        image.bytesZero += length;
    }
}
