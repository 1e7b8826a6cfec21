package io.junction.tools.workload;

import io.junction.api.RowWriter;
import io.junction.api.Schema;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The rows of a workload tape, encoded once into the engine's binary row format before timing
 * starts, as WORKLOADS.md asks of every peer ("converted before timing starts"): the timed loop then
 * only hands bytes to the publisher.
 * <p>
 * Every W1-W4 row has the same five fields of fixed width ({@code key}, {@code ts}, {@code f1},
 * {@code f2} longs and the 32-char {@code f3}), so every encoded row has the same length and row
 * {@code i} of the tape lives at a fixed stride; watermark entries keep their (unused) place so that
 * tape index and row index are one. A row's change kind is not encoded: it travels beside the bytes
 * ({@link EventTape#kind(int)}), and a W4 {@code -U} encodes to the same bytes as the version it retracts.
 * Chunks of {@value #CHUNK_ROWS} rows keep each array small.
 * <p>
 * W8's rows carry arrays of 1 to 8 ad ids, so they differ in length ({@link #encode(EventTape, Workload)}):
 * each chunk then keeps its rows' start offsets beside the bytes, and {@link #length(int)} is per row.
 * <p>
 * Not thread safe while encoding; read-only afterwards.
 */
public final class EncodedRows
{
    /** Field names in index order, the schema of both sides. */
    public static final String[] FIELDS = {"key", "ts", "f1", "f2", "f3"};
    /** Rows per chunk. */
    public static final int CHUNK_ROWS = 1 << 16;

    private static final int KEY = 0;
    private static final int TS = 1;
    private static final int F1 = 2;
    private static final int F2 = 3;
    private static final int F3 = 4;

    private final UnsafeBuffer[] chunks;
    private final int rowLength;
    /** Per chunk, where each row starts and, last, where the chunk's bytes end; null when every row is {@link #rowLength} long. */
    private final int[][] starts;

    private EncodedRows(final UnsafeBuffer[] chunks, final int rowLength, final int[][] starts)
    {
        this.chunks = chunks;
        this.rowLength = rowLength;
        this.starts = starts;
    }

    /** @return the schema of the encoded rows: {@link #FIELDS} at indices 0 .. 4 */
    public static Schema schema()
    {
        return Schema.of(FIELDS);
    }

    /**
     * Encodes every row of a tape.
     *
     * @param tape the workload events
     * @return the encoded rows, indexed like the tape
     */
    public static EncodedRows encode(final EventTape tape)
    {
        final RowWriter writer = new RowWriter();
        final byte[] f3 = new byte[RowPayload.F3_LENGTH];
        final int rowLength = encodeOne(writer, new UnsafeBuffer(new byte[256]), 0, 256, 0, 0, 0, 0, f3);
        final int size = tape.size();
        final UnsafeBuffer[] chunks = new UnsafeBuffer[(size + CHUNK_ROWS - 1) / CHUNK_ROWS];
        for (int c = 0; c < chunks.length; c++)
        {
            final int rows = Math.min(CHUNK_ROWS, size - c * CHUNK_ROWS);
            chunks[c] = new UnsafeBuffer(new byte[rows * rowLength]);
        }
        for (int i = 0; i < size; i++)
        {
            final byte type = tape.type(i);
            if (type != EventTape.TYPE_LEFT && type != EventTape.TYPE_RIGHT)
            {
                continue;
            }
            final UnsafeBuffer chunk = chunks[i / CHUNK_ROWS];
            final int offset = (i % CHUNK_ROWS) * rowLength;
            final int length = encodeOne(writer, chunk, offset, rowLength, type, tape.key(i), tape.ts(i), tape.f1(i), f3);
            if (length != rowLength)
            {
                throw new IllegalStateException("W1 rows must all encode to " + rowLength + " bytes, row " + i + " took " + length);
            }
        }
        return new EncodedRows(chunks, rowLength, null);
    }

    /**
     * Encodes every row of a workload's tape as that workload's join reads it: W8's and W8-flat's rows
     * ({@link W8#SHOWS}, {@link W8#FLAT_SHOWS}, {@link W8#CLICKS}), every other workload's as {@link #encode(EventTape)}.
     *
     * @param tape     the workload events
     * @param workload the workload they are
     * @return the encoded rows, indexed like the tape
     */
    public static EncodedRows encode(final EventTape tape, final Workload workload)
    {
        if (workload != Workload.W8 && workload != Workload.W8_FLAT)
        {
            return encode(tape);
        }
        final boolean flat = workload == Workload.W8_FLAT;
        final RowWriter writer = new RowWriter();
        final int longest = 512;
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[longest]);
        final int size = tape.size();
        final UnsafeBuffer[] chunks = new UnsafeBuffer[(size + CHUNK_ROWS - 1) / CHUNK_ROWS];
        final int[][] starts = new int[chunks.length][];
        for (int c = 0; c < chunks.length; c++)
        {
            final int first = c * CHUNK_ROWS;
            final int rows = Math.min(CHUNK_ROWS, size - first);
            final int[] at = new int[rows + 1];
            for (int r = 0; r < rows; r++)
            {
                at[r + 1] = at[r] + encodeEvent(writer, scratch, 0, longest, flat, tape, first + r);
            }
            final UnsafeBuffer chunk = new UnsafeBuffer(new byte[at[rows]]);
            for (int r = 0; r < rows; r++)
            {
                encodeEvent(writer, chunk, at[r], at[r + 1] - at[r], flat, tape, first + r);
            }
            chunks[c] = chunk;
            starts[c] = at;
        }
        return new EncodedRows(chunks, -1, starts);
    }

    private static int encodeEvent(
        final RowWriter writer, final UnsafeBuffer buffer, final int offset, final int capacity, final boolean flat,
        final EventTape tape, final int i)
    {
        final byte type = tape.type(i);
        if (type != EventTape.TYPE_LEFT && type != EventTape.TYPE_RIGHT)
        {
            return 0;
        }
        return W8.encode(writer, buffer, offset, capacity, flat, type, tape.key(i), tape.f1(i), tape.ts(i));
    }

    private static int encodeOne(
        final RowWriter writer, final UnsafeBuffer buffer, final int offset, final int capacity, final int side,
        final long key, final long ts, final long f1, final byte[] f3)
    {
        final long f2 = RowPayload.f2(key, side);
        RowPayload.f3(f2, f1, f3);
        return writer.wrap(buffer, offset, capacity, FIELDS.length)
            .putLong(KEY, key)
            .putLong(TS, ts)
            .putLong(F1, f1)
            .putLong(F2, f2)
            .putUtf8(F3, f3, 0, f3.length)
            .finish();
    }

    /** @return the length of every encoded row; -1 when they differ (W8: {@link #length(int)}) */
    public int rowLength()
    {
        return rowLength;
    }

    /**
     * @param i tape index of a row
     * @return its length
     */
    public int length(final int i)
    {
        if (starts == null)
        {
            return rowLength;
        }
        final int[] at = starts[i / CHUNK_ROWS];
        final int r = i % CHUNK_ROWS;
        return at[r + 1] - at[r];
    }

    /**
     * @param i tape index of a row
     * @return the buffer holding it
     */
    public UnsafeBuffer buffer(final int i)
    {
        return chunks[i / CHUNK_ROWS];
    }

    /**
     * @param i tape index of a row
     * @return where it starts in {@link #buffer(int)}
     */
    public int offset(final int i)
    {
        return starts == null ? (i % CHUNK_ROWS) * rowLength : starts[i / CHUNK_ROWS][i % CHUNK_ROWS];
    }

    /** @return bytes held */
    public long bytes()
    {
        long total = 0;
        for (final UnsafeBuffer chunk : chunks)
        {
            total += chunk.capacity();
        }
        return total;
    }
}
