package io.junction.internal.durable;

import io.junction.internal.io.OwnerOnlyFiles;
import io.junction.internal.state.StagedCut;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
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
 * Copies a partition's state directory into a checkpoint and back, incrementally. Every state file is
 * split into chunks of {@link #CHUNK_BYTES}; each chunk is a file of the checkpoint ({@code c-FFFF-CCCCCCCC}).
 * A chunk whose size, CRC-32C and CRC-32 (64 bits of checksum together) equal those of the same chunk
 * of the same file in the previous checkpoint is hard-linked to that checkpoint's chunk, not written:
 * a checkpoint writes only what changed since the previous one, yet each is complete by itself (delete
 * any other and it still restores). A chunk of zeros is a line of the index ({@code zero LEN CRC32C CRC32}),
 * not a file, and a restore writes its zeros. When the state directory holds the sums of its last persist
 * ({@link ChunkSums#FILE_NAME}, valid while its marker is there), a chunk is known without being read: zeros
 * are recorded unread, a chunk whose sums equal the previous checkpoint's is linked unread, and only the
 * others are read (and checked against those sums: a mismatch fails the checkpoint). The index of files and chunks ({@value #INDEX}) is a checkpoint file
 * too, so the manifest's CRCs cover it. Two kinds of file in the state directory are not state and are
 * never copied: the directory's lock file ({@link DirectoryLock#FILE_NAME}) and {@code *.tmp} files (a
 * file being written when the process died; the state's own writes rename theirs into place).
 *
 * <p>A chunk shared by hard link is one copy on disk: damage to it damages every checkpoint that shares
 * it (each one's manifest catches it when opened).
 *
 * <p>Not thread safe: one per partition, used by the thread that checkpoints or restores it: the partition's,
 * or its background writer while a staged cut is written ({@link #write(CheckpointStore.Writer, Path, StagedCut)}),
 * the partition waiting for that write before it uses the image again.
 */
public final class StateImage
{
    /** Bytes per chunk. */
    public static final int CHUNK_BYTES = 1 << 20;
    /** The index file's name in a checkpoint. */
    public static final String INDEX = "STATE-FILES";

    private static final String HEADER = "junction-state-files 2";
    /** The index of a checkpoint written before zero chunks were recorded: read still. */
    private static final String HEADER_V1 = "junction-state-files 1";

    private final Path stateDirectory;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK_BYTES);
    /** A chunk of zeros (a direct buffer is zeroed), for restoring zero chunks; taken at the first one. */
    private ByteBuffer zeros;
    /** The chunks of the last checkpoint written or restored, by "path#chunk"; empty when there is none. */
    private Map<String, Chunk> previous = Collections.emptyMap();
    /** The chunks of the checkpoint being written, until it is committed or aborted. */
    private Map<String, Chunk> pending;
    private long bytesWritten;
    private long bytesLinked;
    private long bytesRead;
    private long bytesZero;

    /**
     * @param stateDirectory the directory the operator keeps its files in.
     */
    public StateImage(final Path stateDirectory)
    {
        this.stateDirectory = stateDirectory;
    }

    /** @return the state directory. */
    public Path stateDirectory()
    {
        return stateDirectory;
    }

    /** @return bytes of chunks the last {@link #write} wrote. */
    public long bytesWritten()
    {
        return bytesWritten;
    }

    /** @return bytes of chunks the last {@link #write} hard-linked to the previous checkpoint's. */
    public long bytesLinked()
    {
        return bytesLinked;
    }

    /** @return bytes of state files the last {@link #write} read (chunks not known from their sums, small files). */
    public long bytesRead()
    {
        return bytesRead;
    }

    /** @return bytes of chunks of zeros the last {@link #write} recorded without storing (or reading) them. */
    public long bytesZero()
    {
        return bytesZero;
    }

    /** One chunk of a state file in a checkpoint: a file of it, or zeros (no file). */
    private static final class Chunk
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

    /**
     * Writes the state directory's files into a checkpoint that is being written (the caller commits it).
     * The state must not change meanwhile.
     *
     * @param writer the checkpoint.
     * @param dir    the checkpoint's directory (where linked chunks will live).
     * @throws IOException when a file cannot be read or written.
     */
    public void write(final CheckpointStore.Writer writer, final Path dir) throws IOException
    {
        bytesWritten = 0;
        bytesLinked = 0;
        bytesRead = 0;
        bytesZero = 0;
        final List<String> files = list();
        // The mapped files' chunk sums as of the persist just made (while its marker is there): chunks of
        // zeros are recorded unread, chunks equal to the previous checkpoint's are linked unread.
        final Map<String, ChunkSums.FileSums> known = ChunkSums.readValid(stateDirectory);
        final Map<String, Chunk> written = new HashMap<>();
        final StringBuilder index = new StringBuilder(256).append(HEADER).append('\n');
        final CRC32C crc32c = new CRC32C();
        final CRC32 crc32 = new CRC32();
        for (int f = 0; f < files.size(); f++)
        {
            final String relative = files.get(f);
            try (FileChannel in = FileChannel.open(stateDirectory.resolve(relative), StandardOpenOption.READ))
            {
                final long size = in.size();
                final long chunks = (size + CHUNK_BYTES - 1) / CHUNK_BYTES;
                final ChunkSums.FileSums sums = known.get(relative);
                final boolean summed = sums != null && sums.length == size;
                index.append("file ").append(relative).append(' ').append(size).append(' ').append(chunks).append('\n');
                for (long c = 0; c < chunks; c++)
                {
                    final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
                    final long at = c * CHUNK_BYTES;
                    final long length = Math.min(CHUNK_BYTES, size - at);
                    final Chunk before = previous.get(relative + '#' + c);
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
                    read(in, stateDirectory.resolve(relative), at, (int)length);
                    crc32c.reset();
                    crc32.reset();
                    crc32c.update(buffer.duplicate());
                    crc32.update(buffer.duplicate());
                    if (summed && (crc32c.getValue() != (sums.crc32c((int)c) & 0xFFFFFFFFL) ||
                        crc32.getValue() != (sums.crc32((int)c) & 0xFFFFFFFFL)))
                    {
                        throw new IOException(String.format(Locale.ROOT, "%s chunk %d changed since the persist that summed it " +
                            "(CRC-32C %08x, %s says %08x): the state changed under the checkpoint",
                            stateDirectory.resolve(relative), c, crc32c.getValue(), ChunkSums.FILE_NAME, sums.crc32c((int)c)));
                    }
                    if (isZero(buffer))
                    {
                        zero(index, written, relative, c, length, crc32c.getValue(), crc32.getValue());
                        continue;
                    }
                    if (!(before != null && before.file != null && before.size == length && before.crc32c == crc32c.getValue() &&
                        before.crc32 == crc32.getValue() && link(writer, name, before, length)))
                    {
                        final WritableByteChannel out = writer.file(name);
                        out.write(buffer);
                        bytesWritten += length;
                    }
                    chunk(index, written, relative, c, name, length, crc32c.getValue(), crc32.getValue(), dir);
                }
            }
        }
        final WritableByteChannel out = writer.file(INDEX);
        out.write(ByteBuffer.wrap(index.toString().getBytes(StandardCharsets.US_ASCII)));
        pending = written;
    }

    /**
     * Writes a checkpoint from a staged cut alone, never reading the state directory (whose files go on
     * changing): the background writer's part of an asynchronous checkpoint (docs/DURABILITY.md "What runs
     * where"). Sums the cut's staged chunks, then for every tracked file writes each chunk as its sums say:
     * zeros as a line of the index, a chunk whose sums equal the previous checkpoint's as a hard link, a staged
     * chunk that differs as a file from its staged bytes; a chunk neither staged nor linkable (the previous
     * checkpoint was pruned by another process, or does not hold it) fails the write and asks the next cut to
     * stage everything ({@link StagedCut#baseMissing()}). The small files of the image follow, from bytes:
     * heap.dat (the cut's), {@link ChunkSums#FILE_NAME} and the marker ({@link ChunkSums#MARKER_NAME}),
     * encoded here from the sums. The caller commits the checkpoint.
     *
     * <p>Thread: the writer's. Touches only the cut, this image (whose owner waits for the write before it
     * uses the image again) and the checkpoint being written.
     *
     * @param writer the checkpoint.
     * @param dir    the checkpoint's directory.
     * @param cut    the staged cut, handed over by the partition thread.
     * @throws IOException when a chunk cannot be written or linked.
     */
    public void write(final CheckpointStore.Writer writer, final Path dir, final StagedCut cut) throws IOException
    {
        bytesWritten = 0;
        bytesLinked = 0;
        bytesRead = 0;
        bytesZero = 0;
        cut.sumStaged();
        final Map<String, ChunkSums.FileSums> sums = new LinkedHashMap<>();
        final Map<String, StagedCut.File> tracked = new HashMap<>();
        for (int i = 0; i < cut.files(); i++)
        {
            final StagedCut.File file = cut.file(i);
            sums.put(file.name(), new ChunkSums.FileSums(file.length(), file.zeros(), file.crc32cs(), file.crc32s()));
            tracked.put(file.name(), file);
        }
        final Map<String, byte[]> small = new HashMap<>();
        small.put(cut.heapName(), Arrays.copyOf(cut.heap(), cut.heapLength()));
        small.put(ChunkSums.FILE_NAME, ChunkSums.encode(sums));
        small.put(ChunkSums.MARKER_NAME, cut.marker().encode(cut));
        final List<String> files = new ArrayList<>(tracked.keySet());
        files.addAll(small.keySet());
        Collections.sort(files);
        final Map<String, Chunk> written = new HashMap<>();
        final StringBuilder index = new StringBuilder(256).append(HEADER).append('\n');
        for (int f = 0; f < files.size(); f++)
        {
            final String relative = files.get(f);
            final StagedCut.File file = tracked.get(relative);
            if (file != null)
            {
                writeStaged(writer, dir, index, written, f, file, cut);
            }
            else
            {
                writeBytes(writer, dir, index, written, f, relative, small.get(relative));
            }
        }
        final WritableByteChannel out = writer.file(INDEX);
        out.write(ByteBuffer.wrap(index.toString().getBytes(StandardCharsets.US_ASCII)));
        pending = written;
    }

    private void writeStaged(final CheckpointStore.Writer writer, final Path dir, final StringBuilder index,
        final Map<String, Chunk> written, final int f, final StagedCut.File file, final StagedCut cut) throws IOException
    {
        final String relative = file.name();
        final long size = file.length();
        final int chunks = file.chunks();
        index.append("file ").append(relative).append(' ').append(size).append(' ').append(chunks).append('\n');
        int next = 0;
        for (int c = 0; c < chunks; c++)
        {
            final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
            final long length = Math.min(CHUNK_BYTES, size - (long)c * CHUNK_BYTES);
            final long sumC = file.crc32c(c) & 0xFFFFFFFFL;
            final long sum = file.crc32(c) & 0xFFFFFFFFL;
            ByteBuffer staged = null;
            if (next < file.staged() && file.stagedChunk(next) == c)
            {
                staged = file.stagedBytes(next++);
            }
            if (file.zero(c))
            {
                zero(index, written, relative, c, length, sumC, sum);
                continue;
            }
            final Chunk before = previous.get(relative + '#' + c);
            if (before != null && before.file != null && before.size == length && before.crc32c == sumC && before.crc32 == sum &&
                link(writer, name, before, length))
            {
                chunk(index, written, relative, c, name, length, sumC, sum, dir);
                continue;
            }
            if (staged == null)
            {
                cut.baseMissing();
                throw new IOException(String.format(Locale.ROOT, "%s chunk %d did not change since the checkpoint before, " +
                    "but that checkpoint no longer holds it (pruned): the next checkpoint copies every chunk",
                    stateDirectory.resolve(relative), c));
            }
            final WritableByteChannel out = writer.file(name);
            while (staged.hasRemaining())
            {
                out.write(staged);
            }
            bytesWritten += length;
            chunk(index, written, relative, c, name, length, sumC, sum, dir);
        }
    }

    private void writeBytes(final CheckpointStore.Writer writer, final Path dir, final StringBuilder index,
        final Map<String, Chunk> written, final int f, final String relative, final byte[] bytes) throws IOException
    {
        final long size = bytes.length;
        final long chunks = (size + CHUNK_BYTES - 1) / CHUNK_BYTES;
        index.append("file ").append(relative).append(' ').append(size).append(' ').append(chunks).append('\n');
        final CRC32C crc32c = new CRC32C();
        final CRC32 crc32 = new CRC32();
        for (int c = 0; c < chunks; c++)
        {
            final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
            final int at = c * CHUNK_BYTES;
            final int length = (int)Math.min(CHUNK_BYTES, size - at);
            crc32c.reset();
            crc32.reset();
            crc32c.update(bytes, at, length);
            crc32.update(bytes, at, length);
            final ByteBuffer chunk = ByteBuffer.wrap(bytes, at, length);
            if (isZero(chunk))
            {
                zero(index, written, relative, c, length, crc32c.getValue(), crc32.getValue());
                continue;
            }
            final Chunk before = previous.get(relative + '#' + c);
            if (!(before != null && before.file != null && before.size == length && before.crc32c == crc32c.getValue() &&
                before.crc32 == crc32.getValue() && link(writer, name, before, length)))
            {
                final WritableByteChannel out = writer.file(name);
                while (chunk.hasRemaining())
                {
                    out.write(chunk);
                }
                bytesWritten += length;
            }
            chunk(index, written, relative, c, name, length, crc32c.getValue(), crc32.getValue(), dir);
        }
    }

    /** Reads {@code length} bytes at {@code at} of a state file into the buffer, flipped. */
    private void read(final FileChannel in, final Path path, final long at, final int length) throws IOException
    {
        buffer.clear();
        buffer.limit(length);
        while (buffer.hasRemaining())
        {
            if (in.read(buffer, at + buffer.position()) < 0)
            {
                throw new IOException(path + " shrank while it was copied");
            }
        }
        buffer.flip();
        bytesRead += length;
    }

    /** @return whether the chunk was linked to the previous checkpoint's (false when that was pruned). */
    private boolean link(final CheckpointStore.Writer writer, final String name, final Chunk before, final long length)
        throws IOException
    {
        try
        {
            writer.link(name, before.file, length, before.crc32c);
            bytesLinked += length;
            return true;
        }
        catch (final NoSuchFileException e)
        {
            // The previous checkpoint was pruned: the chunk is written.
            return false;
        }
    }

    private static void chunk(final StringBuilder index, final Map<String, Chunk> written, final String relative, final long c,
        final String name, final long length, final long crc32c, final long crc32, final Path dir)
    {
        index.append(String.format(Locale.ROOT, "chunk %s %d %08x %08x", name, length, crc32c, crc32)).append('\n');
        written.put(relative + '#' + c, new Chunk(name, length, crc32c, crc32, dir.resolve(name)));
    }

    private void zero(final StringBuilder index, final Map<String, Chunk> written, final String relative, final long c,
        final long length, final long crc32c, final long crc32)
    {
        index.append(String.format(Locale.ROOT, "zero %d %08x %08x", length, crc32c, crc32)).append('\n');
        written.put(relative + '#' + c, new Chunk(null, length, crc32c, crc32, null));
        bytesZero += length;
    }

    private static boolean isZero(final ByteBuffer chunk)
    {
        final ByteBuffer b = chunk.duplicate();
        while (b.remaining() >= 8)
        {
            if (b.getLong() != 0)
            {
                return false;
            }
        }
        while (b.hasRemaining())
        {
            if (b.get() != 0)
            {
                return false;
            }
        }
        return true;
    }

    /** The checkpoint last written is committed: its chunks are the ones the next checkpoint links to. */
    public void committed()
    {
        if (pending != null)
        {
            previous = pending;
            pending = null;
        }
    }

    /** The checkpoint last written was not committed: the next one links to the one before. */
    public void aborted()
    {
        pending = null;
    }

    /**
     * Replaces the state directory's content with a verified checkpoint's: deletes what is there, then
     * writes each file from its chunks, fsyncs them and the directories. Remembers the checkpoint's
     * chunks, so the next checkpoint links to them.
     *
     * @param checkpoint a verified checkpoint (its manifest's CRCs have been checked).
     * @throws IOException when a file cannot be read or written, or the index is malformed.
     */
    public void restore(final CheckpointStore.Checkpoint checkpoint) throws IOException
    {
        final Path indexFile = checkpoint.files().get(INDEX);
        if (indexFile == null)
        {
            throw new IOException(checkpoint.directory + " has no " + INDEX + ": not a checkpoint of a state directory");
        }
        final List<String> lines = Files.readAllLines(indexFile, StandardCharsets.US_ASCII);
        if (lines.isEmpty() || !(HEADER.equals(lines.get(0)) || HEADER_V1.equals(lines.get(0))))
        {
            throw new IOException(indexFile + " is not a state index (header '" + (lines.isEmpty() ? "" : lines.get(0)) + "')");
        }
        clear();
        OwnerOnlyFiles.createDirectories(stateDirectory);
        final Map<String, Chunk> restored = new HashMap<>();
        int i = 1;
        try
        {
            while (i < lines.size())
            {
                final String[] file = lines.get(i++).split(" ");
                if (file.length != 4 || !"file".equals(file[0]))
                {
                    throw new IOException(indexFile + " line " + i + " is not a file line");
                }
                final String relative = file[1];
                checkRelative(relative, indexFile);
                final long size = Long.parseLong(file[2]);
                final long chunks = Long.parseLong(file[3]);
                final Path target = stateDirectory.resolve(relative);
                if (target.getParent() != null)
                {
                    OwnerOnlyFiles.createDirectories(target.getParent());
                }
                long total = 0;
                try (FileChannel out = FileChannel.open(OwnerOnlyFiles.createFile(target), StandardOpenOption.WRITE))
                {
                    for (long c = 0; c < chunks; c++)
                    {
                        final String[] chunk = lines.get(i++).split(" ");
                        if (chunk.length == 4 && "zero".equals(chunk[0]))
                        {
                            // Recorded, not stored: the chunk's zeros are written where it belongs.
                            final long length = Long.parseLong(chunk[1]);
                            if (length < 1 || length > CHUNK_BYTES)
                            {
                                throw new IOException(indexFile + " line " + i + " has a zero chunk of " + length + " bytes");
                            }
                            if (zeros == null)
                            {
                                zeros = ByteBuffer.allocateDirect(CHUNK_BYTES);
                            }
                            final ByteBuffer zero = zeros.duplicate();
                            zero.clear().limit((int)length);
                            while (zero.hasRemaining())
                            {
                                out.write(zero);
                            }
                            total += length;
                            restored.put(relative + '#' + c, new Chunk(null, length, Long.parseLong(chunk[2], 16),
                                Long.parseLong(chunk[3], 16), null));
                            continue;
                        }
                        if (chunk.length != 5 || !"chunk".equals(chunk[0]))
                        {
                            throw new IOException(indexFile + " line " + i + " is not a chunk line");
                        }
                        final Path source = checkpoint.files().get(chunk[1]);
                        if (source == null)
                        {
                            throw new IOException(indexFile + " names chunk " + chunk[1] + ", which the manifest does not");
                        }
                        try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ))
                        {
                            long at = 0;
                            final long length = in.size();
                            while (at < length)
                            {
                                at += in.transferTo(at, length - at, out);
                            }
                            total += length;
                        }
                        restored.put(relative + '#' + c, new Chunk(chunk[1], Long.parseLong(chunk[2]),
                            Long.parseLong(chunk[3], 16), Long.parseLong(chunk[4], 16), source));
                    }
                    out.force(true);
                }
                if (total != size)
                {
                    throw new IOException(indexFile + " says " + relative + " is " + size + " bytes, its chunks hold " + total);
                }
            }
        }
        catch (final NumberFormatException | IndexOutOfBoundsException e)
        {
            throw new IOException(indexFile + " is malformed at line " + i + ": " + e, e);
        }
        fsyncTree(stateDirectory);
        previous = restored;
        pending = null;
    }

    /**
     * Takes the chunks of an earlier checkpoint as the ones the next checkpoint links to, without
     * verifying them (as after a reopen, when nothing was restored): a chunk linked whose file was damaged
     * since fails the new checkpoint's verification when it is opened. Best effort: an unreadable index
     * leaves nothing to link to, and the next checkpoint writes every chunk.
     *
     * @param checkpointDirectory the earlier checkpoint's directory.
     */
    public void linkNextTo(final Path checkpointDirectory)
    {
        final Map<String, Chunk> chunks = new HashMap<>();
        try
        {
            final List<String> lines = Files.readAllLines(checkpointDirectory.resolve(INDEX), StandardCharsets.US_ASCII);
            if (lines.isEmpty() || !(HEADER.equals(lines.get(0)) || HEADER_V1.equals(lines.get(0))))
            {
                return;
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
            return;
        }
        previous = chunks;
        pending = null;
    }

    /** Forgets the previous checkpoint: the next checkpoint writes every chunk. */
    public void forgetPrevious()
    {
        previous = Collections.emptyMap();
        pending = null;
    }

    /**
     * Deletes everything in the state directory except its lock file (the directory itself stays): the
     * lock file is never deleted, since a waiter could then lock a new file while the old one is held.
     *
     * @throws IOException when something cannot be deleted.
     */
    public void clear() throws IOException
    {
        if (Files.isDirectory(stateDirectory, LinkOption.NOFOLLOW_LINKS))
        {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(stateDirectory))
            {
                for (final Path entry : entries)
                {
                    if (isLock(entry, ""))
                    {
                        continue;
                    }
                    if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS))
                    {
                        deleteContent(entry);
                    }
                    Files.delete(entry);
                }
            }
        }
    }

    /** @return whether this entry of the state directory (at {@code prefix}) is its lock file, which is no state. */
    private static boolean isLock(final Path entry, final String prefix)
    {
        return prefix.isEmpty() && entry.getFileName().toString().equals(DirectoryLock.FILE_NAME);
    }

    /**
     * @return whether the state directory exists and holds anything besides its lock file.
     * @throws IOException when it cannot be listed.
     */
    public boolean hasFiles() throws IOException
    {
        if (!Files.isDirectory(stateDirectory))
        {
            return false;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(stateDirectory))
        {
            for (final Path entry : entries)
            {
                if (!isLock(entry, ""))
                {
                    return true;
                }
            }
            return false;
        }
    }

    private static void deleteContent(final Path dir) throws IOException
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir))
        {
            for (final Path entry : entries)
            {
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS))
                {
                    deleteContent(entry);
                }
                Files.delete(entry);
            }
        }
    }

    /** @return the state's regular files, relative, '/'-separated, sorted (a stable chunk naming). */
    private List<String> list() throws IOException
    {
        final List<String> files = new ArrayList<>();
        if (Files.isDirectory(stateDirectory))
        {
            collect(stateDirectory, "", files);
        }
        Collections.sort(files);
        return files;
    }

    private void collect(final Path dir, final String prefix, final List<String> files) throws IOException
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir))
        {
            for (final Path entry : entries)
            {
                final String relative = prefix + entry.getFileName();
                if (isLock(entry, prefix) || relative.endsWith(".tmp"))
                {
                    // Not state: the lock, or a file left half-written by a crash (never renamed into place).
                    continue;
                }
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS))
                {
                    collect(entry, relative + '/', files);
                }
                else if (Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS))
                {
                    checkRelative(relative, entry);
                    files.add(relative);
                }
                else
                {
                    throw new IOException(entry + " is neither a file nor a directory: a state directory holds only files");
                }
            }
        }
    }

    private static void checkRelative(final String relative, final Path where) throws IOException
    {
        if (relative.isEmpty() || relative.startsWith("/") || relative.contains("..") || relative.chars().anyMatch(
            ch -> ch <= ' ' || ch >= 127))
        {
            throw new IOException(where + ": state file name '" + relative + "' cannot be checkpointed " +
                "(printable ASCII without spaces or '..' only)");
        }
    }

    private static void fsyncTree(final Path dir) throws IOException
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir))
        {
            for (final Path entry : entries)
            {
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS))
                {
                    fsyncTree(entry);
                }
            }
        }
        SmallFiles.fsyncDirectory(dir);
    }
}
