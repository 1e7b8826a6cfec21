package io.junction.internal.state;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Equality of byte ranges in off-heap memory (a stored record's key or row bytes), a word at a time and
 * allocation-free: the one loop {@link RowStore} and {@link MultiRowStore} compare their records' bytes with.
 * Stateless: any thread.
 */
final class NativeBytes
{
    private NativeBytes()
    {
    }

    /** @return true when the {@code length} bytes at address {@code x} equal those at address {@code y}. */
    static boolean equal(final long x, final long y, final int length)
    {
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            if (UnsafeApi.getLong(x + i) != UnsafeApi.getLong(y + i))
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (UnsafeApi.getByte(x + i) != UnsafeApi.getByte(y + i))
            {
                return false;
            }
        }
        return true;
    }

    /** @return true when the {@code length} bytes at {@code address} equal {@code buffer}'s from {@code offset}. */
    static boolean equal(final long address, final DirectBuffer buffer, final int offset, final int length)
    {
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES)
        {
            if (UnsafeApi.getLong(address + i) != buffer.getLong(offset + i))
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (UnsafeApi.getByte(address + i) != buffer.getByte(offset + i))
            {
                return false;
            }
        }
        return true;
    }
}
