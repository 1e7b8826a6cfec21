package io.junction.tools.replay;

import io.junction.internal.io.OwnerOnlyFiles;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.CRC32C;
import java.io.StringReader;

/**
 * The output lines of a durable replay, in a file as they are produced, so that what was produced before
 * a checkpoint survives a crash. At each checkpoint, before the state is persisted, {@link #mark} appends a
 * checkpoint record and makes the file durable:
 * <pre>
 *   {"step":N,...}\n ... {"step":M,...}\n {"checkpoint":P,"bytes":B,"crc32c":"hhhhhhhh"[,more]}\n ...
 * </pre>
 * where P is the checkpoint's position (the last step applied), B the number of bytes before the record
 * and the CRC-32C covers those B bytes (every line and record before it). A resumed replay first checks,
 * in every spool, the record of the restored position ({@link #check}): the file must exist, hold that
 * record at offset B, and its first B bytes must match the checksum; a flipped byte, a truncation or a
 * deleted spool is refused ({@link Replay.ResumeRefusedException}), never resumed into wrong or short
 * output. Then it cuts the spool just after that record ({@link #cut}): what follows is produced again.
 * That is the de-duplication by step that turns the engine's at-least-once output into exactly-once lines.
 * Records are not output lines: {@link #read} leaves them out, so the output's format is unchanged.
 * <p>
 * Not thread safe: written by one thread (a partition's, or the replay's), read after the run.
 */
final class Spool implements AutoCloseable
{
    /** How a checkpoint record starts. */
    static final String RECORD = "{\"checkpoint\":";
    private final Path file;
    /** Opened at the first line or record, so that a resumed run cuts the file back before anything is appended. */
    private FileChannel channel;
    private OutputStream out;
    /** The CRC-32C and length of the file's bytes so far (what a resume kept, then what was appended). */
    private final CRC32C crc = new CRC32C();
    private long length;

    /**
     * @param file the spool, created owner-only when missing, appended to otherwise (after {@link #cut})
     */
    Spool(final Path file)
    {
        this.file = file;
    }

    /** @return the spool's file */
    Path file()
    {
        return file;
    }

    private void open() throws IOException
    {
        if (Files.notExists(file))
        {
            OwnerOnlyFiles.createFile(file);
        }
        channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        out = new BufferedOutputStream(Channels.newOutputStream(channel), 64 * 1024);
    }

    void append(final String json)
    {
        try
        {
            write((json + '\n').getBytes(StandardCharsets.UTF_8));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private void write(final byte[] bytes) throws IOException
    {
        if (out == null)
        {
            open();
        }
        out.write(bytes);
        crc.update(bytes, 0, bytes.length);
        length += bytes.length;
    }

    /**
     * Appends the record of a checkpoint at {@code position} and makes the file durable (it is created
     * when nothing was written yet, so that every spool exists once a checkpoint has been taken).
     *
     * @param position the checkpoint's position
     * @param more     further {@code "name":value} members of the record, each after a comma, or ""
     * @throws UncheckedIOException naming the file when it cannot be written or made durable
     */
    void mark(final long position, final String more)
    {
        final String record = RECORD + position + ",\"bytes\":" + length + ",\"crc32c\":\"" +
            String.format(Locale.ROOT, "%08x", crc.getValue()) + '"' + more + "}\n";
        try
        {
            write(record.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            channel.force(false);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    void flush()
    {
        if (out == null)
        {
            return;
        }
        try
        {
            out.flush();
            channel.force(false);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot flush " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() throws IOException
    {
        if (out != null)
        {
            out.close();
        }
    }

    /** The step a line starts with ({@code {"step":N,...}}); -1 for a torn line or a checkpoint record. */
    static long step(final String line)
    {
        if (!line.startsWith("{\"step\":") || !line.endsWith("}"))
        {
            return -1;
        }
        final int comma = line.indexOf(',');
        try
        {
            return Long.parseLong(line.substring("{\"step\":".length(), comma < 0 ? line.length() - 1 : comma));
        }
        catch (final NumberFormatException e)
        {
            return -1;
        }
    }

    /**
     * @param file a spool
     * @return its whole output lines with their steps; a torn last line (a crash while it was written) and
     *         the checkpoint records are left out
     * @throws IOException when it cannot be read
     */
    static List<StepLine> read(final Path file) throws IOException
    {
        final List<StepLine> lines = new ArrayList<>();
        if (Files.notExists(file))
        {
            return lines;
        }
        final byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n')
        {
            end--;
        }
        try (BufferedReader reader = new BufferedReader(new StringReader(
            new String(bytes, 0, end, StandardCharsets.UTF_8))))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                final long step = step(line);
                if (step >= 0)
                {
                    lines.add(new StepLine(step, line));
                }
            }
        }
        return lines;
    }

    /**
     * What {@link #check} found: where the restored checkpoint's record ends, and the record's text (without
     * its newline).
     */
    record Checked(long end, String record)
    {
        /**
         * @param name a member of the record written with {@link #mark}'s {@code more}
         * @return its value's text (a string's without its quotes), or null when the record lacks it
         */
        String member(final String name)
        {
            final String key = "\"" + name + "\":";
            final int at = record.indexOf(key);
            if (at < 0)
            {
                return null;
            }
            int from = at + key.length();
            int to;
            if (from < record.length() && record.charAt(from) == '"')
            {
                from++;
                to = record.indexOf('"', from);
            }
            else
            {
                to = from;
                while (to < record.length() && record.charAt(to) != ',' && record.charAt(to) != '}')
                {
                    to++;
                }
            }
            return to < 0 ? null : record.substring(from, to);
        }
    }

    /**
     * Checks, before a resume cuts or appends anything, that the spool holds intact what it held when the
     * checkpoint at {@code position} was taken. Reads only.
     *
     * @param position the restored position; negative when nothing was restored (nothing is checked)
     * @return where to cut
     * @throws Replay.ResumeRefusedException naming the file when it is missing, truncated or damaged
     * @throws IOException                   when it cannot be read
     */
    Checked check(final long position) throws IOException
    {
        if (position < 0)
        {
            return new Checked(0, null);
        }
        if (Files.notExists(file))
        {
            throw new Replay.ResumeRefusedException(file + " is missing: the checkpoint at step " + position +
                " needs the output spooled up to it (restore the file or start again in an empty directory)");
        }
        final byte[] bytes = Files.readAllBytes(file);
        final CRC32C running = new CRC32C();
        final String wanted = RECORD + position + ",";
        int from = 0;
        while (from < bytes.length)
        {
            int end = from;
            while (end < bytes.length && bytes[end] != '\n')
            {
                end++;
            }
            if (end == bytes.length)
            {
                break; // a torn last line: never part of a checkpoint
            }
            if (startsWith(bytes, from, end, wanted))
            {
                final String record = new String(bytes, from, end - from, StandardCharsets.US_ASCII);
                final Checked found = new Checked(0, record);
                final String recordedBytes = found.member("bytes");
                final String recordedCrc = found.member("crc32c");
                if (!Long.toString(from).equals(recordedBytes) ||
                    !String.format(Locale.ROOT, "%08x", running.getValue()).equals(recordedCrc))
                {
                    throw new Replay.ResumeRefusedException(file + " is damaged: its first " + from + " bytes do not " +
                        "match the checksum recorded at the checkpoint at step " + position + " (" + recordedBytes +
                        " bytes, crc32c " + recordedCrc + ")");
                }
                return new Checked(end + 1, record);
            }
            running.update(bytes, from, end + 1 - from);
            from = end + 1;
        }
        throw new Replay.ResumeRefusedException(file + " is truncated or damaged: it holds no intact record of the " +
            "checkpoint at step " + position + " (" + bytes.length + " bytes)");
    }

    private static boolean startsWith(final byte[] bytes, final int from, final int end, final String prefix)
    {
        if (end - from < prefix.length())
        {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++)
        {
            if (bytes[from + i] != prefix.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Keeps what {@link #check} found intact (the lines of the steps up to the restored position and its
     * record) and drops the rest, which the resumed run produces again; later lines are appended after it.
     *
     * @param checked what {@link #check} returned for this spool
     * @throws IOException when it cannot be cut
     */
    void cut(final Checked checked) throws IOException
    {
        if (Files.exists(file))
        {
            try (FileChannel cutting = FileChannel.open(file, StandardOpenOption.WRITE))
            {
                cutting.truncate(checked.end());
                cutting.force(true);
            }
        }
        length = checked.end();
        crc.reset();
        if (checked.end() > 0)
        {
            // The CRC-32C of the kept bytes, carried on: recomputed from the file, which check() just read.
            final byte[] kept = Files.readAllBytes(file);
            crc.update(kept, 0, kept.length);
        }
    }
}
