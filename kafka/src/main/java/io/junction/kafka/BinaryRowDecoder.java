package io.junction.kafka;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Values that are binary rows already: copied as they are by {@link #decode}, read in place by {@link #decodeInto}. */
final class BinaryRowDecoder implements RowDecoder
{
    static final BinaryRowDecoder INSTANCE = new BinaryRowDecoder();

    private BinaryRowDecoder()
    {
    }

    @Override
    public int decode(final byte[] value, final MutableDirectBuffer out)
    {
        if (value.length > out.capacity())
        {
            return MALFORMED;
        }
        out.putBytes(0, value);
        return value.length;
    }

    /** The row is the value itself: no copy (the engine validates it; one too large is a dead letter there). */
    @Override
    public int decodeInto(final byte[] value, final DirectBuffer row, final MutableDirectBuffer scratch)
    {
        row.wrap(value);
        return value.length;
    }

    @Override
    public String toString()
    {
        return "binary";
    }
}
