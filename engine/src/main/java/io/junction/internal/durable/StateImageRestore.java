package io.junction.internal.durable;

import io.junction.internal.durable.StateFilesIndex.Chunk;
import io.junction.internal.durable.StateFilesIndex.IndexFile;
import io.junction.internal.io.OwnerOnlyFiles;
import io.junction.internal.state.Chunks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The restoring half of a {@link StateImage}: plans a restore from a checkpoint's {@value StateImage#INDEX}
 * index against the live files (summed once per restore on a bounded pool, {@link ParallelSums}), then writes
 * only the chunks that differ, the marker removed first and the directories fsynced last. The thread that
 * restores the partition, as {@link StateImage} says.
 */
final class StateImageRestore
{
    private final StateImage image;
    /** A chunk of zeros (a direct buffer is zeroed), for restoring zero chunks; taken at the first one. */
    private ByteBuffer zeros;
    /** The live files' sums read for the restore being planned, by relative name (null: missing). */
    private final Map<String, LiveFile> live = new HashMap<>();
    /** The sums the live directory recorded at its last persist (valid while its marker is there), read once per restore. */
    private Map<String, ChunkSums.FileSums> recorded;
    /** The plan of the checkpoint last opened with {@link #reads()}. */
    private Plan plan;
    private long restoreBytesWritten;
    private long restoreBytesCompared;
    private final List<String> restoreDamaged = new ArrayList<>();


    StateImageRestore(final StateImage image)
    {
        this.image = image;
    }

    /** As {@link StateImage#reads}. */
    CheckpointStore.Reads reads()
    {
        return reads;
    }

    /** As {@link StateImage#beginRestore}. */
    void beginRestore()
    {
        live.clear();
        plan = null;
        recorded = null;
        restoreBytesCompared = 0;
        restoreDamaged.clear();
    }

    /** As {@link StateImage#restoreBytesWritten}. */
    long restoreBytesWritten()
    {
        return restoreBytesWritten;
    }

    /** As {@link StateImage#restoreBytesCompared}. */
    long restoreBytesCompared()
    {
        return restoreBytesCompared;
    }

    /** As {@link StateImage#restoreDamaged}. */
    List<String> restoreDamaged()
    {
        return List.copyOf(restoreDamaged);
    }

    /**
     * The live state directory's file as a restore found it: its length and the sums of its chunks, read on
     * demand (a chunk's CRC-32 only where its CRC-32C does not decide, {@link LiveTarget#wantsCrc32}).
     */
    static final class LiveFile
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

    final CheckpointStore.Reads reads = new CheckpointStore.Reads()
    {
        @Override
        public boolean deferrable(final String name)
        {
            return StateFilesIndex.CHUNK_FILE.matcher(name).matches();
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
    Plan plan(final CheckpointStore.Checkpoint checkpoint) throws IOException
    {
        final Plan next = new Plan(checkpoint.directory, StateFilesIndex.readIndex(checkpoint));
        if (recorded == null)
        {
            recorded = ChunkSums.readValid(image.stateDirectory);
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
            final LiveTarget target = new LiveTarget(image.stateDirectory.resolve(file.relative), file.relative, current, file,
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
    LiveFile live(final String relative) throws IOException
    {
        if (live.containsKey(relative))
        {
            return live.get(relative);
        }
        final Path path = image.stateDirectory.resolve(relative);
        final LiveFile file = Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS) ? new LiveFile(Files.size(path)) : null;
        live.put(relative, file);
        return file;
    }

    /** @return bytes of chunk {@code c} of a file of {@code size} bytes. */
    static int chunkLength(final long size, final int c)
    {
        return (int)Math.min(Chunks.CHUNK_BYTES, size - (long)c * Chunks.CHUNK_BYTES);
    }

    /**
     * Names chunk {@code c} of a live file just summed damaged when its sums are not those its last persist
     * recorded: its CRC-32C differs, or (its CRC-32C equal, so its CRC-32 was taken) its CRC-32 does.
     */
    void checkRecorded(final LiveTarget target, final int c)
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

    /** As {@link StateImage#restore}. */
    Map<String, ChunkSums.FileSums> restore(final CheckpointStore.Checkpoint checkpoint) throws IOException
    {
        restoreBytesWritten = 0;
        if (plan == null || !plan.directory.equals(checkpoint.directory))
        {
            // Opened without these reads (every file verified): the live files are compared now.
            beginRestore();
            plan = plan(checkpoint);
        }
        final Plan restoring = plan;
        OwnerOnlyFiles.createDirectories(image.stateDirectory);
        if (Files.deleteIfExists(image.stateDirectory.resolve(ChunkSums.MARKER_NAME)))
        {
            StateDirectory.fsyncDirectory(image.stateDirectory);
        }
        final Set<String> kept = new HashSet<>();
        for (final IndexFile file : restoring.files)
        {
            kept.add(file.relative);
        }
        deleteOthers(image.stateDirectory, "", kept);
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
        StateDirectory.fsyncTree(image.stateDirectory);
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
        image.previous = restored;
        image.pending = null;
        live.clear();
        plan = null;
        recorded = null;
        return Collections.unmodifiableMap(sums);
    }

    /** Writes the chunks of one file that differ from the live file's; @return its channel, to fsync and close. */
    FileChannel restoreFile(final CheckpointStore.Checkpoint checkpoint, final IndexFile file, final boolean[] same,
        final Map<String, Chunk> restored) throws IOException
    {
        final Path target = image.stateDirectory.resolve(file.relative);
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
                        image.read(in, chunk.file, 0, (int)chunk.size);
                    }
                    bytes = image.buffer;
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
    static void deleteOthers(final Path dir, final String prefix, final Set<String> kept) throws IOException
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir))
        {
            for (final Path entry : entries)
            {
                final String relative = prefix + entry.getFileName();
                if (StateImage.isLock(entry, prefix) || kept.contains(relative))
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

    static boolean isEmptyDirectory(final Path dir) throws IOException
    {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir))
        {
            return !entries.iterator().hasNext();
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
}
