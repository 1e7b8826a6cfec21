package io.junction.internal.durable;

import io.junction.internal.io.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A partition's clean-close record, {@code <root>/partition-P/CLOSED}: written by a clean close once its
 * checkpoint (at the same positions) is confirmed ({@link ConfirmedRecord}), after the operator has
 * persisted and released its state: the positions the state left in {@code partition-P/state/} resumes
 * from. A start reopens that state as it is when every partition's record holds the same positions, and
 * deletes the records before the first mutation (a crash then restores a checkpoint). A
 * {@link SmallFiles} file: whole or absent, ASCII lines ended by {@code '\n'}, the last one the CRC-32C of
 * the others.
 * <pre>
 *   line 0                    1                          2                                  3
 *   +--------------------+--------------------------+----------------------------------+---------------+
 *   |header              |fingerprint F             |positions N p1 .. pN              |crc32c C       |
 *   |                    | F: %016x, the join's     | N, then each position, decimal   | C: %08x       |
 *   +--------------------+--------------------------+----------------------------------+---------------+
 *   header: {@value #HEADER}
 *   example: "junction-closed 1\nfingerprint 0123456789abcdef\npositions 2 42 -1\ncrc32c dff2b79e\n"
 * </pre>
 * Line numbers below are derived one from the other; {@code DescriptorLayoutTest} pins them.
 */
public final class ClosedRecord
{
    /** The file's name in the partition's directory. */
    public static final String FILE = "CLOSED";
    /** The first line. */
    public static final String HEADER = "junction-closed 1";
    /** Line of the header. */
    public static final int HEADER_LINE = 0;
    /** Line of {@code fingerprint F}. */
    public static final int FINGERPRINT_LINE = HEADER_LINE + 1;
    /** Line of the positions ({@link SmallFiles#positionsLine}). */
    public static final int POSITIONS_LINE = FINGERPRINT_LINE + 1;
    /** Lines of the record, the checksum line not counted. */
    public static final int LINES = POSITIONS_LINE + 1;

    private ClosedRecord()
    {
    }

    /**
     * @param partitionDirectory the partition's directory ({@code <root>/partition-P}).
     * @return the record's file.
     */
    public static Path file(final Path partitionDirectory)
    {
        return partitionDirectory.resolve(FILE);
    }

    private static String fingerprintLine(final long fingerprint)
    {
        return String.format(Locale.ROOT, "fingerprint %016x", fingerprint);
    }

    /**
     * Writes the record (the partition's directory created when missing).
     *
     * @param partitionDirectory the partition's directory.
     * @param fingerprint        the join's fingerprint.
     * @param positions          the positions the state resumes from.
     * @throws IOException when it cannot be written.
     */
    public static void write(final Path partitionDirectory, final long fingerprint, final long[] positions)
        throws IOException
    {
        OwnerOnlyFiles.createDirectories(partitionDirectory);
        SmallFiles.write(file(partitionDirectory), List.of(HEADER, fingerprintLine(fingerprint),
            SmallFiles.positionsLine(positions)));
    }

    /**
     * @param partitionDirectory the partition's directory.
     * @param fingerprint        the join's fingerprint.
     * @return the positions of the clean close; null when there is no record.
     * @throws IOException naming the file when it is damaged or of another join.
     */
    public static long[] read(final Path partitionDirectory, final long fingerprint) throws IOException
    {
        final Path file = file(partitionDirectory);
        final List<String> lines = SmallFiles.read(file);
        if (lines == null)
        {
            return null;
        }
        if (lines.size() != LINES || !HEADER.equals(lines.get(HEADER_LINE)))
        {
            throw new IOException(file + " is not a clean-close file");
        }
        final String expected = fingerprintLine(fingerprint);
        if (!expected.equals(lines.get(FINGERPRINT_LINE)))
        {
            throw new IOException(file + " is of another join (" + lines.get(FINGERPRINT_LINE) + ", this join's " +
                expected + ")");
        }
        return SmallFiles.parsePositions(lines.get(POSITIONS_LINE), file);
    }

    /**
     * @param partitionDirectory the partition's directory.
     * @return whether the record is there (intact or not).
     */
    public static boolean exists(final Path partitionDirectory)
    {
        return Files.exists(file(partitionDirectory));
    }

    /**
     * Deletes the record, durably.
     *
     * @param partitionDirectory the partition's directory.
     * @throws IOException when it cannot be deleted.
     */
    public static void delete(final Path partitionDirectory) throws IOException
    {
        StateDirectory.deleteDurably(file(partitionDirectory));
    }
}
