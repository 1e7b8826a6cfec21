package io.junction.tools.perf;

import io.junction.api.RowView;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Pre-encoded events in off-heap chunks, so that a load generator replays binary rows without
 * encoding or allocating while it drives. An entry is {@code [type u8][ts i64][length u16][row bytes]};
 * a watermark entry has no row.
 *
 * <p>Not thread safe: written, then read, by one thread.
 */
public final class RowTape
{
    public static final byte LEFT = 0;
    public static final byte RIGHT = 1;
    public static final byte WATERMARK = 2;
    private static final int HEADER = 11;
    private static final int CHUNK = 64 << 20;

    private final List<UnsafeBuffer> chunks = new ArrayList<>();
    private final List<Integer> limits = new ArrayList<>();
    private UnsafeBuffer current;
    private int position;
    private long entries;
    private long rows;

    /** Appends a row of one side. */
    public void row(final byte side, final long ts, final RowView row)
    {
        final int at = reserve(HEADER + row.length());
        current.putByte(at, side);
        current.putLong(at + 1, ts);
        current.putShort(at + 9, (short)row.length());
        current.putBytes(at + HEADER, row.buffer(), row.offset(), row.length());
        rows++;
    }

    /** Appends a watermark to both inputs. */
    public void watermark(final long watermark)
    {
        final int at = reserve(HEADER);
        current.putByte(at, WATERMARK);
        current.putLong(at + 1, watermark);
        current.putShort(at + 9, (short)0);
    }

    private int reserve(final int length)
    {
        if (current == null || position + length > current.capacity())
        {
            if (current != null)
            {
                limits.add(position);
            }
            current = new UnsafeBuffer(ByteBuffer.allocateDirect(CHUNK));
            chunks.add(current);
            position = 0;
        }
        final int at = position;
        position += length;
        entries++;
        return at;
    }

    /** @return entries, rows and watermarks. */
    public long entries()
    {
        return entries;
    }

    /** @return row entries. */
    public long rows()
    {
        return rows;
    }

    /** Receives replayed entries; the row view is valid during the call. */
    public interface Visitor
    {
        void onRow(byte side, long ts, RowView row, long index);

        void onWatermark(long watermark, long index);
    }

    /** Replays every entry in order. */
    public void replay(final Visitor visitor)
    {
        final RowView view = new RowView();
        long index = 0;
        for (int c = 0; c < chunks.size(); c++)
        {
            final UnsafeBuffer chunk = chunks.get(c);
            final int limit = chunk == current ? position : limits.get(c);
            int at = 0;
            while (at + HEADER <= limit)
            {
                final byte type = chunk.getByte(at);
                final long ts = chunk.getLong(at + 1);
                final int length = chunk.getShort(at + 9) & 0xFFFF;
                if (type == WATERMARK)
                {
                    visitor.onWatermark(ts, index++);
                }
                else
                {
                    visitor.onRow(type, ts, view.wrap(chunk, at + HEADER, length), index++);
                }
                at += HEADER + length;
            }
        }
    }
}
