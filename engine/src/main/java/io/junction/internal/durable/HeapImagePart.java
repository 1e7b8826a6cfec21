package io.junction.internal.durable;

import java.nio.ByteBuffer;

/**
 * One heap-held part of a durable partition state's image, {@code heap.dat} ({@link HeapImageDescriptor}):
 * the state's timer wheel ({@code TimerWheel}), then the operator's part (its counters, watermarks and the
 * algorithm's own fields). The state writes its own fields, then every part in a fixed order, then the end
 * mark; a reopen reads them back in the same order, each part from where the one before it ended
 * (docs/ARCHITECTURE.md "State parts and their persistence").
 *
 * <p>Here, beside the image's descriptor, so that the time and join packages can both implement it.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
public interface HeapImagePart
{
    /**
     * Writes the part's fields at {@code out}'s position, leaving the position after them.
     *
     * @param out the image, with {@link HeapImageDescriptor#room} bytes in all.
     */
    void save(ByteBuffer out);

    /**
     * Reads what {@link #save} wrote, in the same order, from {@code in}'s position, leaving the position after it.
     *
     * @param in the image.
     */
    void load(ByteBuffer in);

    /**
     * @return the bytes {@link #save} may write, for the image's {@link HeapImageDescriptor#room} (the state's
     *         wheel: its image's length; the operator's part: what it may write beyond the fixed room, 0 for none).
     */
    int savedLength();
}
