package io.junction.internal.state;

import io.junction.internal.io.OwnerOnlyFiles;
import net.openhft.chronicle.core.OS;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A file of durable state mapped into memory as one contiguous region: the whole of {@code reserve}
 * bytes is mapped at once (address space only), and the file's length grows in steps as its owner
 * needs, by writing zeros, so that the file holds exactly the image in use (no sparse tail, and a full
 * disk is an answer at growth time, never a fault on a later store into a hole). Growth and force go
 * through the {@link RandomAccessFile}, whose operations an interrupt of the thread cannot break; its channel
 * serves the map only.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public final class MappedFile implements AutoCloseable
{
    private static final int ZEROS = 1 << 20;

    /**
     * Test seam: when set, called with the file before each write of zeros that creates or extends it; it may
     * throw as a full disk (ENOSPC) does. Null outside tests.
     */
    static volatile GrowthFault growthFault;

    /** A fault injected into the growth of mapped files, for tests ({@link #growthFault}). */
    @FunctionalInterface
    interface GrowthFault
    {
        /**
         * @param file the file about to be created or extended.
         * @throws IOException the injected failure.
         */
        void beforeGrowth(Path file) throws IOException;
    }

    private final Path path;
    private final RandomAccessFile file;
    private final FileChannel channel;
    private final long address;
    private final long reserved;
    private long length;
    private byte[] zeros;
    private boolean closed;

    private MappedFile(final Path path, final RandomAccessFile file, final long reserve, final long length) throws IOException
    {
        this.path = path;
        this.file = file;
        this.channel = file.getChannel();
        this.reserved = OS.pageAlign(Math.max(reserve, length));
        this.length = length;
        long mapped = 0;
        // The channel is used for this map only: an interrupt during a channel operation closes it (and the
        // file), so the map runs with the flag cleared (and restored after); growth and force never use it.
        final boolean interrupted = Thread.interrupted();
        try
        {
            mapped = OS.map(channel, FileChannel.MapMode.READ_WRITE, 0, reserved);
        }
        finally
        {
            if (mapped == 0)
            {
                file.close();
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        this.address = mapped;
    }

    /**
     * Creates a new owner-only file of {@code length} zero bytes and maps {@code reserve} bytes of it.
     *
     * @param path    the file, which must not exist.
     * @param reserve bytes of address space to map, the most the file may grow to.
     * @param length  the file's first length.
     * @return the mapped file.
     * @throws IOException when it cannot be created, grown or mapped, naming the file (a full disk's error does not).
     */
    public static MappedFile create(final Path path, final long reserve, final long length) throws IOException
    {
        final MappedFile mapped;
        try
        {
            OwnerOnlyFiles.createFile(path);
            mapped = new MappedFile(path, new RandomAccessFile(path.toFile(), "rw"), reserve, 0);
        }
        catch (final IOException e)
        {
            throw new IOException("cannot create " + path + ": " + e.getMessage(), e);
        }
        try
        {
            mapped.writeZeros(0, length);
            mapped.length = length;
        }
        catch (final IOException e)
        {
            mapped.close();
            throw new IOException("cannot extend " + path + " to " + length + " bytes: " + e.getMessage(), e);
        }
        catch (final RuntimeException e)
        {
            mapped.close();
            throw e;
        }
        return mapped;
    }

    /**
     * Maps an existing file as it is: nothing is read but what the caller then touches.
     *
     * @param path    the file.
     * @param reserve bytes of address space to map, the most the file may grow to.
     * @return the mapped file.
     * @throws IOException when it cannot be opened or mapped.
     */
    public static MappedFile open(final Path path, final long reserve) throws IOException
    {
        final RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw");
        final long length;
        try
        {
            length = file.length();
        }
        catch (final IOException e)
        {
            file.close();
            throw e;
        }
        return new MappedFile(path, file, reserve, length);
    }

    /** @return the address of the file's first byte. */
    public long address()
    {
        return address;
    }

    /** @return the file's length. */
    public long length()
    {
        return length;
    }

    /** @return the bytes of address space mapped. */
    public long reserved()
    {
        return reserved;
    }

    /** @return the file. */
    public Path path()
    {
        return path;
    }

    /**
     * Grows the file to at least {@code newLength} bytes of zeros.
     *
     * @param newLength the length wanted, at most {@link #reserved()}.
     * @return false, with the file as it was, when it is beyond the reservation or the disk refuses.
     */
    public boolean ensureLength(final long newLength)
    {
        if (newLength <= length)
        {
            return true;
        }
        if (newLength > reserved)
        {
            return false;
        }
        try
        {
            writeZeros(length, newLength);
        }
        catch (final IOException e)
        {
            try
            {
                file.setLength(length);
            }
            catch (final IOException ignored)
            {
                // The file keeps a tail of zeros past the image: harmless, the header says where it ends.
            }
            return false;
        }
        length = newLength;
        return true;
    }

    /**
     * Sets the file's length exactly, for a table rebuilt at another size.
     *
     * @param newLength the length, at most {@link #reserved()}.
     * @throws IOException when the disk refuses.
     */
    public void setLength(final long newLength) throws IOException
    {
        if (newLength > reserved)
        {
            throw new IOException(path + ": " + newLength + " bytes is beyond the mapped " + reserved);
        }
        if (newLength > length)
        {
            writeZeros(length, newLength);
        }
        else
        {
            file.setLength(newLength);
        }
        length = newLength;
    }

    /**
     * Writes zeros through the file itself, not its channel: a {@link RandomAccessFile}'s own writes are not
     * interruptible, so an interrupt of the owning thread (user code on it may set the flag) cannot close the
     * file for good, as it would close an interruptible {@link FileChannel}.
     */
    private void writeZeros(final long from, final long to) throws IOException
    {
        final GrowthFault fault = growthFault;
        if (fault != null)
        {
            fault.beforeGrowth(path);
        }
        if (zeros == null)
        {
            zeros = new byte[ZEROS];
        }
        file.seek(from);
        long position = from;
        while (position < to)
        {
            final int n = (int)Math.min(ZEROS, to - position);
            file.write(zeros, 0, n);
            position += n;
        }
    }

    /**
     * Writes the mapped memory and the file's metadata to the device.
     *
     * @throws IOException when the device refuses.
     */
    public void force() throws IOException
    {
        // fsync of the file writes back the pages dirtied through the mapping too (they are its page cache);
        // through the descriptor, not the channel, which an interrupt would close.
        file.getFD().sync();
    }

    /** Unmaps and closes; idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            OS.unmap(address, reserved);
        }
        catch (final IOException ignored)
        {
            // The mapping goes with the process at worst.
        }
        try
        {
            file.close();
        }
        catch (final IOException ignored)
        {
            // Nothing more to release.
        }
    }
}
