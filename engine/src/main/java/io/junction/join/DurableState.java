package io.junction.join;

import io.junction.internal.cut.CutFile;
import io.junction.internal.cut.StagedCut;
import io.junction.internal.durable.ChunkSums;
import io.junction.internal.durable.DirectoryLock;
import io.junction.internal.durable.HeapImage;
import io.junction.internal.durable.StateFiles;
import io.junction.internal.durable.StateDirectory;
import io.junction.internal.durable.StateMarkerDescriptor;
import io.junction.internal.io.OwnerOnlyFiles;
import io.junction.internal.state.Chunks;
import io.junction.internal.state.NativeArena;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.io.EOFException;
import java.nio.BufferUnderflowException;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The files of one operator's durable state directory and the rules for reopening them.
 * <pre>
 *   arena.dat          records, row groups, buckets (mapped; header: bump pointer, free lists, dirty flag)
 *   index.dat          the hash key index's table (mapped)        | index.cmap: the Chronicle Map index
 *   unique-left.dat    a side's unique-key index table (mapped), regular joins with such a key
 *   unique-right.dat
 *   heap.dat           the heap-held state: watermarks, counters, timer wheels, operator fields
 *                      (HeapImageDescriptor draws it)
 *   chunks.sum         per 1 MiB chunk of every mapped file: zero flag, CRC-32C, CRC-32 (ChunkSums), written
 *                      just before the marker, so that a checkpoint knows every chunk without reading it
 *   clean              the marker, written last by persist: fingerprint, layout, format, hash seed,
 *                      every file's length and the CRC-32C of each of its 1 MiB chunks (heap.dat: its
 *                      checksum), its own checksum (StateMarkerDescriptor draws it)
 *   LOCK               locked ({@link DirectoryLock}) while an operator has the directory open; not state
 * </pre>
 * A directory is reopened only when the marker is there and intact, names this join, layout and
 * format, every file it lists has the length it says, heap.dat's checksum matches, and the arena's
 * header is intact with its dirty flag clear (the flag is set by the first change after a persist,
 * so a process that dies after changing the state leaves it set), the offsets in that header point into
 * the arena, and every 1 MiB chunk of every mapped file has the CRC-32C the marker recorded at the
 * persist (damage inside the live files since: a flipped byte, a zeroed page). All of that is checked
 * before anything is mapped, created or modified, reading the marker, heap.dat and every mapped file
 * once ({@link #bytesVerified()}); anything else is a {@link DurableStateException} naming the file
 * (and the chunk). Once mapped, the index's bucket references are checked before any is followed
 * ({@code NativeArena.checkBucket}). The directory is locked first: a directory another
 * operator has open (another process, or this one) is refused naming the lock file.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class DurableState
{
    static final String ARENA = StateFiles.ARENA;
    static final String INDEX = StateFiles.INDEX;
    static final String CHRONICLE_INDEX = StateFiles.CHRONICLE_INDEX;
    static final String UNIQUE_LEFT = StateFiles.UNIQUE_LEFT;
    static final String UNIQUE_RIGHT = StateFiles.UNIQUE_RIGHT;
    static final String HEAP = HeapImage.FILE;
    static final String MARKER = ChunkSums.MARKER_NAME;
    /** Version of the files' layouts (part of the layout hash): heap.dat and the mapped files. */
    static final int FORMAT_VERSION = 1;
    /**
     * Version of the marker this build writes: 2 adds the CRC-32C of every {@link Chunks#CHUNK_BYTES} chunk of
     * every mapped file. A marker of version 1 (no chunk sums) is still read, its files then unverified.
     */
    static final int MARKER_VERSION = StateMarkerDescriptor.VERSION;
    /** Bytes per checksummed chunk of a mapped file (the checkpoints' chunk size). */
    private static final long MARKER_MAGIC = StateMarkerDescriptor.MAGIC;
    private static final String ADVICE = ": restore the state directory from a checkpoint (or empty it to start afresh)";

    final Path directory;
    /** True when the directory held a clean image that this reopens. */
    final boolean reopened;
    /** The key-hash seed the state was built with (the configured or drawn one when fresh). */
    final long hashSeed;
    private final long fingerprint;
    private final long layout;
    /** heap.dat's bytes when reopened, until the state and the operator have read them. */
    private ByteBuffer heap;
    /** Whether the marker file may be on disk (a reopened image's, or the last persist's). */
    private boolean markerOnDisk;
    /** Bytes this read from the directory's files to open it (structural tests: not the arena's records). */
    private long bytesRead;
    /** Bytes of the mapped files read to verify their chunk sums at reopen. */
    private long bytesVerified;
    /** Held from open until {@link #release()}. */
    private DirectoryLock lock;
    /** A reopened image's mapped files' sums, as verified against the marker, by name; empty when fresh. */
    private Map<String, ChunkSums.FileSums> verifiedSums = Map.of();

    private DurableState(final Path directory, final boolean reopened, final long hashSeed, final long fingerprint,
        final long layout, final ByteBuffer heap, final long bytesRead)
    {
        this.directory = directory;
        this.reopened = reopened;
        this.hashSeed = hashSeed;
        this.fingerprint = fingerprint;
        this.layout = layout;
        this.heap = heap;
        this.markerOnDisk = reopened;
        this.bytesRead = bytesRead;
    }

    /**
     * Locks the directory (its lock file is created when missing), validates it and, when it holds
     * nothing, creates it owner-only; nothing else is created or changed here. The lock is held until
     * {@link #release()}.
     *
     * @param directory   the state directory.
     * @param fingerprint the join's {@link io.junction.api.JoinSpec#fingerprint()}.
     * @param layout      the state layout's hash ({@link PartitionState}).
     * @param config      the configuration (its hash seed, when fixed, must be the stored one).
     * @return the opened directory.
     * @throws DurableStateException when the directory holds state this must not reopen, or is locked.
     */
    static DurableState open(final Path directory, final long fingerprint, final long layout, final StateConfig config)
    {
        if (Files.exists(directory) && !Files.isDirectory(directory))
        {
            throw new DurableStateException(directory + " is not a directory");
        }
        final DirectoryLock taken;
        try
        {
            // Before anything is read: the files must not be another user's mapped and changing ones.
            taken = DirectoryLock.acquire(OwnerOnlyFiles.createDirectories(directory), "the state directory");
        }
        catch (final IOException e)
        {
            throw new DurableStateException(e.getMessage(), e);
        }
        try
        {
            final DurableState state = validate(directory, fingerprint, layout, config);
            state.lock = taken;
            return state;
        }
        catch (final RuntimeException | Error e)
        {
            taken.close();
            throw e;
        }
    }

    /** Validates a locked directory (see {@link #open}). */
    private static DurableState validate(final Path directory, final long fingerprint, final long layout, final StateConfig config)
    {
        if (!Files.exists(directory) || isEmptyDirectory(directory))
        {
            try
            {
                OwnerOnlyFiles.createDirectories(directory);
            }
            catch (final IOException e)
            {
                throw new DurableStateException("cannot create state directory " + directory + ": " + e.getMessage(), e);
            }
            final long seed = config.withResolvedHashSeed().hashSeed();
            return new DurableState(directory, false, seed, fingerprint, layout, null, 0);
        }
        if (!Files.isDirectory(directory))
        {
            throw new DurableStateException(directory + " is not a directory");
        }
        final Path markerPath = directory.resolve(MARKER);
        if (!Files.exists(markerPath))
        {
            throw new DurableStateException(markerPath + " is missing: the state in " + directory +
                " was not closed cleanly (the process stopped without persist or close)" + ADVICE);
        }
        final byte[] marker = read(markerPath);
        long read = marker.length;
        final ByteBuffer m = checkedMarker(markerPath, marker);
        final int version = m.getInt(StateMarkerDescriptor.VERSION_OFFSET);
        m.position(StateMarkerDescriptor.FINGERPRINT_OFFSET);
        final long storedFingerprint = m.getLong();
        if (storedFingerprint != fingerprint)
        {
            throw new DurableStateException(String.format(
                "%s belongs to another join (fingerprint %016x, this join's %016x): refusing to reopen it%s",
                markerPath, storedFingerprint, fingerprint, ADVICE));
        }
        final long storedLayout = m.getLong();
        if (storedLayout != layout)
        {
            throw new DurableStateException(String.format(
                "%s was written with another partition state layout (%016x, this operator's %016x: index kind, " +
                "key capacity, chunk size, timer wheel, the sides whose records carry timer links, byte limit or row format version differ)%s", markerPath, storedLayout, layout, ADVICE));
        }
        final long seed = m.getLong();
        if (config.hasFixedHashSeed() && config.hashSeed() != seed)
        {
            throw new DurableStateException(markerPath + " was written with key-hash seed " + seed +
                ", the configuration fixes " + config.hashSeed() + ": the index would not find its keys" + ADVICE);
        }
        final long heapLength = m.getLong();
        final long heapCrc = m.getLong();
        final int files = m.getInt();
        final Map<String, Long> lengths = new LinkedHashMap<>();
        final Map<String, int[]> sums = new LinkedHashMap<>();
        try
        {
            for (int i = 0; i < files; i++)
            {
                final byte[] name = new byte[m.getShort()];
                m.get(name);
                final String fileName = new String(name, StandardCharsets.UTF_8);
                final long fileLength = m.getLong();
                lengths.put(fileName, fileLength);
                if (version == MARKER_VERSION)
                {
                    final int chunks = m.getInt();
                    if (chunks < 0 || (long)chunks * 4 > m.remaining() || (chunks > 0 && chunks != chunks(fileLength)))
                    {
                        throw new DurableStateException(markerPath + " is malformed: " + chunks + " chunk sums for " +
                            fileName + " of " + fileLength + " bytes" + ADVICE);
                    }
                    if (chunks > 0)
                    {
                        final int[] crcs = new int[chunks];
                        for (int c = 0; c < chunks; c++)
                        {
                            crcs[c] = m.getInt();
                        }
                        sums.put(fileName, crcs);
                    }
                }
            }
        }
        catch (final BufferUnderflowException | NegativeArraySizeException e)
        {
            throw new DurableStateException(markerPath + " is malformed (truncated file list)" + ADVICE, e);
        }
        for (final Map.Entry<String, Long> file : lengths.entrySet())
        {
            final Path path = directory.resolve(file.getKey());
            final long length;
            try
            {
                length = Files.size(path);
            }
            catch (final NoSuchFileException e)
            {
                throw new DurableStateException(path + " is missing (the marker lists it)" + ADVICE, e);
            }
            catch (final IOException e)
            {
                throw new DurableStateException("cannot read " + path + ": " + e.getMessage(), e);
            }
            if (length != file.getValue())
            {
                throw new DurableStateException(path + (length == 0 ? " is empty" : " is " + length + " bytes long") +
                    ", the marker says " + file.getValue() + " (truncated or replaced)" + ADVICE);
            }
        }
        final Path heapPath = directory.resolve(HEAP);
        final Path arenaPath = directory.resolve(ARENA);
        if (!lengths.containsKey(HEAP) || !lengths.containsKey(ARENA) || lengths.get(HEAP) != heapLength)
        {
            throw new DurableStateException(markerPath + " does not list " + HEAP + " and " + ARENA + " as written" + ADVICE);
        }
        final byte[] heapBytes = read(heapPath);
        read += heapBytes.length;
        final CRC32 crc = new CRC32();
        crc.update(heapBytes, 0, heapBytes.length);
        if (crc.getValue() != heapCrc)
        {
            throw new DurableStateException(heapPath + " is damaged (checksum mismatch with " + MARKER + ")" + ADVICE);
        }
        final byte[] header = new byte[NativeArena.HEADER_LENGTH];
        try (FileChannel channel = FileChannel.open(arenaPath, StandardOpenOption.READ))
        {
            final ByteBuffer buffer = ByteBuffer.wrap(header);
            while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0)
            {
                // Read the header only: the records are mapped on demand, never read here.
            }
            if (buffer.hasRemaining())
            {
                throw new DurableStateException(arenaPath + " is shorter than its header (truncated)" + ADVICE);
            }
            read += header.length;
            final String wrong = NativeArena.checkHeader(header, channel.size());
            if (wrong != null)
            {
                throw new DurableStateException(arenaPath + " " + wrong + ADVICE);
            }
        }
        catch (final IOException e)
        {
            throw new DurableStateException("cannot read " + arenaPath + ": " + e.getMessage(), e);
        }
        long verified = 0;
        final Map<String, ChunkSums.FileSums> verifiedSums = new LinkedHashMap<>();
        // A restore of this directory just verified every chunk (its caller handed its sums in): they are taken
        // where the marker records them.
        final Map<String, ChunkSums.FileSums> restored = config.restoredChunkSums() == null ? Map.of() :
            ChunkSums.decode(config.restoredChunkSums());
        for (final Map.Entry<String, int[]> file : sums.entrySet())
        {
            final long length = lengths.get(file.getKey());
            final ChunkSums.FileSums known = restored.get(file.getKey());
            if (known != null && known.length == length && Arrays.equals(known.crc32cs(), file.getValue()))
            {
                verifiedSums.put(file.getKey(), known);
                continue;
            }
            verifiedSums.put(file.getKey(), verifyChunks(directory.resolve(file.getKey()), length, file.getValue()));
            verified += length;
        }
        final DurableState state = new DurableState(directory, true, seed, fingerprint, layout, ByteBuffer.wrap(heapBytes), read);
        state.bytesVerified = verified;
        state.verifiedSums = verifiedSums;
        return state;
    }

    /** @return the number of {@link Chunks#CHUNK_BYTES} chunks of a file of {@code length} bytes. */
    static int chunks(final long length)
    {
        return (int)Math.min(Integer.MAX_VALUE, (length + Chunks.CHUNK_BYTES - 1) / Chunks.CHUNK_BYTES);
    }

    /**
     * Reads a mapped file (not mapped yet) chunk by chunk and checks each chunk's CRC-32C against the one
     * the marker recorded. Through a {@link RandomAccessFile}, whose reads an interrupt cannot break.
     *
     * @return the file's sums (its dirty-chunk tracking starts from them).
     * @throws DurableStateException naming the file and the first damaged chunk.
     */
    private static ChunkSums.FileSums verifyChunks(final Path path, final long length, final int[] expected)
    {
        final ChunkSums.FileSums sums;
        try
        {
            sums = ChunkSums.compute(path, length);
        }
        catch (final EOFException e)
        {
            throw new DurableStateException(path + " is shorter than its chunk sums say (truncated)" + ADVICE, e);
        }
        catch (final IOException e)
        {
            throw new DurableStateException("cannot read " + path + ": " + e.getMessage(), e);
        }
        final int[] actual = sums.crc32cs();
        if (actual.length < expected.length)
        {
            throw new DurableStateException(path + " is shorter than its chunk sums say (truncated)" + ADVICE);
        }
        for (int c = 0; c < expected.length; c++)
        {
            if (actual[c] != expected[c])
            {
                final long at = (long)c * Chunks.CHUNK_BYTES;
                final long last = Math.min(at + Chunks.CHUNK_BYTES, length) - 1;
                throw new DurableStateException(String.format(Locale.ROOT,
                    "%s chunk %d (bytes %d..%d) is damaged: its CRC-32C %08x is not the %08x %s recorded at the last " +
                    "persist%s", path, c, at, last, actual[c], expected[c], MARKER, ADVICE));
            }
        }
        return sums;
    }

    /**
     * @param name a mapped file's name.
     * @return its sums as verified when the directory was reopened, or null (fresh, or a marker without sums).
     */
    ChunkSums.FileSums verifiedSums(final String name)
    {
        return verifiedSums.get(name);
    }

    /**
     * The key-hash seed a clean image in {@code directory} was built with, for a runtime that must route
     * rows with it; checks the marker only (magic, checksum, format version).
     *
     * @param directory a state directory.
     * @return the seed, or empty when the directory holds no marker.
     * @throws DurableStateException when the marker is damaged or of another format.
     */
    static OptionalLong storedHashSeed(final Path directory)
    {
        final Path markerPath = directory.resolve(MARKER);
        if (!Files.exists(markerPath))
        {
            return OptionalLong.empty();
        }
        return OptionalLong.of(checkedMarker(markerPath, read(markerPath)).getLong(StateMarkerDescriptor.HASH_SEED_OFFSET));
    }

    /**
     * Checks a marker's framing: its length and magic, its checksum, its version (one this build reads).
     *
     * @return the marker's bytes to read its fields from.
     * @throws DurableStateException naming what is wrong.
     */
    private static ByteBuffer checkedMarker(final Path markerPath, final byte[] marker)
    {
        final ByteBuffer m = ByteBuffer.wrap(marker);
        if (marker.length < StateMarkerDescriptor.MIN_LENGTH || m.getLong(StateMarkerDescriptor.MAGIC_OFFSET) != MARKER_MAGIC)
        {
            throw new DurableStateException(markerPath + " is not a Junction state marker (truncated or foreign)" + ADVICE);
        }
        final CRC32 crc = new CRC32();
        crc.update(marker, 0, StateMarkerDescriptor.crcOffset(marker.length));
        if (m.getLong(StateMarkerDescriptor.crcOffset(marker.length)) != crc.getValue())
        {
            throw new DurableStateException(markerPath + " is damaged (checksum mismatch)" + ADVICE);
        }
        final int version = m.getInt(StateMarkerDescriptor.VERSION_OFFSET);
        if (version != FORMAT_VERSION && version != MARKER_VERSION)
        {
            throw new DurableStateException(markerPath + " was written in state format version " + version +
                ", this build reads versions " + FORMAT_VERSION + " and " + MARKER_VERSION + ADVICE);
        }
        return m;
    }

    private static boolean isEmptyDirectory(final Path directory)
    {
        if (!Files.isDirectory(directory))
        {
            return false;
        }
        try (Stream<Path> entries = Files.list(directory))
        {
            // The lock file is no state: a directory that holds only it is a fresh one.
            return entries.allMatch(entry -> entry.getFileName().toString().equals(DirectoryLock.FILE_NAME));
        }
        catch (final IOException e)
        {
            throw new DurableStateException("cannot list state directory " + directory + ": " + e.getMessage(), e);
        }
    }

    private static byte[] read(final Path path)
    {
        try
        {
            return Files.readAllBytes(path);
        }
        catch (final IOException e)
        {
            throw new DurableStateException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    /** @return a reopened image's heap.dat, positioned where the last reader stopped; null when fresh. */
    ByteBuffer heap()
    {
        return heap;
    }

    /** Drops the reopened heap bytes once everything has read its part. */
    void heapRead()
    {
        heap = null;
    }

    /** Releases the directory's lock (the state is closed); idempotent. */
    void release()
    {
        if (lock != null)
        {
            lock.close();
        }
    }

    /** @return bytes read from the files to open the directory (the structural checks, not the chunk sums). */
    long bytesRead()
    {
        return bytesRead;
    }

    /** @return bytes of the mapped files read to verify their chunk sums when reopened (0 when fresh). */
    long bytesVerified()
    {
        return bytesVerified;
    }

    /** @return a file of the directory. */
    Path file(final String name)
    {
        return directory.resolve(name);
    }

    /**
     * Removes the marker, durably, when it may be on disk: first thing on the first change after a
     * reopen, and at the start of a persist, so that no crash leaves a marker beside files it does not describe.
     */
    void removeMarker() throws IOException
    {
        if (markerOnDisk)
        {
            Files.deleteIfExists(directory.resolve(MARKER));
            StateDirectory.fsyncDirectory(directory);
            markerOnDisk = false;
        }
    }

    /**
     * The end of a persist: writes heap.dat, then the marker, each to a new file synced and renamed
     * into place, and syncs the directory. The caller has forced the mapped files.
     *
     * @param heapBytes the heap-held state.
     * @param files     the name and length of every other file of the image.
     * @param tracked   the sums of the files whose write paths track their dirty chunks, as summed by
     *                  this persist; every other file of {@code files} is read and summed here whole.
     */
    void writeImage(final byte[] heapBytes, final Map<String, Long> files, final Map<String, ChunkSums.FileSums> tracked)
        throws IOException
    {
        StateDirectory.writeAtomically(directory.resolve(HEAP), heapBytes);
        final Map<String, Long> all = new LinkedHashMap<>(files);
        all.put(HEAP, (long)heapBytes.length);
        // The mapped files are forced; the tracked ones were summed from their dirty chunks (the rest kept),
        // the others (a Chronicle Map) are read whole now; heap.dat has its own CRC.
        final Map<String, ChunkSums.FileSums> mapped = new LinkedHashMap<>();
        final Map<String, int[]> sums = new LinkedHashMap<>();
        for (final Map.Entry<String, Long> file : all.entrySet())
        {
            int[] chunkSums = new int[0];
            if (!file.getKey().equals(HEAP))
            {
                ChunkSums.FileSums fileSums = tracked.get(file.getKey());
                if (fileSums == null)
                {
                    fileSums = ChunkSums.compute(file(file.getKey()), file.getValue());
                }
                else if (fileSums.length != file.getValue())
                {
                    throw new IllegalStateException(file.getKey() + " is " + file.getValue() + " bytes, its sums are for " +
                        fileSums.length);
                }
                mapped.put(file.getKey(), fileSums);
                chunkSums = fileSums.crc32cs();
            }
            sums.put(file.getKey(), chunkSums);
        }
        // Before the marker: a checkpoint trusts these sums only while the marker is there (ChunkSums).
        StateDirectory.writeAtomically(directory.resolve(ChunkSums.FILE_NAME), ChunkSums.encode(mapped));
        final byte[] marker = encodeMarker(fingerprint, layout, hashSeed, heapBytes, heapBytes.length, all, sums);
        markerOnDisk = true;
        StateDirectory.writeAtomically(directory.resolve(MARKER), marker);
        StateDirectory.fsyncDirectory(directory);
    }

    /**
     * The marker of an image (see the class comment): a pure function of its arguments, so that a
     * checkpoint's background writer encodes it from a staged cut ({@link #marker(StagedCut)}).
     *
     * @param files every file of the image with its length, heap.dat among them.
     * @param sums  per file, the CRC-32C of each of its chunks (none for heap.dat).
     */
    private static byte[] encodeMarker(final long fingerprint, final long layout, final long hashSeed, final byte[] heapBytes,
        final int heapLength, final Map<String, Long> files, final Map<String, int[]> sums)
    {
        final CRC32 crc = new CRC32();
        crc.update(heapBytes, 0, heapLength);
        int length = StateMarkerDescriptor.FIXED_LENGTH;
        for (final Map.Entry<String, Long> file : files.entrySet())
        {
            length += StateMarkerDescriptor.entryLength(file.getKey().getBytes(StandardCharsets.UTF_8).length,
                sums.get(file.getKey()).length);
        }
        final ByteBuffer marker = ByteBuffer.allocate(length);
        marker.putLong(MARKER_MAGIC).putInt(MARKER_VERSION).putLong(fingerprint).putLong(layout).putLong(hashSeed)
            .putLong(heapLength).putLong(crc.getValue()).putInt(files.size());
        for (final Map.Entry<String, Long> file : files.entrySet())
        {
            final byte[] name = file.getKey().getBytes(StandardCharsets.UTF_8);
            marker.putShort((short)name.length).put(name).putLong(file.getValue());
            final int[] chunkSums = sums.get(file.getKey());
            marker.putInt(chunkSums.length);
            for (final int sum : chunkSums)
            {
                marker.putInt(sum);
            }
        }
        crc.reset();
        crc.update(marker.array(), 0, marker.position());
        marker.putLong(crc.getValue());
        return marker.array();
    }

    /**
     * The marker of a checkpoint's staged cut, as {@link #writeImage} would write for the same state: its
     * tracked files with their chunks' CRC-32Cs, then heap.dat. Runs on the checkpoint's background writer:
     * reads only the cut and this object's final fields (fingerprint, layout, seed), never the directory.
     *
     * @param cut a cut whose staged chunks are summed.
     * @return the marker's bytes.
     */
    byte[] marker(final StagedCut cut)
    {
        final Map<String, Long> files = new LinkedHashMap<>();
        final Map<String, int[]> sums = new LinkedHashMap<>();
        for (int i = 0; i < cut.files(); i++)
        {
            final CutFile file = cut.file(i);
            files.put(file.name(), file.length());
            sums.put(file.name(), file.crc32cs());
        }
        files.put(HEAP, (long)cut.heapLength());
        sums.put(HEAP, new int[0]);
        return encodeMarker(fingerprint, layout, hashSeed, cut.heap(), cut.heapLength(), files, sums);
    }

    /** A 64-bit FNV-1a hash of a text, for the layout hash. */
    static long hash(final String text)
    {
        long hash = 0xcbf29ce484222325L;
        for (final byte b : text.getBytes(StandardCharsets.UTF_8))
        {
            hash ^= b & 0xFF;
            hash *= 0x100000001b3L;
        }
        return hash;
    }
}
