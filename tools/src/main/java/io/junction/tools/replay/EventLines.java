package io.junction.tools.replay;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The lines of an event log, read as bytes and decoded one line at a time, so that a line that is
 * not UTF-8 is one bad line (reported with its number) instead of an exception that ends the run.
 * Lines end at {@code \n}, {@code \r\n} or {@code \r}, as {@link java.io.BufferedReader#readLine()}
 * splits them. A UTF-8 byte order mark at the start of the log is skipped. A line longer than
 * {@link #MAX_LINE_BYTES} is a bad line too: its bytes past the bound are skipped, never held.
 * <p>
 * Not thread safe.
 */
final class EventLines implements AutoCloseable
{
    /** The longest line read, in bytes: far more than the longest row (64 KiB binary) needs as JSON. */
    static final int MAX_LINE_BYTES = 1 << 20;
    /** How much of a bad line a dead letter echoes. */
    private static final int ECHO_CHARS = 256;

    private final InputStream in;
    private final CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final byte[] chunk = new byte[64 * 1024];
    private int chunkPosition;
    private int chunkLimit;
    private byte[] line = new byte[256];
    private int lineLength;
    private boolean tooLong;
    private long lineNumber;
    private boolean first = true;
    private boolean pendingCr;
    /** The bytes of the chunks before the current one, and of the current one. */
    private long readBefore;
    private long consumedOfChunk;
    /** The CRC-32C of the bytes consumed up to {@link #crcPosition} of the current chunk. */
    private final CRC32C crc = new CRC32C();
    private int crcPosition;
    private String text;
    private String problem;
    private String echo;

    EventLines(final InputStream in)
    {
        this.in = in;
    }

    /**
     * Reads the next line.
     *
     * @return false at the end of the log
     * @throws IOException when reading fails
     */
    boolean next() throws IOException
    {
        lineLength = 0;
        tooLong = false;
        boolean any = false;
        while (true)
        {
            if (chunkPosition == chunkLimit)
            {
                crc.update(chunk, crcPosition, chunkLimit - crcPosition);
                crcPosition = 0;
                chunkLimit = in.read(chunk, 0, chunk.length);
                chunkPosition = 0;
                readBefore += consumedOfChunk;
                consumedOfChunk = Math.max(chunkLimit, 0);
                if (chunkLimit <= 0)
                {
                    chunkLimit = 0;
                    if (!any)
                    {
                        return false;
                    }
                    break;
                }
                if (first)
                {
                    first = false;
                    if (chunkLimit >= 3 && (chunk[0] & 0xFF) == 0xEF && (chunk[1] & 0xFF) == 0xBB && (chunk[2] & 0xFF) == 0xBF)
                    {
                        chunkPosition = 3;
                    }
                }
                continue;
            }
            final byte b = chunk[chunkPosition++];
            if (pendingCr)
            {
                pendingCr = false;
                if (b == '\n')
                {
                    continue;
                }
            }
            if (b == '\n' || b == '\r')
            {
                pendingCr = b == '\r';
                break;
            }
            any = true;
            append(b);
        }
        lineNumber++;
        decode();
        return true;
    }

    private void append(final byte b)
    {
        if (lineLength == MAX_LINE_BYTES)
        {
            tooLong = true;
            return;
        }
        if (lineLength == line.length)
        {
            line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, line.length * 2));
        }
        line[lineLength++] = b;
    }

    private void decode()
    {
        text = null;
        problem = null;
        echo = null;
        if (tooLong)
        {
            problem = "line longer than " + MAX_LINE_BYTES + " bytes";
            echo = lenient(Math.min(lineLength, ECHO_CHARS)) + "...";
            return;
        }
        strict.reset();
        final ByteBuffer bytes = ByteBuffer.wrap(line, 0, lineLength);
        final CharBuffer chars = CharBuffer.allocate(lineLength);
        CoderResult result = strict.decode(bytes, chars, true);
        if (!result.isError())
        {
            result = strict.flush(chars);
        }
        if (result.isError())
        {
            problem = "invalid UTF-8 at byte " + (bytes.position() + 1) + " of the line";
            echo = lenient(lineLength);
            return;
        }
        chars.flip();
        text = chars.toString();
    }

    private String lenient(final int length)
    {
        // a replacement character for each bad byte, so that the dead letter stays valid JSON text
        return new String(line, 0, length, StandardCharsets.UTF_8);
    }

    /**
     * @return the bytes of the log consumed so far: up to the end of the line just read, its terminator
     *         included (but for the {@code \n} of a {@code \r\n}, consumed with the next line)
     */
    long consumed()
    {
        return readBefore + chunkPosition;
    }

    /** @return the CRC-32C of the {@link #consumed()} bytes */
    long consumedCrc()
    {
        crc.update(chunk, crcPosition, chunkPosition - crcPosition);
        crcPosition = chunkPosition;
        return crc.getValue();
    }

    /** @return the 1-based number of the line just read */
    long lineNumber()
    {
        return lineNumber;
    }

    /** @return the line's text, or null when it is a bad line ({@link #problem()}) */
    String text()
    {
        return text;
    }

    /** @return why the line could not be read as text, or null */
    String problem()
    {
        return problem;
    }

    /** @return the bad line's text with bad bytes replaced, for its dead letter */
    String echo()
    {
        return echo;
    }

    @Override
    public void close() throws IOException
    {
        in.close();
    }
}
