package io.junction.internal.durable;

import io.junction.internal.cut.StagedCut;
import io.junction.internal.durable.StateFilesIndex.Chunk;
import io.junction.internal.state.Chunks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
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
 *
 * <p>The writing is {@link StateImageWriter}'s, the restoring {@link StateImageRestore}'s and the index format
 * {@link StateFilesIndex}'s; this class owns what they share: the previous checkpoint's chunks (which the next
 * checkpoint links to and a restore sets), the one chunk buffer and the byte counters.
 */
public final class StateImage
{
    /** The index file's name in a checkpoint. */
    public static final String INDEX = "STATE-FILES";

    final Path stateDirectory;
    /** The one chunk buffer, for a chunk read from a state file or a checkpoint ({@link #read}). */
    final ByteBuffer buffer = ByteBuffer.allocateDirect(Chunks.CHUNK_BYTES);
    /** The chunks of the last checkpoint written or restored, by "path#chunk"; empty when there is none. */
    Map<String, Chunk> previous = Collections.emptyMap();
    /** The chunks of the checkpoint being written, until it is committed or aborted. */
    Map<String, Chunk> pending;
    /** The last checkpoint's figures ({@link #bytesWritten()} and the others), set by the writer and the restore. */
    long bytesWritten;
    long bytesLinked;
    long bytesRead;
    long bytesZero;
    private final StateImageWriter writing = new StateImageWriter(this);
    private final StateImageRestore restoring = new StateImageRestore(this);

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

    /** Reads {@code length} bytes at {@code at} of a state file into the buffer, flipped. */
    void read(final FileChannel in, final Path path, final long at, final int length) throws IOException
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
        writing.write(writer, dir);
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
        writing.write(writer, dir, cut);
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
        return restoring.reads();
    }

    /** Forgets the live files' sums read for an earlier restore: the state may have changed since. */
    public void beginRestore()
    {
        restoring.beginRestore();
    }

    /** @return bytes of chunks the last {@link #restore} wrote into the state directory (read from the checkpoint). */
    public long restoreBytesWritten()
    {
        return restoring.restoreBytesWritten();
    }

    /** @return bytes of the live files the last restore read to compare their chunks with the checkpoint's. */
    public long restoreBytesCompared()
    {
        return restoring.restoreBytesCompared();
    }

    /** @return chunks the last restore found damaged in the live files (named), which it restored. */
    public List<String> restoreDamaged()
    {
        return restoring.restoreDamaged();
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
        return restoring.restore(checkpoint);
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
        final Map<String, Chunk> chunks = StateFilesIndex.readChunks(checkpointDirectory);
        if (chunks == null)
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
    static boolean isLock(final Path entry, final String prefix)
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
    List<String> list() throws IOException
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

    static void checkRelative(final String relative, final Path where) throws IOException
    {
        if (relative.isEmpty() || relative.startsWith("/") || relative.contains("..") || relative.chars().anyMatch(
            ch -> ch <= ' ' || ch >= 127))
        {
            throw new IOException(where + ": state file name '" + relative + "' cannot be checkpointed " +
                "(printable ASCII without spaces or '..' only)");
        }
    }
}
