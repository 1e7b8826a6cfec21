package io.junction.internal.durable;

import io.junction.internal.io.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import java.nio.file.FileSystemException;
import java.util.Arrays;
import java.util.Set;

/**
 * Checkpoints of one partition's state in a directory, each complete or ignored, never half-read:
 * <pre>
 *   dir/chk-0000000000000042/     owner-only (0700)
 *       index.bin, arena.bin ...  the state's files (0600), written and fsynced first
 *       MANIFEST                  written last: to MANIFEST.tmp, fsynced, renamed into place
 * </pre>
 * The manifest names the join's fingerprint (a checkpoint of another join is refused, not restored),
 * the caller's input positions (opaque longs, e.g. source offsets), and each file's size and CRC-32C,
 * and ends with the CRC-32C of its own text. A directory without a manifest is a checkpoint that
 * was being written when the process died. Opening picks the newest checkpoint whose manifest and
 * files all verify, and reports every newer one it passed over and why (a flipped byte, a truncated
 * or zero-length file, a missing file), naming the file; when every checkpoint is damaged it fails
 * rather than start on damaged or empty state. The newest two complete checkpoints are kept.
 *
 * <p>Not thread safe: one writer at a time (the partition's thread, the background checkpoint writer
 * for the cut the partition handed it, or the thread that moves the partition).
 */
public final class CheckpointStore
{
    /** The manifest's name in a checkpoint directory. */
    public static final String MANIFEST = "MANIFEST";
    /** Complete checkpoints kept: the newest, and the one before it to fall back to. */
    public static final int KEPT = 2;

    static final String HEADER = "junction-checkpoint 1";
    private static final Pattern DIRECTORY = Pattern.compile("chk-(\\d{19})");
    static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    /**
     * Test seam: when set, called with the file before each write to a checkpoint's files (its chunks, its
     * index and its manifest); it may throw as a full disk (ENOSPC) does. Null outside tests.
     */
    static volatile WriteFault writeFault;

    /** A fault injected into checkpoint writes, for tests ({@link #writeFault}). */
    @FunctionalInterface
    interface WriteFault
    {
        /**
         * @param file the file about to be written.
         * @throws IOException the injected failure.
         */
        void beforeWrite(Path file) throws IOException;
    }

    /**
     * A restore that reads only some of a checkpoint's files (the chunks that differ from the live state's): the
     * checkpoint is opened with the manifest, every file's size and the CRC-32C of each file not
     * {@link #deferrable deferrable} verified, then {@link #needed} names the deferrable files the restore will
     * read, and only those are read and checked against the manifest. A damaged file among them passes the
     * checkpoint over as any damage does; a damaged deferrable file the restore does not read is not looked at
     * (its bytes are not used).
     */
    public interface Reads
    {
        /**
         * @param name a file of the checkpoint.
         * @return whether its CRC-32C may wait until {@link #needed} says whether it is read.
         */
        boolean deferrable(String name);

        /**
         * @param checkpoint the checkpoint, its non-deferrable files verified.
         * @return the deferrable files the restore reads (they are verified before the checkpoint is returned).
         * @throws IOException when the checkpoint's files cannot be read or do not describe a state: the
         *         checkpoint is then passed over (or refused) as a damaged one, with this message.
         */
        Set<String> needed(Checkpoint checkpoint) throws IOException;
    }

    private final Path directory;

    /**
     * @param directory where the checkpoints live; created owner-only when missing.
     * @throws IOException when it cannot be created.
     */
    public CheckpointStore(final Path directory) throws IOException
    {
        this.directory = OwnerOnlyFiles.createDirectories(directory);
    }

    /**
     * @param id a checkpoint id.
     * @return the directory checkpoint {@code id} has (or would have).
     */
    public Path directoryOf(final long id)
    {
        return directory.resolve(name(id));
    }

    /** @return the directory of the checkpoints. */
    public Path directory()
    {
        return directory;
    }

    /**
     * Starts a checkpoint; nothing of it counts until {@link CheckpointFiles#commit()}.
     *
     * @param id          greater than every checkpoint's in the directory, complete or not.
     * @param fingerprint the join's fingerprint, checked when the checkpoint is opened.
     * @param positions   the input positions the checkpoint resumes from (copied).
     * @return the writer.
     * @throws IOException when the id is not new or the directory cannot be created.
     */
    public CheckpointFiles begin(final long id, final long fingerprint, final long[] positions) throws IOException
    {
        if (id < 0)
        {
            throw new IllegalArgumentException("checkpoint id must be >= 0: " + id);
        }
        final List<Long> ids = ids();
        if (!ids.isEmpty() && ids.get(0) >= id)
        {
            throw new IOException("checkpoint " + id + " is not newer than checkpoint " + ids.get(0) + " in " + directory);
        }
        return new CheckpointFiles(this, OwnerOnlyFiles.createDirectories(directory.resolve(name(id))), id, fingerprint, positions.clone());
    }

    /**
     * Opens the newest complete checkpoint.
     *
     * @param fingerprint the join's fingerprint.
     * @return the checkpoint, or null when the directory holds none (complete or not).
     * @throws IOException when checkpoints exist but none verifies, or one belongs to another join.
     */
    public Checkpoint latest(final long fingerprint) throws IOException
    {
        return latest(fingerprint, null);
    }

    /**
     * Opens the newest complete checkpoint whose input positions equal {@code positions} exactly (for a
     * caller that knows which cut its input committed): newer ones at other positions, and damaged ones,
     * are passed over.
     *
     * @param fingerprint the join's fingerprint.
     * @param positions   the positions wanted; null for any (as {@link #latest(long)}).
     * @return the checkpoint, or null when no intact checkpoint has those positions (and, with positions
     *         null, none is damaged either).
     * @throws IOException when, with positions null, checkpoints exist but none verifies; or one belongs
     *         to another join.
     */
    public Checkpoint latest(final long fingerprint, final long[] positions) throws IOException
    {
        return latest(fingerprint, positions, null);
    }

    /**
     * As {@link #latest(long, long[])}, verifying only what a restore reads ({@link Reads}).
     *
     * @param fingerprint the join's fingerprint.
     * @param positions   the positions wanted; null for any.
     * @param reads       what the restore reads; null for every file.
     * @return the checkpoint, or null (as {@link #latest(long, long[])}).
     * @throws IOException as {@link #latest(long, long[])}.
     */
    public Checkpoint latest(final long fingerprint, final long[] positions, final Reads reads) throws IOException
    {
        final List<String> skipped = new ArrayList<>();
        for (final long id : ids())
        {
            final Path dir = directory.resolve(name(id));
            final Checkpoint checkpoint;
            try
            {
                checkpoint = verify(dir, id, skipped, reads);
            }
            catch (final DamagedException e)
            {
                skipped.add(e.getMessage());
                continue;
            }
            catch (final NumberFormatException | IndexOutOfBoundsException e)
            {
                skipped.add(dir.resolve(MANIFEST) + " is malformed: " + e.getMessage());
                continue;
            }
            if (checkpoint.fingerprint != fingerprint)
            {
                throw new IOException(String.format(Locale.ROOT,
                    "%s holds a checkpoint of another join (fingerprint %016x, this join's %016x): refusing to restore it",
                    dir, checkpoint.fingerprint, fingerprint));
            }
            if (positions != null && !Arrays.equals(positions, checkpoint.positions))
            {
                continue;
            }
            return checkpoint;
        }
        if (skipped.isEmpty() || positions != null)
        {
            return null;
        }
        throw new IOException("no complete checkpoint in " + directory + ": " + String.join("; ", skipped));
    }

    /**
     * Opens one checkpoint, verifying its manifest and every file.
     *
     * @param id          the checkpoint's id.
     * @param fingerprint the join's fingerprint.
     * @return the checkpoint.
     * @throws IOException naming the damaged or missing file, or the other join, when it does not verify.
     */
    public Checkpoint open(final long id, final long fingerprint) throws IOException
    {
        return open(id, fingerprint, null);
    }

    /**
     * As {@link #open(long, long)}, verifying only what a restore reads ({@link Reads}).
     *
     * @param id          the checkpoint's id.
     * @param fingerprint the join's fingerprint.
     * @param reads       what the restore reads; null for every file.
     * @return the checkpoint.
     * @throws IOException as {@link #open(long, long)}.
     */
    public Checkpoint open(final long id, final long fingerprint, final Reads reads) throws IOException
    {
        final Path dir = directory.resolve(name(id));
        final Checkpoint checkpoint;
        try
        {
            checkpoint = verify(dir, id, List.of(), reads);
        }
        catch (final DamagedException e)
        {
            throw new IOException(e.getMessage());
        }
        catch (final NumberFormatException | IndexOutOfBoundsException e)
        {
            throw new IOException(dir.resolve(MANIFEST) + " is malformed: " + e.getMessage(), e);
        }
        if (checkpoint.fingerprint != fingerprint)
        {
            throw new IOException(String.format(Locale.ROOT,
                "%s holds a checkpoint of another join (fingerprint %016x, this join's %016x): refusing to restore it",
                dir, checkpoint.fingerprint, fingerprint));
        }
        return checkpoint;
    }

    /**
     * @return the ids of the checkpoints whose manifest is in place, newest first: candidates only, not
     *         yet verified ({@link #open(long, long)} verifies).
     * @throws IOException when the directory cannot be listed.
     */
    public List<Long> committedIds() throws IOException
    {
        final List<Long> committed = new ArrayList<>();
        for (final long id : ids())
        {
            if (Files.exists(directory.resolve(name(id)).resolve(MANIFEST)))
            {
                committed.add(id);
            }
        }
        return committed;
    }

    /**
     * @return the highest id of any checkpoint directory, complete or not; -1 when there is none. A new
     *         checkpoint's id must be greater.
     * @throws IOException when the directory cannot be listed.
     */
    public long highestId() throws IOException
    {
        final List<Long> ids = ids();
        return ids.isEmpty() ? -1 : ids.get(0);
    }

    /**
     * Deletes every checkpoint directory, complete or not, whose id is not in {@code keep}: for a caller
     * that knows which checkpoints still count (those complete in every partition of an engine).
     *
     * @param keep the ids to keep.
     * @throws IOException when one cannot be deleted.
     */
    public void retainOnly(final Set<Long> keep) throws IOException
    {
        for (final long id : ids())
        {
            if (!keep.contains(id))
            {
                deleteTree(directory.resolve(name(id)));
            }
        }
        StateDirectory.fsyncDirectory(directory);
    }

    /**
     * @return the ids of every checkpoint directory, complete or not, newest first.
     * @throws IOException when the directory cannot be listed.
     */
    public List<Long> allIds() throws IOException
    {
        return ids();
    }

    /** @return the ids of every checkpoint directory, complete or not, newest first. */
    private List<Long> ids() throws IOException
    {
        final List<Long> ids = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory))
        {
            for (final Path entry : entries)
            {
                final Matcher m = DIRECTORY.matcher(entry.getFileName().toString());
                if (m.matches() && Files.isDirectory(entry))
                {
                    ids.add(Long.parseLong(m.group(1)));
                }
            }
        }
        ids.sort(Collections.reverseOrder());
        return ids;
    }

    private static String name(final long id)
    {
        return String.format(Locale.ROOT, "chk-%019d", id);
    }

    private static final class DamagedException extends Exception
    {
        private static final long serialVersionUID = 1L;

        DamagedException(final String message)
        {
            super(message, null, false, false);
        }
    }

    private static Checkpoint verify(final Path dir, final long id, final List<String> skipped, final Reads reads)
        throws IOException, DamagedException
    {
        final Path manifest = dir.resolve(MANIFEST);
        final byte[] bytes;
        try
        {
            bytes = Files.readAllBytes(manifest);
        }
        catch (final NoSuchFileException e)
        {
            throw new DamagedException(dir + " is incomplete (no " + MANIFEST + ": it was being written)");
        }
        // ASCII throughout (file names are checked against FILE_NAME), so a char index is a byte offset.
        final String text = new String(bytes, StandardCharsets.US_ASCII);
        final int last = text.lastIndexOf("crc32c ");
        if (last < 0 || !text.endsWith("\n"))
        {
            throw new DamagedException(manifest + " is truncated");
        }
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, last);
        final String[] lines = text.split("\n");
        if (!lines[lines.length - 1].equals(String.format(Locale.ROOT, "crc32c %08x", crc.getValue())))
        {
            throw new DamagedException(manifest + " is damaged (its checksum does not match)");
        }
        if (!HEADER.equals(lines[0]) || !lines[1].equals("id " + id))
        {
            throw new DamagedException(manifest + " is not a manifest of checkpoint " + id);
        }
        final long fingerprint = Long.parseUnsignedLong(field(lines[2], "fingerprint"), 16);
        final String[] positionWords = field(lines[3], "positions").split(" ");
        final long[] positions = new long[Integer.parseInt(positionWords[0])];
        for (int i = 0; i < positions.length; i++)
        {
            positions[i] = Long.parseLong(positionWords[i + 1]);
        }
        final Map<String, Path> files = new LinkedHashMap<>();
        final Map<String, Long> deferred = new LinkedHashMap<>();
        for (int i = 4; i < lines.length - 1; i++)
        {
            final String[] words = field(lines[i], "file").split(" ");
            if (!FILE_NAME.matcher(words[0]).matches() || words[0].startsWith(MANIFEST))
            {
                throw new DamagedException(manifest + " names a file outside the checkpoint: " + words[0]);
            }
            final Path file = dir.resolve(words[0]);
            final long size = Long.parseLong(words[1]);
            final long expected = Long.parseLong(words[2], 16);
            if (!Files.isRegularFile(file))
            {
                throw new DamagedException(file + " is missing");
            }
            final long actualSize = Files.size(file);
            if (actualSize != size)
            {
                throw new DamagedException(file + " is " + actualSize + " bytes, the manifest says " + size);
            }
            if (reads != null && reads.deferrable(words[0]))
            {
                deferred.put(words[0], expected);
            }
            else if (crc32c(file) != expected)
            {
                throw new DamagedException(file + " is damaged (its checksum does not match the manifest)");
            }
            files.put(words[0], file);
        }
        final Checkpoint checkpoint = new Checkpoint(id, fingerprint, positions, dir, files, skipped, deferred.keySet());
        if (reads == null)
        {
            return checkpoint;
        }
        final Set<String> needed;
        try
        {
            needed = reads.needed(checkpoint);
        }
        catch (final IOException e)
        {
            throw new DamagedException(e.getMessage());
        }
        for (final String name : needed)
        {
            final Long expected = deferred.get(name);
            if (expected == null)
            {
                if (!files.containsKey(name))
                {
                    throw new DamagedException(manifest + " does not name " + name + ", which the checkpoint's index does");
                }
                continue;
            }
            if (crc32c(files.get(name)) != expected)
            {
                throw new DamagedException(files.get(name) + " is damaged (its checksum does not match the manifest)");
            }
            checkpoint.unverified.remove(name);
        }
        return checkpoint;
    }

    private static String field(final String line, final String name) throws DamagedException
    {
        if (!line.startsWith(name + " "))
        {
            throw new DamagedException("manifest line '" + line + "' is not '" + name + "'");
        }
        return line.substring(name.length() + 1);
    }

    private static long crc32c(final Path file) throws IOException
    {
        final CRC32C crc = new CRC32C();
        final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 16);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            while (channel.read(buffer) >= 0)
            {
                buffer.flip();
                crc.update(buffer);
                buffer.clear();
            }
        }
        return crc.getValue();
    }

    /** Deletes every checkpoint older than the newest {@link #KEPT} complete ones, and incomplete older ones. */
    void prune() throws IOException
    {
        int complete = 0;
        for (final long id : ids())
        {
            final Path dir = directory.resolve(name(id));
            if (complete >= KEPT)
            {
                deleteTree(dir);
            }
            else if (Files.exists(dir.resolve(MANIFEST)))
            {
                complete++;
            }
        }
    }

    static void deleteTree(final Path dir) throws IOException
    {
        // The manifest first: a deletion cut short by a crash leaves an incomplete checkpoint, not a damaged one.
        Files.deleteIfExists(dir.resolve(MANIFEST));
        StateDirectory.deleteContent(dir);
        Files.delete(dir);
    }

    /** A checkpoint that opened and verified: its files may be read. */
    public static final class Checkpoint
    {
        /** The checkpoint's id. */
        public final long id;
        /** The fingerprint of the join it belongs to. */
        public final long fingerprint;
        private final long[] positions;
        /** Its directory. */
        public final Path directory;
        private final Map<String, Path> files;
        private final List<String> skipped;
        /** Files whose CRC-32C was not checked (deferrable ones a restore does not read). */
        private final Set<String> unverified;

        Checkpoint(final long id, final long fingerprint, final long[] positions, final Path directory,
            final Map<String, Path> files, final List<String> skipped, final Set<String> unverified)
        {
            this.id = id;
            this.fingerprint = fingerprint;
            this.positions = positions;
            this.directory = directory;
            this.files = Collections.unmodifiableMap(files);
            this.skipped = List.copyOf(skipped);
            this.unverified = new HashSet<>(unverified);
        }

        /**
         * @param name a file of the checkpoint.
         * @return whether its CRC-32C was checked against the manifest when the checkpoint was opened (every
         *         file, unless it was opened with {@link Reads} and the file is one the restore does not read).
         */
        public boolean verified(final String name)
        {
            return files.containsKey(name) && !unverified.contains(name);
        }

        /** @return the input positions to resume from (a copy). */
        public long[] positions()
        {
            return positions.clone();
        }

        /** @return the files by name, in the order they were written. */
        public Map<String, Path> files()
        {
            return files;
        }

        /** @return why each newer checkpoint was passed over, newest first; empty when this is the newest. */
        public List<String> skipped()
        {
            return skipped;
        }
    }

    /**
     * An I/O failure on a checkpoint's file, with the file named: a full disk (ENOSPC) says only "No space
     * left on device", which does not tell the operator where.
     *
     * @return {@code e} itself when its message names the file already, else an IOException that does.
     */
    static IOException named(final String what, final Path file, final IOException e)
    {
        final String message = e.getMessage();
        if (message != null && message.contains(file.toString()))
        {
            return e;
        }
        return new IOException(what + " " + file + ": " + (message != null ? message : e.toString()), e);
    }
}
