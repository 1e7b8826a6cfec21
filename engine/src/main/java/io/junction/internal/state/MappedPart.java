package io.junction.internal.state;

import io.junction.internal.cut.DirtyChunks;

import java.io.IOException;

/**
 * One mapped file of a durable partition state, as the state's persist, cut and reopen see it: the arena
 * ({@link NativeArena}), the key index ({@link HashKeyIndex}'s table, {@link ChronicleKeyIndex}'s map) and a
 * side's {@link UniqueKeyIndex}. The state holds its parts in one array, in a fixed order, and treats every
 * part alike (docs/ARCHITECTURE.md "State parts and their persistence"; docs/DURABILITY.md): a persist
 * {@link #collect collects} each part's dirty chunks, {@link #force forces} the file, sums the chunks and
 * records the file's {@link #fileLength length}; a reopen seeds each tracked part's {@link DirtyChunks}
 * from the sums it verified. A part whose writes are not tracked ({@link #dirtyChunks} null: the Chronicle
 * Map, written by a library) is read and summed whole, and makes the state one that cannot be staged.
 *
 * <p>Meaningful in durable mode only: an in-memory part has no file.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public interface MappedPart
{
    /** @return the file's name in the state directory (the checkpoint's name of the file). */
    String fileName();

    /**
     * @return the file's dirty-chunk tracking, or null when its writes are not tracked (the file is then
     *         read whole by every persist and the state cannot stage a cut).
     */
    DirtyChunks dirtyChunks();

    /**
     * Takes the marks of the chunks written since the last image ({@link DirtyChunks#collect}), writing first
     * whatever of the part's heap-held fields the file's image holds (the arena's header). Nothing for an
     * untracked part.
     */
    default void collect()
    {
        final DirtyChunks dirty = dirtyChunks();
        if (dirty != null)
        {
            dirty.collect();
        }
    }

    /**
     * Forces the file's content to the device (a mapped file's pages, or an fsync of a file a library writes).
     *
     * @throws IOException when the file cannot be synced.
     */
    void force() throws IOException;

    /**
     * @return the file's bytes, as the image records them.
     * @throws IOException when the file's size cannot be read.
     */
    long fileLength() throws IOException;
}
