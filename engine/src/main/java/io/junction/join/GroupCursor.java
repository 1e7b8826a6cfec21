package io.junction.join;

import io.junction.api.RowCursor;
import io.junction.api.RowView;
import io.junction.internal.state.RowDescriptor;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A {@link RowCursor} over stored records {@code records[from, to)}: one side's rows of a coGroup call.
 * Wrapped anew for each call and cleared after it, so a cursor kept past its call holds nothing.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class GroupCursor implements RowCursor
{
    private static final long[] NONE = new long[0];

    private final RowView view = new RowView();
    private final UnsafeBuffer buffer = new UnsafeBuffer(0, 0);
    private long[] records = NONE;
    private int from;
    private int to;
    private int position;
    /** The record under the cursor, 0 when none. */
    private long current;

    /** Points the cursor at {@code records[from, to)}, before the first. */
    void wrap(final long[] records, final int from, final int to)
    {
        this.records = records;
        this.from = from;
        this.to = to;
        this.position = from - 1;
        this.current = 0;
    }

    /** Empties the cursor: the call it served has returned. */
    void clear()
    {
        wrap(NONE, 0, 0);
    }

    /** @return the record under the cursor, 0 when none. */
    long record()
    {
        return current;
    }

    @Override
    public int count()
    {
        return to - from;
    }

    @Override
    public boolean next()
    {
        if (position + 1 >= to)
        {
            position = to;
            current = 0;
            return false;
        }
        current = records[++position];
        StoredRows.wrap(current, buffer, view);
        return true;
    }

    @Override
    public RowView row()
    {
        requireRow();
        return view;
    }

    @Override
    public long ts()
    {
        requireRow();
        return RowDescriptor.ts(current);
    }

    @Override
    public void reset()
    {
        position = from - 1;
        current = 0;
    }

    private void requireRow()
    {
        if (current == 0)
        {
            throw new IllegalStateException("the cursor is not on a row: call next() first (and only during the call)");
        }
    }

    @Override
    public String toString()
    {
        return "RowCursor{" + count() + " rows}";
    }
}
