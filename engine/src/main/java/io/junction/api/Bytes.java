package io.junction.api;

import org.agrona.DirectBuffer;

/**
 * Byte-range equality and unsigned lexicographic order for the api's own flyweights ({@link RowView#contentEquals},
 * {@link Literal#compareUtf8}), allocation-free. The api imports nothing of the engine's internals
 * (docs/ARCHITECTURE.md, "Layering"), so it keeps these few loops itself; the engine's
 * {@code internal.row.BufferCompare} computes the same results for the operators.
 */
final class Bytes
{
    private Bytes()
    {
    }

    /** @return true when the two ranges hold the same bytes. */
    static boolean equals(final DirectBuffer a, final int aOffset, final DirectBuffer b, final int bOffset, final int length)
    {
        int i = 0;
        for (; i + 8 <= length; i += 8)
        {
            if (a.getLong(aOffset + i) != b.getLong(bOffset + i))
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (a.getByte(aOffset + i) != b.getByte(bOffset + i))
            {
                return false;
            }
        }
        return true;
    }

    /** @return the unsigned lexicographic order of a buffer range and an array (UTF-8 order is code point order). */
    static int compare(final DirectBuffer a, final int aOffset, final int aLength, final byte[] b)
    {
        final int n = Math.min(aLength, b.length);
        for (int i = 0; i < n; i++)
        {
            final int x = a.getByte(aOffset + i) & 0xFF;
            final int y = b[i] & 0xFF;
            if (x != y)
            {
                return x < y ? -1 : 1;
            }
        }
        return Integer.compare(aLength, b.length);
    }
}
