package io.junction.kafka;

import org.agrona.MutableDirectBuffer;

/** Values that are binary rows already: copied as they are (the runner skips even the copy). */
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

    @Override
    public String toString()
    {
        return "binary";
    }
}
