package io.junction.tools.workload;

import java.util.Arrays;

/**
 * A pre-generated workload event sequence, so a load generator never computes or allocates while driving:
 * generate once into a tape (it is a {@link WorkloadSink}), then {@link #replay} it or read it by index.
 * <p>
 * Not thread safe: written by one thread; after {@link #end()} (or once writing is finished and the tape is
 * safely published) any number of threads may read it.
 * <p>
 * Layout: chunked primitive arrays, 26 bytes per event (a type byte, a change-kind byte and three longs), in
 * chunks of {@value #CHUNK_SIZE} events, so capacity grows without copying the events already stored and no
 * single array exceeds 8 MiB. W1-big (about 12 million events with watermarks) takes about 310 MB.
 * <pre>
 * event i: type[i]  LEFT (0) | RIGHT (1) | WATERMARK (2) | END (3)
 *          kind[i]  INSERT (0) | UPDATE_BEFORE (1) | UPDATE_AFTER (2) | DELETE (3) ({@link WorkloadSink}); INSERT
 *                   for every row of W1-W3 and for watermarks and the end
 *          key[i]   join key           (0 for WATERMARK and END)
 *          ts[i]    event time; the watermark value for WATERMARK; Long.MAX_VALUE for END
 *          f1[i]    sequence number within the side (0 for WATERMARK and END)
 * </pre>
 */
public final class EventTape implements WorkloadSink
{
    /** Type of a left row (same value as {@link WorkloadSink#LEFT}). */
    public static final byte TYPE_LEFT = (byte) LEFT;
    /** Type of a right row (same value as {@link WorkloadSink#RIGHT}). */
    public static final byte TYPE_RIGHT = (byte) RIGHT;
    /** Type of a watermark; {@link #ts(int)} is its value. */
    public static final byte TYPE_WATERMARK = 2;
    /** Type of the end of input. */
    public static final byte TYPE_END = 3;

    /** log2 of the events per chunk. */
    public static final int CHUNK_SHIFT = 20;
    /** Events per chunk (2^20). */
    public static final int CHUNK_SIZE = 1 << CHUNK_SHIFT;
    private static final int CHUNK_MASK = CHUNK_SIZE - 1;

    private byte[][] types = new byte[0][];
    private byte[][] kinds = new byte[0][];
    private long[][] keys = new long[0][];
    private long[][] tss = new long[0][];
    private long[][] f1s = new long[0][];
    private int size;
    private long rows;
    private long changes;

    /** An empty tape; chunks are added as events arrive. */
    public EventTape()
    {
    }

    /**
     * An empty tape with room for {@code expectedEvents} without growing during generation.
     *
     * @param expectedEvents events to preallocate for (0 or more)
     */
    public EventTape(final int expectedEvents)
    {
        if (expectedEvents < 0)
        {
            throw new IllegalArgumentException("expectedEvents=" + expectedEvents + " must be >= 0");
        }
        ensureChunks((int) (((long) expectedEvents + CHUNK_SIZE - 1) >>> CHUNK_SHIFT));
    }

    /**
     * Generates a whole workload into a new tape.
     *
     * @param w the workload (system-property overrides apply, see {@link Workloads#generate(Workload, WorkloadSink)})
     * @return the filled tape
     */
    public static EventTape of(final Workload w)
    {
        final EventTape tape = new EventTape();
        Workloads.generate(w, tape);
        return tape;
    }

    @Override
    public void row(final int side, final long key, final long ts, final long f1)
    {
        append((byte) side, INSERT, key, ts, f1);
        rows++;
    }

    @Override
    public void change(final int side, final byte kind, final long key, final long ts, final long f1)
    {
        WorkloadSink.kindName(kind);   // rejects an unknown kind before it is stored
        append((byte) side, kind, key, ts, f1);
        rows++;
        if (kind != INSERT)
        {
            changes++;
        }
    }

    @Override
    public void watermark(final long watermark)
    {
        append(TYPE_WATERMARK, INSERT, 0, watermark, 0);
    }

    @Override
    public void end()
    {
        append(TYPE_END, INSERT, 0, Long.MAX_VALUE, 0);
    }

    private void append(final byte type, final byte kind, final long key, final long ts, final long f1)
    {
        final int i = size;
        if (i == Integer.MAX_VALUE)
        {
            throw new IllegalStateException("EventTape full: " + Integer.MAX_VALUE + " events");
        }
        final int c = i >>> CHUNK_SHIFT;
        if (c == types.length)
        {
            ensureChunks(c + 1);
        }
        final int j = i & CHUNK_MASK;
        types[c][j] = type;
        kinds[c][j] = kind;
        keys[c][j] = key;
        tss[c][j] = ts;
        f1s[c][j] = f1;
        size = i + 1;
    }

    private void ensureChunks(final int chunks)
    {
        final int old = types.length;
        if (chunks <= old)
        {
            return;
        }
        types = Arrays.copyOf(types, chunks);
        kinds = Arrays.copyOf(kinds, chunks);
        keys = Arrays.copyOf(keys, chunks);
        tss = Arrays.copyOf(tss, chunks);
        f1s = Arrays.copyOf(f1s, chunks);
        for (int c = old; c < chunks; c++)
        {
            types[c] = new byte[CHUNK_SIZE];
            kinds[c] = new byte[CHUNK_SIZE];
            keys[c] = new long[CHUNK_SIZE];
            tss[c] = new long[CHUNK_SIZE];
            f1s[c] = new long[CHUNK_SIZE];
        }
    }

    /** @return number of events stored (rows, watermarks and the end) */
    public int size()
    {
        return size;
    }

    /** @return number of rows stored (both sides) */
    public long rows()
    {
        return rows;
    }

    /**
     * @param i event index, 0 .. size-1
     * @return {@link #TYPE_LEFT}, {@link #TYPE_RIGHT}, {@link #TYPE_WATERMARK} or {@link #TYPE_END}
     */
    public byte type(final int i)
    {
        check(i);
        return types[i >>> CHUNK_SHIFT][i & CHUNK_MASK];
    }

    /** @return number of rows of a kind other than {@code +I} (0 for the insert-only W1-W3) */
    public long changes()
    {
        return changes;
    }

    /** @return whether every row is an insert ({@code +I}), as in W1-W3 */
    public boolean insertOnly()
    {
        return changes == 0;
    }

    /**
     * @param i event index
     * @return the row's change kind: {@link WorkloadSink#INSERT}, {@link WorkloadSink#UPDATE_BEFORE},
     *         {@link WorkloadSink#UPDATE_AFTER} or {@link WorkloadSink#DELETE} (INSERT for watermarks and the end)
     */
    public byte kind(final int i)
    {
        check(i);
        return kinds[i >>> CHUNK_SHIFT][i & CHUNK_MASK];
    }

    /**
     * @param i event index
     * @return the row's key (0 for watermarks and the end)
     */
    public long key(final int i)
    {
        check(i);
        return keys[i >>> CHUNK_SHIFT][i & CHUNK_MASK];
    }

    /**
     * @param i event index
     * @return the row's event time, the watermark value, or {@link Long#MAX_VALUE} for the end
     */
    public long ts(final int i)
    {
        check(i);
        return tss[i >>> CHUNK_SHIFT][i & CHUNK_MASK];
    }

    /**
     * @param i event index
     * @return the row's sequence number within its side (0 for watermarks and the end)
     */
    public long f1(final int i)
    {
        check(i);
        return f1s[i >>> CHUNK_SHIFT][i & CHUNK_MASK];
    }

    /**
     * Re-emits every event in order.
     *
     * @param sink receives the events
     */
    public void replay(final WorkloadSink sink)
    {
        replay(sink, 0, size);
    }

    /**
     * Re-emits events {@code [from, to)} in order (e.g. a warm-up prefix, then the timed rest).
     *
     * @param sink receives the events
     * @param from first index
     * @param to   one past the last index
     */
    public void replay(final WorkloadSink sink, final int from, final int to)
    {
        if (from < 0 || to > size || from > to)
        {
            throw new IndexOutOfBoundsException("range [" + from + ", " + to + ") not within [0, " + size + ")");
        }
        for (int i = from; i < to; i++)
        {
            final int c = i >>> CHUNK_SHIFT;
            final int j = i & CHUNK_MASK;
            final byte type = types[c][j];
            switch (type)
            {
                case TYPE_LEFT:
                case TYPE_RIGHT:
                    final byte kind = kinds[c][j];
                    if (kind == INSERT)
                    {
                        sink.row(type, keys[c][j], tss[c][j], f1s[c][j]);
                }
                else
                    {
                        sink.change(type, kind, keys[c][j], tss[c][j], f1s[c][j]);
                    }
                    break;
                case TYPE_WATERMARK:
                    sink.watermark(tss[c][j]);
                    break;
                default:
                    sink.end();
                    break;
            }
        }
    }

    private void check(final int i)
    {
        if (i < 0 || i >= size)
        {
            throw new IndexOutOfBoundsException("event " + i + " not within [0, " + size + ")");
        }
    }
}
