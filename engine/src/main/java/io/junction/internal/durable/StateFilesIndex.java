package io.junction.internal.durable;

import io.junction.internal.state.Chunks;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@value StateImage#INDEX} format of a checkpoint of a state directory: its header, then per state file a
 * line {@code file NAME SIZE} and, per chunk, a line {@code chunk NAME SIZE CRC32C CRC32} (the chunk's file in
 * the checkpoint) or {@code zero LEN CRC32C CRC32} (zeros, no file); version 1 has no CRC-32. Written by
 * {@link StateImageWriter}, read by {@link StateImageRestore} and {@link StateImage#linkNextTo}. Stateless.
 */
final class StateFilesIndex
{
    private StateFilesIndex()
    {
    }

    static final String HEADER = "junction-state-files 2";
    /** The index of a checkpoint written before zero chunks were recorded: read still. */
    static final String HEADER_V1 = "junction-state-files 1";
    /** A checkpoint's chunk files ({@code c-FFFF-CCCCCCCC}): deferrable, a restore reads only those that differ. */
    static final Pattern CHUNK_FILE = Pattern.compile("c-\\d{4}-\\d{8}");

    /** One chunk of a state file in a checkpoint: a file of it, or zeros (no file). */
    static final class Chunk
    {
        final String name;
        final long size;
        final long crc32c;
        final long crc32;
        /** The chunk's file, or null for a chunk of zeros. */
        final Path file;

        Chunk(final String name, final long size, final long crc32c, final long crc32, final Path file)
        {
            this.name = name;
            this.size = size;
            this.crc32c = crc32c;
            this.crc32 = crc32;
            this.file = file;
        }
    }

    /** A file of a checkpoint's index: its name, size and chunks. */
    static final class IndexFile
    {
        final String relative;
        final long size;
        final List<Chunk> chunks = new ArrayList<>();

        IndexFile(final String relative, final long size)
        {
            this.relative = relative;
            this.size = size;
        }
    }

    /** @return the checkpoint's index of files and chunks, checked against its manifest's file list. */
    static List<IndexFile> readIndex(final CheckpointStore.Checkpoint checkpoint) throws IOException
    {
        final Path indexFile = checkpoint.files().get(StateImage.INDEX);
        if (indexFile == null)
        {
            throw new IOException(checkpoint.directory + " has no " + StateImage.INDEX + ": not a checkpoint of a state directory");
        }
        final List<String> lines = Files.readAllLines(indexFile, StandardCharsets.US_ASCII);
        if (lines.isEmpty() || !(HEADER.equals(lines.get(0)) || HEADER_V1.equals(lines.get(0))))
        {
            throw new IOException(indexFile + " is not a state index (header '" + (lines.isEmpty() ? "" : lines.get(0)) + "')");
        }
        final List<IndexFile> files = new ArrayList<>();
        int i = 1;
        try
        {
            while (i < lines.size())
            {
                final String[] words = lines.get(i++).split(" ");
                if (words.length != 4 || !"file".equals(words[0]))
                {
                    throw new IOException(indexFile + " line " + i + " is not a file line");
                }
                StateImage.checkRelative(words[1], indexFile);
                final IndexFile file = new IndexFile(words[1], Long.parseLong(words[2]));
                final long chunks = Long.parseLong(words[3]);
                long total = 0;
                for (long c = 0; c < chunks; c++)
                {
                    final String[] chunk = lines.get(i++).split(" ");
                    final Chunk read;
                    if (chunk.length == 4 && "zero".equals(chunk[0]))
                    {
                        read = new Chunk(null, Long.parseLong(chunk[1]), Long.parseLong(chunk[2], 16), Long.parseLong(chunk[3], 16), null);
                    }
                    else if (chunk.length == 5 && "chunk".equals(chunk[0]))
                    {
                        final Path source = checkpoint.files().get(chunk[1]);
                        if (source == null)
                        {
                            throw new IOException(indexFile + " names chunk " + chunk[1] + ", which the manifest does not");
                        }
                        read = new Chunk(chunk[1], Long.parseLong(chunk[2]), Long.parseLong(chunk[3], 16), Long.parseLong(chunk[4], 16),
                            source);
                    }
                    else
                    {
                        throw new IOException(indexFile + " line " + i + " is not a chunk line");
                    }
                    if (read.size < 1 || read.size > Chunks.CHUNK_BYTES || (c < chunks - 1 && read.size != Chunks.CHUNK_BYTES))
                    {
                        throw new IOException(indexFile + " line " + i + " has a chunk of " + read.size + " bytes");
                    }
                    total += read.size;
                    file.chunks.add(read);
                }
                if (total != file.size)
                {
                    throw new IOException(indexFile + " says " + file.relative + " is " + file.size + " bytes, its chunks hold " + total);
                }
                files.add(file);
            }
        }
        catch (final NumberFormatException | IndexOutOfBoundsException e)
        {
            throw new IOException(indexFile + " is malformed at line " + i + ": " + e, e);
        }
        return files;
    }

    /**
     * Reads the chunks of an earlier checkpoint's index, keyed {@code file#chunk}, without verifying them.
     *
     * @param checkpointDirectory the checkpoint's directory.
     * @return its chunks, or null when its index cannot be read or is not one.
     */
    static Map<String, Chunk> readChunks(final Path checkpointDirectory)
    {
        final Map<String, Chunk> chunks = new HashMap<>();
        try
        {
            final List<String> lines = Files.readAllLines(checkpointDirectory.resolve(StateImage.INDEX), StandardCharsets.US_ASCII);
            if (lines.isEmpty() || !(HEADER.equals(lines.get(0)) || HEADER_V1.equals(lines.get(0))))
            {
                return null;
            }
            String relative = null;
            long c = 0;
            for (int i = 1; i < lines.size(); i++)
            {
                final String[] words = lines.get(i).split(" ");
                if ("file".equals(words[0]))
                {
                    relative = words[1];
                    c = 0;
                }
                else if ("zero".equals(words[0]))
                {
                    chunks.put(relative + '#' + c++, new Chunk(null, Long.parseLong(words[1]), Long.parseLong(words[2], 16),
                        Long.parseLong(words[3], 16), null));
                }
                else
                {
                    chunks.put(relative + '#' + c++, new Chunk(words[1], Long.parseLong(words[2]), Long.parseLong(words[3], 16),
                        Long.parseLong(words[4], 16), checkpointDirectory.resolve(words[1])));
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            return null;
        }
        return chunks;
    }
}
