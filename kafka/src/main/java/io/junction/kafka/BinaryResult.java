package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * An output record's value in the default encoding ({@link ResultEncoder#binary}), read back: for
 * consumers of the output topic and tests. Immutable; allocates.
 */
public final class BinaryResult
{
    /** Bytes of a value besides its rows: kind, two lengths, timestamp. */
    public static final int HEADER_BYTES = Byte.BYTES + Integer.BYTES + Integer.BYTES + Long.BYTES;

    private final ChangeKind kind;
    private final byte[] left;
    private final byte[] right;
    private final long timestamp;

    private BinaryResult(final ChangeKind kind, final byte[] left, final byte[] right, final long timestamp)
    {
        this.kind = kind;
        this.left = left;
        this.right = right;
        this.timestamp = timestamp;
    }

    /**
     * @param value an output record's value.
     * @return the result it holds.
     * @throws IllegalArgumentException when the bytes are not a value of the binary encoding.
     */
    public static BinaryResult parse(final byte[] value)
    {
        try
        {
            final ByteBuffer in = ByteBuffer.wrap(value);
            final ChangeKind kind = getKind(in);
            final byte[] left = getRow(in);
            final byte[] right = getRow(in);
            return new BinaryResult(kind, left, right, getLastTimestamp(in));
        }
        catch (final BufferUnderflowException | IndexOutOfBoundsException | NegativeArraySizeException e)
        {
            throw new IllegalArgumentException("not a binary join result: " + value.length + " bytes", e);
        }
    }

    /**
     * The change kind a value of the binary encoding starts with (this one's or {@link BinaryMultiResult}'s).
     *
     * @throws IllegalArgumentException when the byte is no change kind's ordinal.
     */
    static ChangeKind getKind(final ByteBuffer in)
    {
        final int kind = in.get();
        if (kind < 0 || kind >= ChangeKind.values().length)
        {
            throw new IllegalArgumentException("unknown change kind " + kind);
        }
        return ChangeKind.fromOrdinal(kind);
    }

    /**
     * The timestamp a value of the binary encoding ends with (this one's or {@link BinaryMultiResult}'s).
     *
     * @throws IllegalArgumentException when bytes follow it.
     */
    static long getLastTimestamp(final ByteBuffer in)
    {
        final long timestamp = in.getLong();
        if (in.hasRemaining())
        {
            throw new IllegalArgumentException(in.remaining() + " bytes after the timestamp");
        }
        return timestamp;
    }

    private static byte[] getRow(final ByteBuffer in)
    {
        final int length = in.getInt();
        if (length == -1)
        {
            return null;
        }
        final byte[] row = new byte[length];
        in.get(row);
        return row;
    }

    /** @return the result's change kind. */
    public ChangeKind kind()
    {
        return kind;
    }

    /** @return the left row's bytes (a copy), or null when padded. */
    public byte[] left()
    {
        return left == null ? null : left.clone();
    }

    /** @return the right row's bytes (a copy), or null when padded. */
    public byte[] right()
    {
        return right == null ? null : right.clone();
    }

    /** @return a view of the left row, or null when padded. */
    public RowView leftView()
    {
        return left == null ? null : new RowView().wrap(new UnsafeBuffer(left), 0, left.length);
    }

    /** @return a view of the right row, or null when padded. */
    public RowView rightView()
    {
        return right == null ? null : new RowView().wrap(new UnsafeBuffer(right), 0, right.length);
    }

    /** @return the result's event time, ms. */
    public long timestamp()
    {
        return timestamp;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof BinaryResult other && kind == other.kind && timestamp == other.timestamp &&
            Arrays.equals(left, other.left) && Arrays.equals(right, other.right);
    }

    @Override
    public int hashCode()
    {
        return ((kind.hashCode() * 31 + Long.hashCode(timestamp)) * 31 + Arrays.hashCode(left)) * 31 + Arrays.hashCode(right);
    }

    @Override
    public String toString()
    {
        return kind.shortString() + " left=" + (left == null ? "null" : leftView()) + " right=" +
            (right == null ? "null" : rightView()) + " ts=" + timestamp;
    }
}
