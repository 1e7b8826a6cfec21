package io.junction.internal.durable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The newest checkpoint complete in every partition, {@code <root>/CHECKPOINT}: written by the engine's
 * checkpoint coordinator once the last partition has written its part of an engine-wide checkpoint (each
 * part's manifest in place), so last of all; a restart starts its checkpoint ids above it and refuses to
 * start empty when a confirmed checkpoint existed but none is intact. A {@link SmallFiles} file: whole or
 * absent, ASCII lines ended by {@code '\n'}, the last one the CRC-32C of the others.
 * <pre>
 *   line 0                                  1          2                                  3
 *   +----------------------------------+----------+----------------------------------+---------------+
 *   |header                            |id I      |positions N p1 .. pN              |crc32c C       |
 *   |                                  | decimal  | N, then each position, decimal   | C: %08x       |
 *   +----------------------------------+----------+----------------------------------+---------------+
 *   header: {@value #HEADER}
 *   example: "junction-checkpoint-confirmed 1\nid 7\npositions 2 42 -1\ncrc32c a74f1c32\n"
 * </pre>
 * Line numbers below are derived one from the other; {@code DescriptorLayoutTest} pins them.
 */
public final class ConfirmedRecord
{
    /** The file's name in the state root. */
    public static final String FILE = "CHECKPOINT";
    /** The first line. */
    public static final String HEADER = "junction-checkpoint-confirmed 1";
    /** Line of the header. */
    public static final int HEADER_LINE = 0;
    /** Line of {@code id I}. */
    public static final int ID_LINE = HEADER_LINE + 1;
    /** Line of the positions ({@link SmallFiles#positionsLine}). */
    public static final int POSITIONS_LINE = ID_LINE + 1;
    /** Lines of the record, the checksum line not counted. */
    public static final int LINES = POSITIONS_LINE + 1;
    private static final String ID = "id ";

    private ConfirmedRecord()
    {
    }

    /**
     * @param root the state root.
     * @return the record's file.
     */
    public static Path file(final Path root)
    {
        return root.resolve(FILE);
    }

    /**
     * Writes the record, replacing the one before.
     *
     * @param root      the state root.
     * @param id        the checkpoint complete in every partition.
     * @param positions its positions.
     * @throws IOException when it cannot be written.
     */
    public static void write(final Path root, final long id, final long[] positions) throws IOException
    {
        SmallFiles.write(file(root), List.of(HEADER, ID + id, SmallFiles.positionsLine(positions)));
    }

    /**
     * @param root the state root.
     * @return the id of the confirmed checkpoint; -1 when there is no record.
     * @throws IOException naming the file when it is damaged or not a confirmed-checkpoint record.
     * @throws NumberFormatException when its id is not a number.
     */
    public static long readId(final Path root) throws IOException
    {
        final List<String> lines = SmallFiles.read(file(root));
        if (lines == null)
        {
            return -1;
        }
        if (lines.size() != LINES || !HEADER.equals(lines.get(HEADER_LINE)) || !lines.get(ID_LINE).startsWith(ID))
        {
            throw new IOException(file(root) + " is not a confirmed-checkpoint file");
        }
        return Long.parseLong(lines.get(ID_LINE).substring(ID.length()));
    }
}
