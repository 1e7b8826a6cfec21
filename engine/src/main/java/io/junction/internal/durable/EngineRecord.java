package io.junction.internal.durable;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The engine's identity in its state root, {@code <root>/ENGINE}: a root is refused by an engine of another
 * join or partition count, and a restart keys its state with the hash seed recorded here (durable state is
 * keyed and partitioned by the key hash). Written at the first start on a root (and at every start with a
 * shared checkpoint root, whose state root is scratch); never rewritten otherwise. A {@link SmallFiles}
 * file: whole or absent, ASCII lines ended by {@code '\n'}, the last one the CRC-32C of the others.
 * <pre>
 *   line 0   1               2                          3                        4
 *   +--------+---------------+--------------------------+------------------------+---------------+
 *   |header  |partitions N   |fingerprint F             |hashSeed S              |crc32c C       |
 *   |        | N decimal     | F: %016x, the join's     | S: %016x, unsigned     | C: %08x       |
 *   +--------+---------------+--------------------------+------------------------+---------------+
 *   |&lt;----------- identity (3 lines): must equal the starting engine's -----&gt;|  (SmallFiles)
 *   header: {@value #HEADER}
 *   example: "junction-engine 1\npartitions 2\nfingerprint 0123456789abcdef\nhashSeed fedcba9876543210\ncrc32c a5440a07\n"
 * </pre>
 * A record of any other shape is another engine's ({@link #check}). Line numbers below are derived one
 * from the other; {@code DescriptorLayoutTest} pins them.
 */
public final class EngineRecord
{
    /** The file's name in the state root. */
    public static final String FILE = "ENGINE";
    /** The first line. */
    public static final String HEADER = "junction-engine 1";
    /** Line of the header. */
    public static final int HEADER_LINE = 0;
    /** Line of {@code partitions N}. */
    public static final int PARTITIONS_LINE = HEADER_LINE + 1;
    /** Line of {@code fingerprint F}. */
    public static final int FINGERPRINT_LINE = PARTITIONS_LINE + 1;
    /** Lines of the identity, which must equal the starting engine's. */
    public static final int IDENTITY_LINES = FINGERPRINT_LINE + 1;
    /** Line of {@code hashSeed S}. */
    public static final int HASH_SEED_LINE = IDENTITY_LINES;
    /** Lines of the record, the checksum line not counted. */
    public static final int LINES = HASH_SEED_LINE + 1;
    private static final String HASH_SEED = "hashSeed ";

    private EngineRecord()
    {
    }

    /**
     * @param partitions  the engine's partition count.
     * @param fingerprint the join's fingerprint.
     * @return the identity lines an engine of this join and partition count writes and expects.
     */
    public static List<String> identity(final int partitions, final long fingerprint)
    {
        return List.of(HEADER, "partitions " + partitions, String.format(Locale.ROOT, "fingerprint %016x", fingerprint));
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
     * Writes the record (replacing one that is there).
     *
     * @param root        the state root.
     * @param partitions  the engine's partition count.
     * @param fingerprint the join's fingerprint.
     * @param hashSeed    the key-hash seed the state is keyed with.
     * @throws IOException when it cannot be written.
     */
    public static void write(final Path root, final int partitions, final long fingerprint, final long hashSeed)
        throws IOException
    {
        final List<String> lines = new ArrayList<>(identity(partitions, fingerprint));
        lines.add(String.format(Locale.ROOT, HASH_SEED + "%016x", hashSeed));
        SmallFiles.write(file(root), lines);
    }

    /**
     * @param root the state root.
     * @return the record's lines (without the checksum); null when there is no record.
     * @throws IOException naming the file when it is truncated or damaged.
     */
    public static List<String> read(final Path root) throws IOException
    {
        return SmallFiles.read(file(root));
    }

    /**
     * Checks that a record read is this engine's.
     *
     * @param root        the state root.
     * @param found       the lines read ({@link #read}), not null.
     * @param partitions  the engine's partition count.
     * @param fingerprint the join's fingerprint.
     * @throws IOException naming the file and both identities when the root is another engine's.
     */
    public static void check(final Path root, final List<String> found, final int partitions, final long fingerprint)
        throws IOException
    {
        final List<String> identity = identity(partitions, fingerprint);
        if (found.size() != LINES || !found.subList(HEADER_LINE, IDENTITY_LINES).equals(identity))
        {
            throw new IOException(file(root) + " says this state root belongs to another engine (" + String.join(", ", found) +
                "; this one: " + String.join(", ", identity) + "): a different join or partition count cannot use it; " +
                "start with an empty state directory");
        }
    }

    /**
     * @param found the lines read ({@link #read}), or null.
     * @return whether they hold a seed line.
     */
    public static boolean hasHashSeed(final List<String> found)
    {
        return found != null && found.size() >= LINES && found.get(HASH_SEED_LINE).startsWith(HASH_SEED);
    }

    /**
     * @param found the lines read, with a seed line ({@link #hasHashSeed}).
     * @return the seed.
     * @throws NumberFormatException when the seed is not 16 hex digits.
     */
    public static long hashSeed(final List<String> found)
    {
        return Long.parseUnsignedLong(found.get(HASH_SEED_LINE).substring(HASH_SEED.length()), 16);
    }
}
