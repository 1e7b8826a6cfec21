package io.junction.tools.workload;

/**
 * The derived 48-byte row payload of WORKLOADS.md ("Rows"): {@code f1} (8 B), {@code f2} (8 B), {@code f3} (32 B).
 * <pre>
 *  0        8        16                                48
 *  +--------+--------+---------------------------------+
 *  |   f1   |   f2   | f3 = hex16(f2) ++ hex16(f1)     |
 *  +--------+--------+---------------------------------+
 *   big-endian longs   32 lowercase ASCII hex chars
 * </pre>
 * {@code f2 = key * 1_000_003 + side} (wrapping); hex digits are zero padded to 16 and negative values are
 * written in two's complement. This is the Kafka value layout; other peers carry the same three columns
 * in their own row format. Nothing here allocates.
 */
public final class RowPayload
{
    /** Payload bytes: f1, f2, f3. */
    public static final int LENGTH = 48;
    /** Offset of f1 in the payload. */
    public static final int F1_OFFSET = 0;
    /** Offset of f2 in the payload. */
    public static final int F2_OFFSET = 8;
    /** Offset of f3 in the payload. */
    public static final int F3_OFFSET = 16;
    /** Length of f3 in bytes (ASCII chars). */
    public static final int F3_LENGTH = 32;
    /** The multiplier of f2. */
    public static final long F2_MULTIPLIER = 1_000_003L;

    private static final byte[] HEX = {
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'
    };

    private RowPayload()
    {
    }

    /**
     * @param key  join key
     * @param side {@link WorkloadSink#LEFT} or {@link WorkloadSink#RIGHT}
     * @return {@code key * 1_000_003 + side}, wrapping
     */
    public static long f2(final long key, final int side)
    {
        return key * F2_MULTIPLIER + side;
    }

    /**
     * Writes f3 into {@code dst[0 .. 32)}.
     *
     * @param f2    the row's f2
     * @param f1    the row's f1
     * @param dst32 at least 32 bytes
     */
    public static void f3(final long f2, final long f1, final byte[] dst32)
    {
        f3(f2, f1, dst32, 0);
    }

    /**
     * Writes f3 = hex16(f2) ++ hex16(f1) as 32 lowercase ASCII hex chars into {@code dst[offset .. offset + 32)}.
     *
     * @param f2     the row's f2
     * @param f1     the row's f1
     * @param dst    destination
     * @param offset first byte written
     */
    public static void f3(final long f2, final long f1, final byte[] dst, final int offset)
    {
        hex16(f2, dst, offset);
        hex16(f1, dst, offset + 16);
    }

    /**
     * Writes 16 lowercase hex digits of {@code v} (zero padded, two's complement) into {@code dst[offset .. offset + 16)}.
     *
     * @param v      value
     * @param dst    destination
     * @param offset first byte written
     */
    public static void hex16(final long v, final byte[] dst, final int offset)
    {
        for (int i = 15; i >= 0; i--)
        {
            dst[offset + i] = HEX[(int) (v >>> ((15 - i) << 2)) & 0xF];
        }
    }

    /**
     * Writes f3 into a reusable {@link StringBuilder} (cleared first), for peers whose rows hold a string.
     *
     * @param f2 the row's f2
     * @param f1 the row's f1
     * @param sb destination, reset to length 0 then filled with 32 chars
     * @return sb
     */
    public static StringBuilder f3(final long f2, final long f1, final StringBuilder sb)
    {
        sb.setLength(0);
        appendHex16(f2, sb);
        appendHex16(f1, sb);
        return sb;
    }

    private static void appendHex16(final long v, final StringBuilder sb)
    {
        for (int shift = 60; shift >= 0; shift -= 4)
        {
            sb.append((char) HEX[(int) (v >>> shift) & 0xF]);
        }
    }

    /**
     * Writes the whole 48-byte payload {@code f1 | f2 | f3} (longs big-endian) into {@code dst[offset .. offset + 48)}.
     *
     * @param key    join key
     * @param side   {@link WorkloadSink#LEFT} or {@link WorkloadSink#RIGHT}
     * @param f1     the row's sequence number within its side
     * @param dst    destination
     * @param offset first byte written
     */
    public static void write(final long key, final int side, final long f1, final byte[] dst, final int offset)
    {
        final long f2 = f2(key, side);
        putLongBigEndian(f1, dst, offset + F1_OFFSET);
        putLongBigEndian(f2, dst, offset + F2_OFFSET);
        f3(f2, f1, dst, offset + F3_OFFSET);
    }

    /**
     * @param v      value
     * @param dst    destination
     * @param offset first of the 8 bytes written, most significant first
     */
    public static void putLongBigEndian(final long v, final byte[] dst, final int offset)
    {
        for (int i = 0; i < 8; i++)
        {
            dst[offset + i] = (byte) (v >>> (56 - (i << 3)));
        }
    }
}
