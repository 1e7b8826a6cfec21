package io.junction.internal.durable;

import io.junction.internal.io.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The file-system steps every durable file of the engine is made of: a file written whole or not at all
 * (to a temporary file, fsynced, renamed into place), a directory's entries made durable, a deletion made
 * durable, a tree deleted. The state files, the checkpoints, the small text records and the marker of a
 * state directory all go through these, so that a crash at any step leaves a whole old file or a whole
 * new one. Stateless; any thread.
 */
public final class StateDirectory
{
    private StateDirectory()
    {
    }

    /**
     * Writes a file atomically, owner-only: its bytes go to {@code <file>.tmp}, fsynced, renamed over the
     * file. The directory is not fsynced: a caller writing several files fsyncs it once, after the last.
     *
     * @param file    the file (replaced when it exists).
     * @param content its bytes.
     * @throws IOException when it cannot be written, or the file system cannot rename atomically.
     */
    public static void writeAtomically(final Path file, final byte[] content) throws IOException
    {
        final Path tmp = temporary(file);
        writeTemporary(tmp, content);
        moveAtomically(tmp, file);
    }

    /** @return the temporary file {@link #writeAtomically} writes before it renames it over {@code file}. */
    public static Path temporary(final Path file)
    {
        return file.resolveSibling(file.getFileName() + ".tmp");
    }

    /**
     * Writes a fresh owner-only file (one left by a crash is replaced) and fsyncs it.
     *
     * @param tmp     the file.
     * @param content its bytes.
     * @throws IOException when it cannot be written.
     */
    public static void writeTemporary(final Path tmp, final byte[] content) throws IOException
    {
        Files.deleteIfExists(tmp);
        OwnerOnlyFiles.createFile(tmp);
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE))
        {
            final ByteBuffer buffer = ByteBuffer.wrap(content);
            while (buffer.hasRemaining())
            {
                channel.write(buffer);
            }
            channel.force(true);
        }
    }

    /**
     * Renames a written file into place atomically, replacing what is there.
     *
     * @param tmp  the written file.
     * @param file its place.
     * @throws IOException when it cannot be renamed, or the file system cannot rename atomically.
     */
    public static void moveAtomically(final Path tmp, final Path file) throws IOException
    {
        try
        {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final AtomicMoveNotSupportedException e)
        {
            throw new IOException("the file system of " + file + " cannot rename atomically: durable state needs it", e);
        }
    }

    /**
     * Deletes a file and makes the deletion durable.
     *
     * @param file the file.
     * @return whether it existed.
     * @throws IOException when it cannot be deleted.
     */
    public static boolean deleteDurably(final Path file) throws IOException
    {
        final boolean existed = Files.deleteIfExists(file);
        if (existed)
        {
            fsyncDirectory(file.getParent());
        }
        return existed;
    }

    /**
     * Deletes everything below a directory (it stays), depth first, links not followed.
     *
     * @param dir the directory.
     * @throws IOException when something cannot be deleted.
     */
    public static void deleteContent(final Path dir) throws IOException
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

    /**
     * Makes a directory's entries (creations, renames, deletions) durable.
     *
     * @param dir the directory.
     * @throws IOException when it cannot be synced where the platform can.
     */
    public static void fsyncDirectory(final Path dir) throws IOException
    {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ))
        {
            channel.force(true);
        }
        catch (final IOException e)
        {
            // Some platforms cannot open a directory for fsync; the rename is then as durable as they allow.
            if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win"))
            {
                throw e;
            }
        }
    }

    /**
     * Makes the entries of a directory and of every directory below it durable (links not followed).
     *
     * @param dir the directory.
     * @throws IOException when one cannot be listed or synced.
     */
    public static void fsyncTree(final Path dir) throws IOException
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
        fsyncDirectory(dir);
    }
}
