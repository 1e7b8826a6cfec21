package io.junction.internal.io;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.io.File;

/**
 * Creates state directories and files readable and writable by their owner only (0700 / 0600): join
 * state holds the users' rows, which other local accounts have no business reading. On a file system
 * without POSIX permissions the owner-only flags of {@link java.io.File} are set instead.
 */
public final class OwnerOnlyFiles
{
    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    private OwnerOnlyFiles()
    {
    }

    /**
     * Creates a directory and any missing parents, owner-only; an existing directory has its
     * permissions narrowed to the owner.
     *
     * @param directory the directory.
     * @return the directory.
     * @throws IOException when it cannot be created, or exists as something else.
     */
    public static Path createDirectories(final Path directory) throws IOException
    {
        try
        {
            // Applies the permissions to every directory it creates; an existing non-directory is an error.
            Files.createDirectories(directory, attribute(DIRECTORY));
        }
        catch (final UnsupportedOperationException e)
        {
            Files.createDirectories(directory);
        }
        restrict(directory, DIRECTORY);
        return directory;
    }

    /**
     * Creates a new, empty file, owner-only.
     *
     * @param file the file, which must not exist.
     * @return the file.
     * @throws IOException when it exists or cannot be created.
     */
    public static Path createFile(final Path file) throws IOException
    {
        try
        {
            Files.createFile(file, attribute(FILE));
        }
        catch (final UnsupportedOperationException e)
        {
            Files.createFile(file);
        }
        restrict(file, FILE);
        return file;
    }

    /**
     * Narrows an existing file, created by a library with the umask's permissions, to its owner.
     *
     * @param file the file.
     * @return the file.
     * @throws IOException when its permissions cannot be set.
     */
    public static Path restrictFile(final Path file) throws IOException
    {
        restrict(file, FILE);
        return file;
    }

    private static FileAttribute<Set<PosixFilePermission>> attribute(final Set<PosixFilePermission> permissions)
    {
        return PosixFilePermissions.asFileAttribute(permissions);
    }

    /** The umask may have narrowed what was asked for, never widened it; set it exactly anyway. */
    private static void restrict(final Path path, final Set<PosixFilePermission> permissions) throws IOException
    {
        try
        {
            Files.setPosixFilePermissions(path, permissions);
        }
        catch (final UnsupportedOperationException e)
        {
            final File file = path.toFile();
            // Taking rights from everyone is best effort (some platforms, Windows among them, refuse it and
            // answer false); giving them to the owner must succeed.
            file.setReadable(false, false);
            file.setWritable(false, false);
            file.setExecutable(false, false);
            if (!(file.setReadable(true, true) && file.setWritable(true, true) &&
                (!file.isDirectory() || file.setExecutable(true, true))))
            {
                throw new IOException("cannot make " + path + " readable and writable by its owner", e);
            }
        }
    }
}
