package io.junction.internal.durable;

import io.junction.internal.io.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The key-hash seed of a shared checkpoint root, {@code <checkpointRoot>/SEED}: one for every process of a
 * group, since a partition moves between processes with state keyed by it. The first process to start
 * creates it, atomically ({@link SmallFiles#createIfAbsent}: racing processes end with the one file that
 * won); it is never rewritten. A {@link SmallFiles} file: whole or absent, ASCII lines ended by
 * {@code '\n'}, the last one the CRC-32C of the others.
 * <pre>
 *   line 0                  1                          2
 *   +------------------+--------------------------+---------------+
 *   |header            |hashSeed S                |crc32c C       |
 *   |                  | S: %016x, unsigned       | C: %08x       |
 *   +------------------+--------------------------+---------------+
 *   header: {@value #HEADER}
 *   example: "junction-seed 1\nhashSeed 00000000deadbeef\ncrc32c 87787e5e\n"
 * </pre>
 * Line numbers below are derived one from the other; {@code DescriptorLayoutTest} pins them.
 */
public final class SeedRecord
{
    /** The file's name in the checkpoint root. */
    public static final String FILE = "SEED";
    /** The first line. */
    public static final String HEADER = "junction-seed 1";
    /** Line of the header. */
    public static final int HEADER_LINE = 0;
    /** Line of {@code hashSeed S}. */
    public static final int HASH_SEED_LINE = HEADER_LINE + 1;
    /** Lines of the record, the checksum line not counted. */
    public static final int LINES = HASH_SEED_LINE + 1;
    private static final String HASH_SEED = "hashSeed ";

    private SeedRecord()
    {
    }

    /**
     * @param checkpointRoot the shared checkpoint root.
     * @return the record's file.
     */
    public static Path file(final Path checkpointRoot)
    {
        return checkpointRoot.resolve(FILE);
    }

    /**
     * The group's seed: the record's, created with {@code drawn} unless there is one.
     *
     * @param checkpointRoot the shared checkpoint root (created when missing).
     * @param drawn          the seed to record when there is no record yet.
     * @return the seed in the record (another process's when it won the race).
     * @throws IOException naming the file when it is damaged or not a seed record.
     * @throws NumberFormatException when its seed is not 16 hex digits.
     */
    public static long readOrCreate(final Path checkpointRoot, final LongSupplier drawn)
        throws IOException
    {
        final Path file = file(checkpointRoot);
        List<String> found = SmallFiles.read(file);
        if (found == null)
        {
            OwnerOnlyFiles.createDirectories(checkpointRoot);
            SmallFiles.createIfAbsent(file, List.of(HEADER, String.format(Locale.ROOT, HASH_SEED + "%016x",
                drawn.getAsLong())));
            // Whoever won the race, the file holds the group's seed now.
            found = SmallFiles.read(file);
        }
        if (found == null || found.size() != LINES || !HEADER.equals(found.get(HEADER_LINE)) ||
            !found.get(HASH_SEED_LINE).startsWith(HASH_SEED))
        {
            throw new IOException(file + " is not a seed file");
        }
        return Long.parseUnsignedLong(found.get(HASH_SEED_LINE).substring(HASH_SEED.length()), 16);
    }
}
