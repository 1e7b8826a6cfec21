package io.junction.internal.durable;

import io.junction.internal.io.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The files of one checkpoint of a {@link CheckpointStore} being written: its files, then {@link #commit()}
 * (the manifest last, so that the checkpoint counts only when whole); or {@link #abort()}. Used by one
 * thread at a time: the partition's, or its background writer while it writes a staged cut.
 */
public final class CheckpointFiles implements AutoCloseable
{
    private final CheckpointStore store;
    private final Path dir;
    private final long id;
    private final long fingerprint;
    private final long[] positions;
    private final List<CheckpointFile> files = new ArrayList<>();
    private boolean done;

    CheckpointFiles(final CheckpointStore store, final Path dir, final long id, final long fingerprint, final long[] positions)
    {
        this.store = store;
        this.dir = dir;
        this.id = id;
        this.fingerprint = fingerprint;
        this.positions = positions;
    }

    /** @return the directory the checkpoint is written in. */
    public Path directory()
    {
        return dir;
    }

    /** @return the checkpoint's id. */
    public long id()
    {
        return id;
    }

    /**
     * Creates one of the checkpoint's files, owner-only.
     *
     * @param name letters, digits, '.', '_' and '-', not {@value CheckpointStore#MANIFEST}, unique in the checkpoint.
     * @return a channel that checksums what it writes; closed by {@link #commit()}.
     * @throws IOException when it cannot be created.
     */
    public WritableByteChannel file(final String name) throws IOException
    {
        if (done)
        {
            throw new IllegalStateException("checkpoint " + id + " is already committed or aborted");
        }
        if (!CheckpointStore.FILE_NAME.matcher(name).matches() || name.startsWith(CheckpointStore.MANIFEST))
        {
            throw new IllegalArgumentException("not a checkpoint file name: " + name);
        }
        final CheckpointFile file = new CheckpointFile(name, dir.resolve(name),
            FileChannel.open(OwnerOnlyFiles.createFile(dir.resolve(name)), StandardOpenOption.WRITE));
        files.add(file);
        return file;
    }

    /**
     * Adds a file of an earlier checkpoint to this one as a hard link (no bytes copied: the chunk did
     * not change); where the file system has no hard links, the file is copied. The size and CRC-32C
     * are the earlier manifest's: a linked file that was damaged since fails this checkpoint's
     * verification as it fails the earlier one's.
     *
     * @param name     the file's name in this checkpoint (as {@link #file(String)}).
     * @param existing the earlier checkpoint's file.
     * @param size     its size in bytes.
     * @param crc32c   its CRC-32C.
     * @throws IOException when it can neither be linked nor copied (a missing file among them).
     */
    public void link(final String name, final Path existing, final long size, final long crc32c) throws IOException
    {
        if (done)
        {
            throw new IllegalStateException("checkpoint " + id + " is already committed or aborted");
        }
        if (!CheckpointStore.FILE_NAME.matcher(name).matches() || name.startsWith(CheckpointStore.MANIFEST))
        {
            throw new IllegalArgumentException("not a checkpoint file name: " + name);
        }
        final Path target = dir.resolve(name);
        try
        {
            Files.createLink(target, existing);
        }
        catch (final NoSuchFileException e)
        {
            throw e;
        }
        catch (final UnsupportedOperationException | FileSystemException e)
        {
            // No hard links here (or not across these directories): a copy is as good, only bigger.
            copyDurably(existing, target);
        }
        final CheckpointFile file = new CheckpointFile(name, target, null);
        file.size = size;
        file.linkedCrc = crc32c;
        files.add(file);
    }

    /** Copies a file through a channel and fsyncs it: a copy, unlike a link, has bytes of its own to make durable. */
    private void copyDurably(final Path existing, final Path target) throws IOException
    {
        Files.deleteIfExists(target);
        try (FileChannel in = FileChannel.open(existing, StandardOpenOption.READ);
            FileChannel out = FileChannel.open(OwnerOnlyFiles.createFile(target), StandardOpenOption.WRITE))
        {
            final long length = in.size();
            long at = 0;
            while (at < length)
            {
                at += in.transferTo(at, length - at, out);
            }
            out.force(true);
        }
    }

    /**
     * Makes the checkpoint durable and complete: fsyncs its files, writes the manifest last and
     * renames it into place, fsyncs the directory, then deletes checkpoints beyond the newest {@link CheckpointStore#KEPT}.
     *
     * @return the checkpoint's directory.
     * @throws IOException when a step fails: before the rename the checkpoint does not count; after it
     *         (fsync of the directory, pruning) it is complete but may not yet be durable or pruned.
     */
    public Path commit() throws IOException
    {
        return commit(true);
    }

    /**
     * As {@link #commit()}, pruning or not: a caller that decides itself which checkpoints to keep
     * ({@link CheckpointStore#retainOnly}) commits without pruning.
     *
     * @param prune whether to delete checkpoints beyond the newest {@link CheckpointStore#KEPT} complete ones.
     * @return the checkpoint's directory.
     * @throws IOException as {@link #commit()}.
     */
    public Path commit(final boolean prune) throws IOException
    {
        if (done)
        {
            throw new IllegalStateException("checkpoint " + id + " is already committed or aborted");
        }
        done = true;
        final StringBuilder text = new StringBuilder(256);
        text.append(CheckpointStore.HEADER).append('\n');
        text.append("id ").append(id).append('\n');
        text.append(String.format(Locale.ROOT, "fingerprint %016x", fingerprint)).append('\n');
        text.append("positions ").append(positions.length);
        for (final long position : positions)
        {
            text.append(' ').append(position);
        }
        text.append('\n');
        for (final CheckpointFile file : files)
        {
            if (file.channel != null)
            {
                try
                {
                    file.channel.force(true);
                    file.channel.close();
                }
                catch (final IOException e)
                {
                    throw CheckpointStore.named("cannot fsync", file.path, e);
                }
            }
            text.append(String.format(Locale.ROOT, "file %s %d %08x", file.name, file.size,
                file.channel == null ? file.linkedCrc : file.crc.getValue())).append('\n');
        }
        final byte[] body = text.toString().getBytes(StandardCharsets.US_ASCII);
        final CRC32C crc = new CRC32C();
        crc.update(body);
        // '\n', not %n: the manifest is the same bytes on every platform.
        final byte[] trailer = String.format(Locale.ROOT, "crc32c %08x\n", crc.getValue()).getBytes(StandardCharsets.US_ASCII);
        final byte[] manifest = Arrays.copyOf(body, body.length + trailer.length);
        System.arraycopy(trailer, 0, manifest, body.length, trailer.length);
        // The files' directory entries (created and linked) are durable before the manifest can be.
        StateDirectory.fsyncDirectory(dir);
        final Path tmp = StateDirectory.temporary(dir.resolve(CheckpointStore.MANIFEST));
        try
        {
            final CheckpointStore.WriteFault fault = CheckpointStore.writeFault;
            if (fault != null)
            {
                fault.beforeWrite(tmp);
            }
            StateDirectory.writeTemporary(tmp, manifest);
        }
        catch (final IOException e)
        {
            throw CheckpointStore.named("cannot write", tmp, e);
        }
        StateDirectory.moveAtomically(tmp, dir.resolve(CheckpointStore.MANIFEST));
        StateDirectory.fsyncDirectory(dir);
        StateDirectory.fsyncDirectory(store.directory());
        if (prune)
        {
            store.prune();
        }
        return dir;
    }

    /** Deletes what was written; the checkpoint never counts. Idempotent. */
    public void abort() throws IOException
    {
        if (done && Files.exists(dir.resolve(CheckpointStore.MANIFEST)))
        {
            return;
        }
        done = true;
        for (final CheckpointFile file : files)
        {
            if (file.channel != null)
            {
                file.channel.close();
            }
        }
        if (Files.exists(dir))
        {
            CheckpointStore.deleteTree(dir);
        }
    }

    /** Aborts unless committed. */
    @Override
    public void close() throws IOException
    {
        abort();
    }

    private static final class CheckpointFile implements WritableByteChannel
    {
        final String name;
        /** The file, for messages. */
        final Path path;
        final FileChannel channel;
        final CRC32C crc = new CRC32C();
        long size;
        /** The CRC-32C of a linked file (which has no channel). */
        long linkedCrc;

        CheckpointFile(final String name, final Path path, final FileChannel channel)
        {
            this.name = name;
            this.path = path;
            this.channel = channel;
        }

        @Override
        public int write(final ByteBuffer source) throws IOException
        {
            final ByteBuffer view = source.duplicate();
            int written = 0;
            try
            {
                final CheckpointStore.WriteFault fault = CheckpointStore.writeFault;
                if (fault != null)
                {
                    fault.beforeWrite(path);
                }
                while (source.hasRemaining())
                {
                    written += channel.write(source);
                }
            }
            catch (final IOException e)
            {
                throw CheckpointStore.named("cannot write", path, e);
            }
            view.limit(view.position() + written);
            crc.update(view);
            size += written;
            return written;
        }

        @Override
        public boolean isOpen()
        {
            return channel != null && channel.isOpen();
        }

        @Override
        public void close()
        {
            // The writer closes the channel after fsync in commit().
        }
    }
}
