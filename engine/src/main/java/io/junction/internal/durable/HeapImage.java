package io.junction.internal.durable;

import io.junction.internal.memory.HeapPart;
import io.junction.internal.state.KeyIndex;
import io.junction.internal.state.RowStore;
import io.junction.internal.cut.StagedCut;
import io.junction.internal.cut.StateCut;
import io.junction.internal.state.UniqueKeyIndex;
import io.junction.internal.time.TimerWheel;
import io.junction.internal.time.TimerWheelCopy;

import java.nio.ByteBuffer;

/**
 * Writes and reads a durable partition state's heap image, {@code heap.dat}, as {@link HeapImageDescriptor} draws
 * it: the state's part (its counters), then the heap-held parts in a fixed order (the state's timer wheel, then
 * the operator's {@link HeapPart}), then the end mark. A persist writes it whole ({@link #save}); a checkpoint's cut
 * copies its head with plain stores and leaves the encoding to the cut's writer ({@link #stage}); a reopen reads
 * it back in the same order ({@link #readStatePart}, {@link #loadWheel}, {@link #loadOperatorPart}).
 *
 * <p>Not thread safe: owned by the partition thread, except {@link #writeCutHead}, which the cut's writer runs
 * while the partition thread does not write the copies it reads (the next cut comes after the last one's end).
 */
public final class HeapImage implements StateCut.HeapStage
{
    /** The file. */
    public static final String FILE = "heap.dat";
    /** The counters of the state part, after its magic. */
    public static final int STATE_PART_COUNT = (HeapImageDescriptor.STATE_PART_LENGTH - Integer.BYTES) / Long.BYTES;

    /** Where the wheel and the operator's part are in {@link #parts}: the state's own parts come first. */
    private static final int WHEEL_PART = 0;
    private static final int OPERATOR_PART = 1;

    private final RowStore store;
    private final KeyIndex index;
    /** The bucket of rows that never match, as an offset from the arena's base. */
    private final long unmatchableOffset;
    /** Each side's unique-key index (null without one): the state's own array, read at each save. */
    private final UniqueKeyIndex[] uniqueKeys;
    private final TimerWheel wheel;
    /**
     * The parts of heap.dat after the state's own fields, in the order written: the wheel, then the operator's
     * part, which each {@link #save}, {@link #stage} and {@link #loadOperatorPart} hands in.
     */
    private final HeapPart[] parts = new HeapPart[2];
    /** The state part's counters as the last cut copied them ({@link #copyStatePart}), for its writer. */
    private final long[] statePartCopy = new long[STATE_PART_COUNT];
    /**
     * The array a cut writes the image into ({@link HeapImageDescriptor#room}), allocated by {@link #prepareCuts}
     * and grown by a cut only when the operator's part outgrows it (a multi-way join's queue). Not written while a
     * cut is out: the next {@link #stage} comes after the last one's end.
     */
    private byte[] cutImage;
    /** The wheel as the last cut copied it, for its writer to encode ({@link TimerWheel#copyTo}). */
    private TimerWheelCopy wheelCopy;
    /** The operator's part of the last cut, whose head that cut's writer encodes. */
    private HeapPart cutPart;
    /** {@link #writeCutHead}, the deferred part of each cut's image: the state part, the wheel and the operator's head. */
    private StagedCut.DeferredPart cutHead;

    /**
     * @param store             the row store, for the live rows per side.
     * @param index             the key index, for its size.
     * @param unmatchableOffset the bucket of rows that never match, as an offset from the arena's base.
     * @param uniqueKeys        each side's unique-key index, null until (or without) one: read at each save.
     * @param wheel             the state's timer wheel, the image's first heap-held part.
     */
    public HeapImage(
        final RowStore store, final KeyIndex index, final long unmatchableOffset, final UniqueKeyIndex[] uniqueKeys,
        final TimerWheel wheel)
    {
        this.store = store;
        this.index = index;
        this.unmatchableOffset = unmatchableOffset;
        this.uniqueKeys = uniqueKeys;
        this.wheel = wheel;
        parts[WHEEL_PART] = wheel;
    }

    /**
     * Reads a reopened image's state part, from {@code heap}'s position.
     *
     * @param heap the image.
     * @param into receives the {@link #STATE_PART_COUNT} counters in the image's order (live rows left and right,
     *             index size, unmatchable bucket's offset, unique keys left and right).
     * @return false, having read only the magic, when the image does not start with the state's part.
     */
    public static boolean readStatePart(final ByteBuffer heap, final long[] into)
    {
        if (heap.getInt() != HeapImageDescriptor.MAGIC)
        {
            return false;
        }
        for (int i = 0; i < STATE_PART_COUNT; i++)
        {
            into[i] = heap.getLong();
        }
        return true;
    }

    /** Reads the state's own heap-held parts (the wheel), after the state part. */
    public void loadWheel(final ByteBuffer heap)
    {
        load(heap, 0, OPERATOR_PART);
    }

    /**
     * Reads the operator's part, after the wheel.
     *
     * @return whether the image ends right after it, with the end mark.
     */
    public boolean loadOperatorPart(final ByteBuffer heap, final HeapPart part)
    {
        parts[OPERATOR_PART] = part;
        load(heap, OPERATOR_PART, parts.length);
        return heap.remaining() == HeapImageDescriptor.END_LENGTH && heap.getInt() == HeapImageDescriptor.END;
    }

    /** Reads heap.dat's parts {@code from} (inclusive) {@code to} (exclusive) of {@link #parts}, in their order. */
    private void load(final ByteBuffer heap, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            parts[i].load(heap);
        }
    }

    /**
     * A persist's image: the state's counters, then its {@link #parts} (the wheel, the operator's part), the end mark.
     *
     * @param part the operator's heap-held state.
     * @return the image's bytes.
     */
    public byte[] save(final HeapPart part)
    {
        final ByteBuffer out = ByteBuffer.allocate(room(part));
        copyStatePart(statePartCopy);
        writeStatePart(out, statePartCopy);
        parts[OPERATOR_PART] = part;
        for (final HeapPart heapPart : parts)
        {
            heapPart.save(out);
        }
        out.putInt(HeapImageDescriptor.END);
        final byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }

    /**
     * @return the bytes of the buffer the image is written into ({@link HeapImageDescriptor#room}): the state's own
     *         parts' lengths, then the operator's.
     */
    private int room(final HeapPart part)
    {
        int own = 0;
        for (int i = 0; i < OPERATOR_PART; i++)
        {
            own += parts[i].savedLength();
        }
        return HeapImageDescriptor.room(own, part.savedLength());
    }

    /** Makes what every cut reuses (once, before the first cut): the image's array, the wheel's copy, the deferred head. */
    public void prepareCuts(final HeapPart part)
    {
        cutImage = new byte[HeapImageDescriptor.room(wheel.savedLength(), part.savedLength())];
        wheelCopy = wheel.newCopy();
        cutHead = this::writeCutHead;
    }

    /**
     * A cut's image, the same bytes as {@link #save} once its writer has encoded the head: the state part, the wheel
     * ({@link TimerWheel#copyTo}) and the operator's part's head ({@link HeapPart#copyHead}) are copied with plain
     * stores and array copies, and left to the writer ({@link StagedCut#heapDeferred}, {@link #writeCutHead}) in a
     * gap that the writer closes; the rest of the operator's part is written here. Why: the cut runs in the
     * interpreter for a run's first minutes, where each {@code ByteBuffer} store costs about a microsecond (the
     * ~30 of the counters took 0.16-0.30 ms of W1's pause at the median).
     *
     * @param part the operator's heap-held state.
     * @param cut  the cut, which takes the image.
     */
    @Override
    public void stage(final HeapPart part, final StagedCut cut)
    {
        if (cutImage == null)
        {
            // An owner that staged a cut before its restore: made once, here.
            prepareCuts(part);
        }
        final int room = HeapImageDescriptor.room(wheel.savedLength(), part.savedLength());
        if (cutImage.length < room)
        {
            cutImage = new byte[room + room / 2];
        }
        final ByteBuffer out = cut.heapBuffer(FILE, cutImage);
        copyStatePart(statePartCopy);
        wheel.copyTo(wheelCopy);
        part.copyHead();
        cutPart = part;
        parts[OPERATOR_PART] = part;
        final int headLength = HeapImageDescriptor.STATE_PART_LENGTH + wheel.savedLength() + part.headLength();
        cut.heapDeferred(0, headLength, cutHead);
        out.position(headLength);
        part.saveTail(out);
        out.putInt(HeapImageDescriptor.END);
        cut.heapWritten(out.position());
    }

    /** The cut's writer: writes the head {@link #stage} copied (state part, wheel, operator's head). */
    private void writeCutHead(final ByteBuffer out)
    {
        writeStatePart(out, statePartCopy);
        wheelCopy.save(out);
        cutPart.writeHead(out);
    }

    /** Copies the state part's counters, in the image's order after the magic. */
    private void copyStatePart(final long[] into)
    {
        into[0] = store.liveRows(0);
        into[1] = store.liveRows(1);
        into[2] = index.size();
        into[3] = unmatchableOffset;
        into[4] = uniqueKeys[0] == null ? 0 : uniqueKeys[0].size();
        into[5] = uniqueKeys[1] == null ? 0 : uniqueKeys[1].size();
    }

    /** Writes the state part: the magic, then the counters {@link #copyStatePart} copied. */
    private static void writeStatePart(final ByteBuffer out, final long[] copied)
    {
        out.putInt(HeapImageDescriptor.MAGIC);
        for (int i = 0; i < STATE_PART_COUNT; i++)
        {
            out.putLong(copied[i]);
        }
    }
}
