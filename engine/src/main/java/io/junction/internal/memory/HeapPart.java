package io.junction.internal.memory;

import java.nio.ByteBuffer;

/**
 * One heap-held part of a durable partition state's image, {@code heap.dat} ({@code internal.durable.HeapImageDescriptor}):
 * the state's timer wheel ({@code TimerWheel}), then the operator's part (its counters, watermarks and the
 * algorithm's own fields). The state writes its own fields, then every part in a fixed order, then the end
 * mark; a reopen reads them back in the same order, each part from where the one before it ended
 * (docs/ARCHITECTURE.md "State parts and their persistence").
 *
 * <p>Here, in the lowest layer, so that the time package (the wheel) and the join package (the operator's part)
 * both implement it without importing the durable formats, which write the image ({@code internal.durable.HeapImage}).
 *
 * <p>A checkpoint's cut takes a part in two pieces: its head, copied on the partition thread with plain stores
 * ({@link #copyHead}) and encoded by the cut's writer ({@link #writeHead}), then its tail, written at the cut
 * ({@link #saveTail}); together the same bytes {@link #save} writes.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public interface HeapPart
{
    /**
     * Writes the part's fields at {@code out}'s position, leaving the position after them.
     *
     * @param out the image, with {@code HeapImageDescriptor.room} bytes in all.
     */
    void save(ByteBuffer out);

    /**
     * Reads what {@link #save} wrote, in the same order, from {@code in}'s position, leaving the position after it.
     *
     * @param in the image.
     */
    void load(ByteBuffer in);

    /**
     * @return the bytes {@link #save} may write, for the image's {@code HeapImageDescriptor.room} (the state's
     *         wheel: its image's length; the operator's part: what it may write beyond the image's fixed room of
     *         64 KiB, 0 for none).
     */
    default int savedLength()
    {
        return 0;
    }

    /**
     * @return the bytes of the part's head: what {@link #save} writes first and a checkpoint's cut copies
     *         ({@link #copyHead}) for its writer to encode ({@link #writeHead}); 0: none.
     */
    default int headLength()
    {
        return 0;
    }

    /** Partition thread, at a cut: copies the head's fields (plain stores, no encoding). */
    default void copyHead()
    {
    }

    /** The cut's writer: writes the head as {@link #save} would have at {@link #copyHead}, exactly {@link #headLength()} bytes. */
    default void writeHead(final ByteBuffer out)
    {
    }

    /** Writes what {@link #save} writes after the head (all of it when there is none). */
    default void saveTail(final ByteBuffer out)
    {
        save(out);
    }
}
