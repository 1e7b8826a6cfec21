package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A multi-way join's output record value in the default encoding ({@link ResultEncoder#binary}), read back:
 * for consumers of the output topic and tests. Big-endian:
 * <pre>
 *   +---------+----------+-------------------------------------------+----------+
 *   | kind u8 | count u8 | count x (length i32|-1, row bytes)        | ts i64   |
 *   +---------+----------+-------------------------------------------+----------+
 *   kind: the ChangeKind's ordinal (0 +I, 3 -D: a multi-way join's changelog is minimal, SEMANTICS 10);
 *   count: the join's inputs; one length and row per input in the spec's order, -1: that input is padded.
 * </pre>
 * Immutable; allocates.
 */
public final class BinaryMultiResult
{
    /** Bytes of a value besides its rows and their lengths: kind, count, timestamp. */
    public static final int HEADER_BYTES = Byte.BYTES + Byte.BYTES + Long.BYTES;

    private final ChangeKind kind;
    private final byte[][] rows;
    private final long timestamp;

    private BinaryMultiResult(final ChangeKind kind, final byte[][] rows, final long timestamp)
    {
        this.kind = kind;
        this.rows = rows;
        this.timestamp = timestamp;
    }

    /**
     * @param value an output record's value.
     * @return the result it holds.
     * @throws IllegalArgumentException when the bytes are not a multi-way value of the binary encoding.
     */
    public static BinaryMultiResult parse(final byte[] value)
    {
        try
        {
            final ByteBuffer in = ByteBuffer.wrap(value);
            final ChangeKind kind = BinaryResult.getKind(in);
            final int count = in.get() & 0xFF;
            final byte[][] rows = new byte[count][];
            for (int i = 0; i < count; i++)
            {
                final int length = in.getInt();
                if (length != -1)
                {
                    rows[i] = new byte[length];
                    in.get(rows[i]);
                }
            }
            return new BinaryMultiResult(kind, rows, BinaryResult.getLastTimestamp(in));
        }
        catch (final BufferUnderflowException | IndexOutOfBoundsException | NegativeArraySizeException e)
        {
            throw new IllegalArgumentException("not a binary multi-way join result: " + value.length + " bytes", e);
        }
    }

    /** @return the result's change kind. */
    public ChangeKind kind()
    {
        return kind;
    }

    /** @return the number of inputs. */
    public int inputs()
    {
        return rows.length;
    }

    /**
     * @param input an input's index.
     * @return that input's row bytes (a copy), or null when padded.
     */
    public byte[] row(final int input)
    {
        return rows[input] == null ? null : rows[input].clone();
    }

    /**
     * @param input an input's index.
     * @return a view of that input's row, or null when padded.
     */
    public RowView view(final int input)
    {
        final byte[] row = rows[input];
        return row == null ? null : new RowView().wrap(new UnsafeBuffer(row), 0, row.length);
    }

    /** @return the result's event time, ms. */
    public long timestamp()
    {
        return timestamp;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof BinaryMultiResult other && kind == other.kind && timestamp == other.timestamp &&
            Arrays.deepEquals(rows, other.rows);
    }

    @Override
    public int hashCode()
    {
        return (kind.hashCode() * 31 + Long.hashCode(timestamp)) * 31 + Arrays.deepHashCode(rows);
    }

    @Override
    public String toString()
    {
        final StringBuilder b = new StringBuilder(kind.shortString());
        for (int i = 0; i < rows.length; i++)
        {
            b.append(' ').append(i).append('=').append(rows[i] == null ? "null" : view(i));
        }
        return b.append(" ts=").append(timestamp).toString();
    }
}
