package io.junction.internal.durable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The chunk sums of state directories a restore has just written and verified ({@link StateImage#restore}),
 * handed to the reopen that follows it in the same process, so that the reopen does not read every chunk
 * again to verify what the restore verified a moment before (every chunk was either compared with the live
 * file's bytes or written from the checkpoint's verified bytes). An entry is taken once; it counts only while
 * each file's length and modification time are those the restore left, and while its sums equal the ones
 * the restored marker records (the reopen checks that); otherwise the reopen verifies as usual.
 *
 * <p>Thread safe: a restore and the reopen may run on different threads (the engine's recovery, then the
 * partition thread).
 */
public final class RestoredImages
{
    private static final Map<Path, Entry> ENTRIES = new ConcurrentHashMap<>();

    private RestoredImages()
    {
    }

    /** A restored directory's sums, with what each file looked like when they were taken. */
    private static final class Entry
    {
        final Map<String, ChunkSums.FileSums> sums;
        final Map<String, FileTime> modified;

        Entry(final Map<String, ChunkSums.FileSums> sums, final Map<String, FileTime> modified)
        {
            this.sums = sums;
            this.modified = modified;
        }
    }

    /**
     * Records a restored directory's sums (replacing any earlier entry for it).
     *
     * @param directory the state directory.
     * @param sums      per file, the sums of its bytes as restored.
     * @throws IOException when a file's attributes cannot be read.
     */
    static void offer(final Path directory, final Map<String, ChunkSums.FileSums> sums) throws IOException
    {
        final Map<String, FileTime> modified = new HashMap<>();
        for (final String name : sums.keySet())
        {
            modified.put(name, Files.getLastModifiedTime(directory.resolve(name), LinkOption.NOFOLLOW_LINKS));
        }
        ENTRIES.put(key(directory), new Entry(Map.copyOf(sums), modified));
    }

    /** Forgets a directory's entry (its state is about to change, or was emptied). */
    static void forget(final Path directory)
    {
        ENTRIES.remove(key(directory));
    }

    /**
     * Takes the sums a restore left for a directory.
     *
     * @param directory the state directory being reopened.
     * @return per file, the sums of those files that still have the length and modification time the restore
     *         left (the others are absent); empty when no restore left any.
     */
    public static Map<String, ChunkSums.FileSums> take(final Path directory)
    {
        final Entry entry = ENTRIES.remove(key(directory));
        if (entry == null)
        {
            return Map.of();
        }
        final Map<String, ChunkSums.FileSums> unchanged = new HashMap<>();
        for (final Map.Entry<String, ChunkSums.FileSums> file : entry.sums.entrySet())
        {
            final Path path = directory.resolve(file.getKey());
            try
            {
                if (Files.size(path) == file.getValue().length &&
                    Files.getLastModifiedTime(path, LinkOption.NOFOLLOW_LINKS).equals(entry.modified.get(file.getKey())))
                {
                    unchanged.put(file.getKey(), file.getValue());
                }
            }
            catch (final IOException e)
            {
                // Gone or unreadable: the reopen verifies (and names) it.
            }
        }
        return unchanged;
    }

    private static Path key(final Path directory)
    {
        return directory.toAbsolutePath().normalize();
    }
}
