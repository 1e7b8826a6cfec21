package io.junction.internal.durable;

import io.junction.internal.cut.CutFile;
import io.junction.internal.cut.StagedCut;
import io.junction.internal.io.OwnerOnlyFiles;
import io.junction.internal.state.Chunks;

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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * Copies a partition's state directory into a checkpoint and back, incrementally. Every state file is
 * split into chunks of {@link Chunks#CHUNK_BYTES}; each chunk is a file of the checkpoint ({@code c-FFFF-CCCCCCCC}).
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
 * or its background writer while a staged cut is written ({@link #write(CheckpointFiles, Path, StagedCut)}),
 * the partition waiting for that write before it uses the image again.
 */
public final class StateImage
{
    /** The index file's name in a checkpoint. */
    public static final String INDEX = "STATE-FILES";

    private static final String HEADER = "junction-state-files 2";
    /** The index of a checkpoint written before zero chunks were recorded: read still. */
    private static final String HEADER_V1 = "junction-state-files 1";
    /** A checkpoint's chunk files ({@code c-FFFF-CCCCCCCC}): deferrable, a restore reads only those that differ. */
    private static final Pattern CHUNK_FILE = Pattern.compile("c-\\d{4}-\\d{8}");

    private final Path stateDirectory;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(Chunks.CHUNK_BYTES);
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
    /** The live files' sums read for the restore being planned, by relative name (null: missing). */
    private final Map<String, LiveFile> live = new HashMap<>();
    /** The sums the live directory recorded at its last persist (valid while its marker is there), read once per restore. */
    private Map<String, ChunkSums.FileSums> recorded;
    /** The plan of the checkpoint last opened with {@link #reads()}. */
    private Plan plan;
    private long restoreBytesWritten;
    private long restoreBytesCompared;
    private final List<String> restoreDamaged = new ArrayList<>();

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
    public void write(final CheckpointFiles writer, final Path dir) throws IOException
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
                final long chunks = (size + Chunks.CHUNK_BYTES - 1) / Chunks.CHUNK_BYTES;
                final ChunkSums.FileSums sums = known.get(relative);
                final boolean summed = sums != null && sums.length == size;
                index.append("file ").append(relative).append(' ').append(size).append(' ').append(chunks).append('\n');
                for (long c = 0; c < chunks; c++)
                {
                    final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
                    final long at = c * Chunks.CHUNK_BYTES;
                    final long length = Math.min(Chunks.CHUNK_BYTES, size - at);
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
                    if (Chunks.isZero(buffer))
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
     * where"). First the cut's staged chunks, one at a time as the cut hands them over ({@link StagedCut#drain}:
     * each captured into one buffer and summed, so the staging memory is a chunk however large the cut): zeros
     * as a line of the index, a chunk whose sums equal the previous checkpoint's as a hard link, any other as a
     * chunk file from its bytes. Then, in file order, every chunk no write changed since the cut before: zeros,
     * or a link to the previous checkpoint's; a chunk neither staged nor linkable (the previous checkpoint was
     * pruned by another process, or does not hold it) fails the write and asks the next cut to stage everything
     * ({@link StagedCut#baseMissing()}). The small files of the image follow, from bytes: heap.dat (the cut's),
     * {@link ChunkSums#FILE_NAME} and the marker ({@link ChunkSums#MARKER_NAME}), encoded here from the sums;
     * the index last. The caller commits the checkpoint.
     *
     * <p>Thread: the writer's. Touches only the cut (through its drain: the frozen cells it captures), this image
     * (whose owner waits for the write before it uses the image again) and the checkpoint being written.
     *
     * @param writer the checkpoint.
     * @param dir    the checkpoint's directory.
     * @param cut    the staged cut, handed over by the partition thread.
     * @throws IOException when a chunk cannot be written or linked.
     */
    public void write(final CheckpointFiles writer, final Path dir, final StagedCut cut) throws IOException
    {
        bytesWritten = 0;
        bytesLinked = 0;
        bytesRead = 0;
        bytesZero = 0;
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
        final StringBuilder index = new StringBuilder(256).append(HEADER).append('\n');
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
        final WritableByteChannel out = writer.file(INDEX);
        out.write(ByteBuffer.wrap(index.toString().getBytes(StandardCharsets.US_ASCII)));
        pending = written;
    }

    /** One staged chunk, summed, as the cut's drain hands it over: zeros, a link, or a chunk file from its bytes. */
    private void writeStagedChunk(final CheckpointFiles writer, final Path dir, final Map<String, Chunk> written,
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
            bytesZero += length;
            return;
        }
        final String name = String.format(Locale.ROOT, "c-%04d-%08d", f, c);
        final Chunk before = previous.get(relative + '#' + c);
        if (!(before != null && before.file != null && before.size == length && before.crc32c == sumC && before.crc32 == sum &&
            link(writer, name, before, length)))
        {
            final WritableByteChannel out = writer.file(name);
            while (bytes.hasRemaining())
            {
                out.write(bytes);
            }
            bytesWritten += length;
        }
        written.put(relative + '#' + c, new Chunk(name, length, sumC, sum, dir.resolve(name)));
    }

    /**
     * A tracked file's index lines, in chunk order: a staged chunk as its drain recorded it, any other (unchanged
     * since the cut before) as zeros or a link to the previous checkpoint's.
     */
    private void writeUnstaged(final CheckpointFiles writer, final Path dir, final StringBuilder index,
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
            final Chunk before = previous.get(relative + '#' + c);
            if (before != null && before.file != null && before.size == length && before.crc32c == sumC && before.crc32 == sum &&
                link(writer, name, before, length))
            {
                chunk(index, written, relative, c, name, length, sumC, sum, dir);
                continue;
            }
            cut.baseMissing();
            throw new IOException(String.format(Locale.ROOT, "%s chunk %d did not change since the checkpoint before, " +
                "but that checkpoint no longer holds it (pruned): the next checkpoint copies every chunk",
                stateDirectory.resolve(relative), c));
        }
    }

    private void writeBytes(final CheckpointFiles writer, final Path dir, final StringBuilder index,
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
    private boolean link(final CheckpointFiles writer, final String name, final Chunk before, final long length)
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
     * What a restore reads of a checkpoint: its chunk files are deferrable, and only those whose bytes differ
     * from the live state directory's chunk (by length, CRC-32C and CRC-32) are needed; the live files are read
     * once per restore (across every candidate checkpoint opened with these reads) to know that. Call
     * {@link #beginRestore()} before opening the candidates.
     *
     * @return the reads, for {@link CheckpointStore#latest(long, long[], CheckpointStore.Reads)} and
     *         {@link CheckpointStore#open(long, long, CheckpointStore.Reads)}.
     */
    public CheckpointStore.Reads reads()
    {
        return reads;
    }

    /** Forgets the live files' sums read for an earlier restore: the state may have changed since. */
    public void beginRestore()
    {
        live.clear();
        plan = null;
        recorded = null;
        restoreBytesCompared = 0;
        restoreDamaged.clear();
    }

    /** @return bytes of chunks the last {@link #restore} wrote into the state directory (read from the checkpoint). */
    public long restoreBytesWritten()
    {
        return restoreBytesWritten;
    }

    /** @return bytes of the live files the last restore read to compare their chunks with the checkpoint's. */
    public long restoreBytesCompared()
    {
        return restoreBytesCompared;
    }

    /** @return chunks the last restore found damaged in the live files (named), which it restored. */
    public List<String> restoreDamaged()
    {
        return List.copyOf(restoreDamaged);
    }

    /**
     * The live state directory's file as a restore found it: its length and the sums of its chunks, read on
     * demand (a chunk's CRC-32 only where its CRC-32C does not decide, {@link LiveTarget#wantsCrc32}).
     */
    private static final class LiveFile
    {
        final long size;
        final int[] crc32c;
        final int[] crc32;
        /** Per chunk: whether {@link #crc32c} holds its CRC-32C. */
        final boolean[] summed;
        /** Per chunk: whether {@link #crc32} holds its CRC-32. */
        final boolean[] hasCrc32;

        LiveFile(final long size)
        {
            this.size = size;
            final int chunks = ChunkSums.chunks(size);
            this.crc32c = new int[chunks];
            this.crc32 = new int[chunks];
            this.summed = new boolean[chunks];
            this.hasCrc32 = new boolean[chunks];
        }
    }

    /**
     * A live file's chunks a restore sums for one checkpoint's index file: a chunk's CRC-32 is taken only when
     * its CRC-32C equals the checkpoint chunk's (to know it the same: both sums must agree) or the one its last
     * persist recorded (to know it undamaged); otherwise the chunk is rewritten, or named damaged, on its
     * CRC-32C alone, as it would be on both sums.
     */
    private static final class LiveTarget extends ParallelSums.Target
    {
        final String relative;
        final LiveFile live;
        final IndexFile file;
        /** The sums the live file's last persist recorded, when they are for its length; else null. */
        final ChunkSums.FileSums recorded;

        LiveTarget(final Path path, final String relative, final LiveFile live, final IndexFile file,
            final ChunkSums.FileSums recorded, final int upTo, final boolean[] todo)
        {
            super(path, live.size, upTo, todo, live.crc32c, live.crc32, live.hasCrc32, null);
            this.relative = relative;
            this.live = live;
            this.file = file;
            this.recorded = recorded;
        }

        @Override
        boolean wantsCrc32(final int c, final int crc32c)
        {
            final Chunk chunk = file.chunks.get(c);
            return (chunkLength(c) == chunk.size && (crc32c & 0xFFFFFFFFL) == chunk.crc32c) ||
                (recorded != null && recorded.crc32c(c) == crc32c);
        }
    }

    /** A file of a checkpoint's index: its name, size and chunks. */
    private static final class IndexFile
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

    /** A restore's plan: the checkpoint's files and, per file, which chunks equal the live ones. */
    private static final class Plan
    {
        final Path directory;
        final List<IndexFile> files;
        final Map<String, boolean[]> same = new HashMap<>();
        final Set<String> needed = new HashSet<>();

        Plan(final Path directory, final List<IndexFile> files)
        {
            this.directory = directory;
            this.files = files;
        }
    }

    private final CheckpointStore.Reads reads = new CheckpointStore.Reads()
    {
        @Override
        public boolean deferrable(final String name)
        {
            return CHUNK_FILE.matcher(name).matches();
        }

        @Override
        public Set<String> needed(final CheckpointStore.Checkpoint checkpoint) throws IOException
        {
            plan = plan(checkpoint);
            return plan.needed;
        }
    };

    /**
     * Plans a restore of {@code checkpoint}: reads its index and compares each chunk with the live file's
     * chunk at the same place, the live files summed on a bounded pool of the machine's cores
     * ({@link ParallelSums}); a chunk summed for an earlier candidate checkpoint is not read again unless
     * this one needs a CRC-32 it skipped.
     */
    private Plan plan(final CheckpointStore.Checkpoint checkpoint) throws IOException
    {
        final Plan next = new Plan(checkpoint.directory, readIndex(checkpoint));
        if (recorded == null)
        {
            recorded = ChunkSums.readValid(stateDirectory);
        }
        final List<LiveTarget> targets = new ArrayList<>();
        for (final IndexFile file : next.files)
        {
            // The marker is removed first and written last by the restore, whatever the live one holds.
            final LiveFile current = ChunkSums.MARKER_NAME.equals(file.relative) ? null : live(file.relative);
            if (current == null)
            {
                continue;
            }
            final ChunkSums.FileSums sums = recorded.get(file.relative);
            final LiveTarget target = new LiveTarget(stateDirectory.resolve(file.relative), file.relative, current, file,
                sums != null && sums.length == current.size ? sums : null, Math.min(file.chunks.size(), current.crc32c.length),
                new boolean[Math.min(file.chunks.size(), current.crc32c.length)]);
            for (int c = 0; c < target.upTo; c++)
            {
                target.todo[c] = !current.summed[c] || (!current.hasCrc32[c] && target.wantsCrc32(c, current.crc32c[c]));
            }
            targets.add(target);
        }
        ParallelSums.sum(targets, ParallelSums.threads());
        for (final LiveTarget target : targets)
        {
            restoreBytesCompared += target.bytesRead;
            for (int c = 0; c < target.upTo; c++)
            {
                if (target.todo[c] && !target.live.summed[c])
                {
                    target.live.summed[c] = true;
                    checkRecorded(target, c);
                }
            }
        }
        for (final IndexFile file : next.files)
        {
            final boolean[] same = new boolean[file.chunks.size()];
            final LiveFile current = ChunkSums.MARKER_NAME.equals(file.relative) ? null : live.get(file.relative);
            for (int c = 0; c < same.length; c++)
            {
                final Chunk chunk = file.chunks.get(c);
                same[c] = current != null && c < current.crc32c.length && current.summed[c] && current.hasCrc32[c] &&
                    chunkLength(current.size, c) == chunk.size && (current.crc32c[c] & 0xFFFFFFFFL) == chunk.crc32c &&
                    (current.crc32[c] & 0xFFFFFFFFL) == chunk.crc32;
                if (!same[c] && chunk.file != null)
                {
                    next.needed.add(chunk.name);
                }
            }
            next.same.put(file.relative, same);
        }
        return next;
    }

    /** @return the live file as found (null when missing); its chunks are summed by {@link #plan}. */
    private LiveFile live(final String relative) throws IOException
    {
        if (live.containsKey(relative))
        {
            return live.get(relative);
        }
        final Path path = stateDirectory.resolve(relative);
        final LiveFile file = Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS) ? new LiveFile(Files.size(path)) : null;
        live.put(relative, file);
        return file;
    }

    /** @return bytes of chunk {@code c} of a file of {@code size} bytes. */
    private static int chunkLength(final long size, final int c)
    {
        return (int)Math.min(Chunks.CHUNK_BYTES, size - (long)c * Chunks.CHUNK_BYTES);
    }

    /**
     * Names chunk {@code c} of a live file just summed damaged when its sums are not those its last persist
     * recorded: its CRC-32C differs, or (its CRC-32C equal, so its CRC-32 was taken) its CRC-32 does.
     */
    private void checkRecorded(final LiveTarget target, final int c)
    {
        final ChunkSums.FileSums sums = target.recorded;
        final LiveFile file = target.live;
        if (sums != null && (sums.crc32c(c) != file.crc32c[c] || (file.hasCrc32[c] && sums.crc32(c) != file.crc32[c])))
        {
            final long at = (long)c * Chunks.CHUNK_BYTES;
            restoreDamaged.add(String.format(Locale.ROOT, "%s chunk %d (bytes %d..%d) is damaged: its CRC-32C %08x is not " +
                "the %08x %s recorded", target.path, c, at, at + chunkLength(file.size, c) - 1, file.crc32c[c], sums.crc32c(c),
                ChunkSums.FILE_NAME));
        }
    }

    /** @return the checkpoint's index of files and chunks, checked against its manifest's file list. */
    private static List<IndexFile> readIndex(final CheckpointStore.Checkpoint checkpoint) throws IOException
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
                checkRelative(words[1], indexFile);
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
     * Makes the state directory's content a verified checkpoint's, writing only what differs: the marker is
     * removed first (durably), files the checkpoint does not hold are deleted, and of each file only the
     * chunks whose length and sums differ from the live chunk's (or that the live file lacks) are written,
     * from the checkpoint's chunk (or as zeros); a chunk equal to the live one is neither read from the
     * checkpoint nor written; a file longer than the checkpoint's is cut. Every file is fsynced once at the
     * end, the marker written last, the directories fsynced. The result is the checkpoint's bytes, as a full
     * copy's. Remembers the checkpoint's chunks, so the next checkpoint links to them.
     *
     * <p>Returns the sums of every file as restored, which its caller hands to the reopen that follows
     * (join's {@code DurableState}, through the partition's {@code StateConfig}), so that the reopen does
     * not read every chunk again to verify what this restore verified a moment before: every chunk was
     * either compared with the live file's bytes or written from the checkpoint's verified bytes. Nothing is
     * kept anywhere else: a reopen that is not handed them verifies every chunk.
     *
     * @param checkpoint a verified checkpoint: opened with {@link #reads()} (after {@link #beginRestore()}),
     *                   or with every file verified.
     * @return per file of the checkpoint (the marker and heap too), the sums of its bytes as restored.
     * @throws IOException when a file cannot be read or written, or the index is malformed.
     */
    public Map<String, ChunkSums.FileSums> restore(final CheckpointStore.Checkpoint checkpoint) throws IOException
    {
        restoreBytesWritten = 0;
        if (plan == null || !plan.directory.equals(checkpoint.directory))
        {
            // Opened without these reads (every file verified): the live files are compared now.
            beginRestore();
            plan = plan(checkpoint);
        }
        final Plan restoring = plan;
        OwnerOnlyFiles.createDirectories(stateDirectory);
        if (Files.deleteIfExists(stateDirectory.resolve(ChunkSums.MARKER_NAME)))
        {
            StateDirectory.fsyncDirectory(stateDirectory);
        }
        final Set<String> kept = new HashSet<>();
        for (final IndexFile file : restoring.files)
        {
            kept.add(file.relative);
        }
        deleteOthers(stateDirectory, "", kept);
        final Map<String, Chunk> restored = new HashMap<>();
        IndexFile marker = null;
        final List<FileChannel> written = new ArrayList<>();
        try
        {
            for (final IndexFile file : restoring.files)
            {
                if (ChunkSums.MARKER_NAME.equals(file.relative))
                {
                    marker = file;
                    continue;
                }
                written.add(restoreFile(checkpoint, file, restoring.same.get(file.relative), restored));
            }
            for (final FileChannel channel : written)
            {
                channel.force(true);
            }
        }
        finally
        {
            for (final FileChannel channel : written)
            {
                channel.close();
            }
        }
        if (marker != null)
        {
            try (FileChannel channel = restoreFile(checkpoint, marker, new boolean[marker.chunks.size()], restored))
            {
                channel.force(true);
            }
        }
        StateDirectory.fsyncTree(stateDirectory);
        final Map<String, ChunkSums.FileSums> sums = new HashMap<>();
        for (final IndexFile file : restoring.files)
        {
            final int chunks = file.chunks.size();
            final boolean[] zero = new boolean[chunks];
            final int[] crc32c = new int[chunks];
            final int[] crc32 = new int[chunks];
            for (int c = 0; c < chunks; c++)
            {
                final Chunk chunk = file.chunks.get(c);
                zero[c] = chunk.file == null;
                crc32c[c] = (int)chunk.crc32c;
                crc32[c] = (int)chunk.crc32;
            }
            sums.put(file.relative, new ChunkSums.FileSums(file.size, zero, crc32c, crc32));
        }
        previous = restored;
        pending = null;
        live.clear();
        plan = null;
        recorded = null;
        return Collections.unmodifiableMap(sums);
    }

    /** Writes the chunks of one file that differ from the live file's; @return its channel, to fsync and close. */
    private FileChannel restoreFile(final CheckpointStore.Checkpoint checkpoint, final IndexFile file, final boolean[] same,
        final Map<String, Chunk> restored) throws IOException
    {
        final Path target = stateDirectory.resolve(file.relative);
        if (target.getParent() != null)
        {
            OwnerOnlyFiles.createDirectories(target.getParent());
        }
        final FileChannel out = FileChannel.open(Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) ? target :
            OwnerOnlyFiles.createFile(target), StandardOpenOption.WRITE);
        try
        {
            for (int c = 0; c < file.chunks.size(); c++)
            {
                final Chunk chunk = file.chunks.get(c);
                restored.put(file.relative + '#' + c, chunk);
                if (same[c])
                {
                    continue;
                }
                final long at = (long)c * Chunks.CHUNK_BYTES;
                final ByteBuffer bytes;
                if (chunk.file == null)
                {
                    // Recorded, not stored: the chunk's zeros are written where it belongs (no hole in a mapped file).
                    if (zeros == null)
                    {
                        zeros = ByteBuffer.allocateDirect(Chunks.CHUNK_BYTES);
                    }
                    bytes = zeros.duplicate();
                    bytes.clear().limit((int)chunk.size);
                }
                else
                {
                    if (!checkpoint.verified(chunk.name))
                    {
                        throw new IOException(chunk.file + " was not verified when " + checkpoint.directory +
                            " was opened, yet the restore needs it: the live files changed while it was restored");
                    }
                    try (FileChannel in = FileChannel.open(chunk.file, StandardOpenOption.READ))
                    {
                        if (in.size() != chunk.size)
                        {
                            throw new IOException(chunk.file + " is " + in.size() + " bytes, the index says " + chunk.size);
                        }
                        read(in, chunk.file, 0, (int)chunk.size);
                    }
                    bytes = buffer;
                }
                long position = at;
                while (bytes.hasRemaining())
                {
                    position += out.write(bytes, position);
                }
                restoreBytesWritten += chunk.size;
            }
            if (out.size() > file.size)
            {
                out.truncate(file.size);
            }
            return out;
        }
        catch (final IOException | RuntimeException e)
        {
            out.close();
            throw e;
        }
    }

    /** Deletes every file (and emptied directory) of the state directory the checkpoint does not hold, but the lock. */
    private static void deleteOthers(final Path dir, final String prefix, final Set<String> kept) throws IOException
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir))
        {
            for (final Path entry : entries)
            {
                final String relative = prefix + entry.getFileName();
                if (isLock(entry, prefix) || kept.contains(relative))
                {
                    continue;
                }
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS))
                {
                    deleteOthers(entry, relative + '/', kept);
                    if (isEmptyDirectory(entry))
                    {
                        Files.delete(entry);
                    }
                    continue;
                }
                Files.delete(entry);
            }
        }
    }

    private static boolean isEmptyDirectory(final Path dir) throws IOException
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir))
        {
            return !entries.iterator().hasNext();
        }
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
                        StateDirectory.deleteContent(entry);
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
}
