package io.junction.join;

import io.junction.internal.state.MultiRowDescriptor;
import io.junction.internal.state.MultiRowStore;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The multi-way join's state TTL queue (SEMANTICS 10 {@code stateTtl}, docs/SEMANTICS.md "Multi-way joins"): a
 * binary min-heap of stored records by deadline ({@code ts + stateTtl}, saturated) on two primitive arrays.
 * Each queued record keeps its slot in its header ({@link MultiRowDescriptor#queueIndex}), so that a
 * retraction takes it out in O(log n); the arrays only grow (doubling), so nothing is allocated per event once
 * they have grown to the state's size. In the heap image the queue is saved in heap order as record
 * references relative to the store's base, each checked against the arena and its slot when loaded.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class MultiTtlQueue
{
    private final MultiRowStore store;
    private long[] records = new long[64];
    private long[] deadlines = new long[64];
    private int size;

    /**
     * @param store the records' store: its base for the slots written into the records and the saved references.
     */
    MultiTtlQueue(final MultiRowStore store)
    {
        this.store = store;
    }

    /** @return the queued records. */
    int size()
    {
        return size;
    }

    /** @return whether some queued record's deadline is below {@code watermark}. */
    boolean anyBefore(final long watermark)
    {
        return size > 0 && deadlines[0] < watermark;
    }

    /** @return the record of the earliest deadline, taken out of the queue; call only when {@link #size()} is not 0. */
    long poll()
    {
        final long record = records[0];
        remove(0);
        return record;
    }

    /**
     * Queues a record.
     *
     * @param record   the record.
     * @param deadline its deadline.
     */
    void add(final long record, final long deadline)
    {
        if (size == records.length)
        {
            records = Arrays.copyOf(records, size * 2);
            deadlines = Arrays.copyOf(deadlines, size * 2);
        }
        siftUp(size++, record, deadline);
    }

    /**
     * Takes a record out of the queue when it is queued.
     *
     * @param record a record.
     */
    void removeRecord(final long record)
    {
        final int at = MultiRowDescriptor.queueIndex(record);
        if (at >= 0)
        {
            remove(at);
        }
    }

    private void siftUp(final int from, final long record, final long deadline)
    {
        int i = from;
        while (i > 0)
        {
            final int parent = (i - 1) >>> 1;
            if (deadlines[parent] <= deadline)
            {
                break;
            }
            place(i, records[parent], deadlines[parent]);
            i = parent;
        }
        place(i, record, deadline);
    }

    private void siftDown(final int from, final long record, final long deadline)
    {
        int i = from;
        final int half = size >>> 1;
        while (i < half)
        {
            int child = 2 * i + 1;
            if (child + 1 < size && deadlines[child + 1] < deadlines[child])
            {
                child++;
            }
            if (deadline <= deadlines[child])
            {
                break;
            }
            place(i, records[child], deadlines[child]);
            i = child;
        }
        place(i, record, deadline);
    }

    private void place(final int i, final long record, final long deadline)
    {
        records[i] = record;
        deadlines[i] = deadline;
        MultiRowDescriptor.queueIndex(store.base(), record, i);
    }

    /** Takes the record in queue slot {@code index} out of the queue. */
    private void remove(final int index)
    {
        MultiRowDescriptor.queueIndex(store.base(), records[index], -1);
        final int last = --size;
        if (index == last)
        {
            records[last] = 0;
            return;
        }
        final long moved = records[last];
        final long movedDeadline = deadlines[last];
        records[last] = 0;
        if (index > 0 && deadlines[(index - 1) >>> 1] > movedDeadline)
        {
            siftUp(index, moved, movedDeadline);
        }
        else
        {
            siftDown(index, moved, movedDeadline);
        }
    }

    /** @return the bytes {@link #save} writes. */
    int savedLength()
    {
        return Integer.BYTES + size * 2 * Long.BYTES;
    }

    /** Writes the queue in heap order: its size, then each record's reference and deadline. */
    void save(final ByteBuffer out)
    {
        out.putInt(size);
        for (int i = 0; i < size; i++)
        {
            out.putLong(records[i] - store.base()).putLong(deadlines[i]);
        }
    }

    /**
     * Reads a queue {@link #save} wrote, each reference checked before it is followed.
     *
     * @throws DurableStateException when the image is damaged.
     */
    void load(final ByteBuffer in)
    {
        final int count = in.getInt();
        if (count < 0 || count > in.remaining() / (2 * Long.BYTES))
        {
            throw new DurableStateException("the multi-way join's TTL queue of " + count + " records does not fit the heap image (damaged state)");
        }
        records = new long[Math.max(64, count)];
        deadlines = new long[records.length];
        for (int i = 0; i < count; i++)
        {
            final long stored = in.getLong();
            // Checked before it is followed: a damaged reference must not be read (docs/DURABILITY.md).
            if (!store.arena().holds(stored, MultiRowDescriptor.HEADER_LENGTH) ||
                MultiRowDescriptor.queueIndex(store.base() + stored) != i)
            {
                throw new DurableStateException("the multi-way join's TTL queue holds a record at " + stored +
                    " that is not its slot " + i + " (damaged state)");
            }
            records[i] = store.base() + stored;
            deadlines[i] = in.getLong();
        }
        size = count;
    }
}
