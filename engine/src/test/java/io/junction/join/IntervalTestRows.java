package io.junction.join;

import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * Rows for the interval join tests: schema {@code k, id, v}. {@code k} is the join key, {@code id} a
 * label that identifies the row in assertions, {@code v} a value for filters and conditions. Every row
 * gets its own buffer, so a row stays valid for as long as the test holds it.
 */
final class IntervalTestRows
{
    /** A field value meaning "the row does not hold this field". */
    static final Object ABSENT = new Object()
    {
        @Override
        public String toString()
        {
            return "<absent>";
        }
    };

    static final Schema SCHEMA = Schema.of("k", "id", "v");
    static final int K = 0;
    static final int ID = 1;
    static final int V = 2;

    private IntervalTestRows()
    {
    }

    /** @return a row with key {@code k} (Long/Integer, String, Boolean, null or {@link #ABSENT}), label id and no v. */
    static RowView row(final Object k, final String id)
    {
        return row(k, id, ABSENT);
    }

    /** @return a row with key {@code k}, label {@code id} and value {@code v}. */
    static RowView row(final Object k, final String id, final Object v)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        final RowWriter writer = new RowWriter().wrap(buffer, 0, buffer.capacity(), 3);
        put(writer, K, k);
        put(writer, ID, id);
        put(writer, V, v);
        final int length = writer.finish();
        if (length < 0)
        {
            throw new IllegalStateException("row does not fit");
        }
        return new RowView().wrap(buffer, 0, length);
    }

    private static void put(final RowWriter writer, final int field, final Object value)
    {
        if (value == ABSENT)
        {
            return;
        }
        if (value == null)
        {
            writer.putNull(field);
        }
        else if (value instanceof Long || value instanceof Integer)
        {
            writer.putLong(field, ((Number)value).longValue());
        }
        else if (value instanceof Double)
        {
            writer.putDouble(field, (Double)value);
        }
        else if (value instanceof Boolean)
        {
            writer.putBoolean(field, (Boolean)value);
        }
        else if (value instanceof byte[])
        {
            // A string's bytes as they are (keys crafted to collide need not be valid UTF-8).
            writer.putUtf8(field, (byte[])value, 0, ((byte[])value).length);
        }
        else
        {
            writer.putString(field, value.toString());
        }
    }

    /** @return the label of a row handed to a handler, or null for a padded side. */
    static String idOf(final RowView row)
    {
        if (row == null)
        {
            return null;
        }
        return row.isNull(ID) ? "<no id>" : row.getString(ID);
    }
}
