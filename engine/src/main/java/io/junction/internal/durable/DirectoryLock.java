package io.junction.internal.durable;

import io.junction.internal.io.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a directory of durable state, held by one user at a time: an OS file lock
 * ({@link FileChannel#tryLock()}) on a file {@value #FILE_NAME} in it. The OS releases it when the
 * process dies, so a crash never leaves a directory locked; a second process, or a second user in this
 * JVM, is refused while it is held, so that two never map and write the same files. The lock file
 * itself is never deleted (a waiter could otherwise lock a file nobody else sees) and never copied
 * into a checkpoint.
 *
 * <p>Thread safe for {@link #close()}; taken once.
 */
public final class DirectoryLock implements AutoCloseable
{
    /** The lock file's name in the directory it locks. */
    public static final String FILE_NAME = "LOCK";

    private final Path file;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean released;

    private DirectoryLock(final Path file, final FileChannel channel, final FileLock lock)
    {
        this.file = file;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of a directory without waiting.
     *
     * @param directory the directory, which must exist.
     * @param what      what the directory is, for the message ("the state root", "the state directory").
     * @return the lock, held until {@link #close()}.
     * @throws IOException naming the lock file when someone else holds it, or it cannot be created.
     */
    public static DirectoryLock acquire(final Path directory, final String what) throws IOException
    {
        final Path file = directory.resolve(FILE_NAME);
        try
        {
            OwnerOnlyFiles.createFile(file);
        }
        catch (final FileAlreadyExistsException e)
        {
            // Left by an earlier user: the file stays, only the OS lock on it counts.
        }
        final FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock = null;
        try
        {
            lock = channel.tryLock();
        }
        catch (final OverlappingFileLockException e)
        {
            // Held by this JVM (another engine, or one whose close has not finished): held all the same.
        }
        catch (final IOException | RuntimeException | Error e)
        {
            channel.close();
            throw e;
        }
        if (lock == null)
        {
            channel.close();
            throw new IOException(file + " is locked: " + what + " " + directory + " is in use by another engine " +
                "(another process, or an engine of this JVM whose close has not finished); two must never write the " +
                "same files: stop the other one first, or use another directory");
        }
        return new DirectoryLock(file, channel, lock);
    }

    /** @return the lock file. */
    public Path file()
    {
        return file;
    }

    /** Releases the lock; idempotent. A failure to release is moot: closing the channel releases it too. */
    @Override
    public synchronized void close()
    {
        if (released)
        {
            return;
        }
        released = true;
        try
        {
            lock.release();
        }
        catch (final IOException e)
        {
            // The channel's close below releases it.
        }
        try
        {
            channel.close();
        }
        catch (final IOException e)
        {
            // Nothing is left to release.
        }
    }
}
