package io.junction.internal.durable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;
import java.nio.file.FileAlreadyExistsException;

/**
 * Small text files of the runtime (the engine's identity, the last confirmed checkpoint, a partition's
 * clean-close positions), each whole or absent: written to a temporary file, fsynced, renamed into place,
 * the directory fsynced; the last line is the CRC-32C of the others, so a torn or damaged file is
 * recognised, never half-read. ASCII, '\n' on every platform.
 */
public final class SmallFiles
{
    private SmallFiles()
    {
    }

    /** @return the lines, each ended by '\n', then the line {@code crc32c <hex>} over them: a small file's bytes. */
    private static byte[] checksummed(final List<String> lines)
    {
        final StringBuilder text = new StringBuilder(128);
        for (final String line : lines)
        {
            text.append(line).append('\n');
        }
        final CRC32C crc = new CRC32C();
        crc.update(text.toString().getBytes(StandardCharsets.US_ASCII));
        text.append(String.format(Locale.ROOT, "crc32c %08x\n", crc.getValue()));
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Writes a file atomically, owner-only.
     *
     * @param file  the file (replaced when it exists).
     * @param lines its lines, ASCII, without '\n'.
     * @throws IOException when it cannot be written.
     */
    public static void write(final Path file, final List<String> lines) throws IOException
    {
        StateDirectory.writeAtomically(file, checksummed(lines));
        StateDirectory.fsyncDirectory(file.getParent());
    }

    /**
     * Creates a file atomically unless it exists, for a file several processes may race to create (each
     * writes its own temporary file, then links it into place without replacing): exactly one wins, and
     * every reader sees a whole file or none.
     *
     * @param file  the file.
     * @param lines its lines, ASCII, without '\n'.
     * @return whether this call created it (false: it was there, or another process created it first).
     * @throws IOException when it cannot be written, or the file system has no hard links.
     */
    public static boolean createIfAbsent(final Path file, final List<String> lines) throws IOException
    {
        final byte[] content = checksummed(lines);
        // Unique per process and call: racing creators never share a temporary file.
        final Path tmp = file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + "." +
            Long.toHexString(System.nanoTime()) + "." + Thread.currentThread().getId() + ".tmp");
        try
        {
            StateDirectory.writeTemporary(tmp, content);
            try
            {
                Files.createLink(file, tmp);
            }
            catch (final FileAlreadyExistsException e)
            {
                return false;
            }
            catch (final UnsupportedOperationException e)
            {
                throw new IOException("the file system of " + file + " has no hard links: a shared file needs them", e);
            }
            StateDirectory.fsyncDirectory(file.getParent());
            return true;
        }
        finally
        {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Reads a file written by {@link #write}.
     *
     * @param file the file.
     * @return its lines without the checksum; null when it does not exist.
     * @throws IOException naming the file when it is truncated or damaged, or cannot be read.
     */
    public static List<String> read(final Path file) throws IOException
    {
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(file);
        }
        catch (final NoSuchFileException e)
        {
            return null;
        }
        final String text = new String(bytes, StandardCharsets.US_ASCII);
        final int last = text.lastIndexOf("crc32c ");
        if (last < 0 || !text.endsWith("\n"))
        {
            throw new IOException(file + " is truncated");
        }
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, last);
        if (!text.substring(last).equals(String.format(Locale.ROOT, "crc32c %08x\n", crc.getValue())))
        {
            throw new IOException(file + " is damaged (its checksum does not match)");
        }
        final String body = text.substring(0, last);
        return body.isEmpty() ? new ArrayList<>() : new ArrayList<>(Arrays.asList(body.split("\n")));
    }

    /**
     * @param positions positions.
     * @return them as a line: {@code positions N p1 p2 ...}.
     */
    public static String positionsLine(final long[] positions)
    {
        final StringBuilder line = new StringBuilder("positions ").append(positions.length);
        for (final long position : positions)
        {
            line.append(' ').append(position);
        }
        return line.toString();
    }

    /**
     * @param line a line written by {@link #positionsLine}.
     * @param file the file it is from, for the message.
     * @return the positions.
     * @throws IOException when the line is not one.
     */
    public static long[] parsePositions(final String line, final Path file) throws IOException
    {
        try
        {
            final String[] words = line.split(" ");
            if (!"positions".equals(words[0]))
            {
                throw new IOException(file + ": '" + line + "' is not a positions line");
            }
            final long[] positions = new long[Integer.parseInt(words[1])];
            if (words.length != positions.length + 2)
            {
                throw new IOException(file + ": '" + line + "' does not hold " + positions.length + " positions");
            }
            for (int i = 0; i < positions.length; i++)
            {
                positions[i] = Long.parseLong(words[i + 2]);
            }
            return positions;
        }
        catch (final NumberFormatException | IndexOutOfBoundsException e)
        {
            throw new IOException(file + ": '" + line + "' is not a positions line", e);
        }
    }
}
