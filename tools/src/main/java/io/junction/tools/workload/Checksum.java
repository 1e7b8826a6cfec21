package io.junction.tools.workload;

/**
 * The workload checksum of WORKLOADS.md: {@code h = 0; for each row e in order: h = h*31 + key*7 + ts*3 + side + 2*kind}
 * (64-bit wrapping, left = 0, right = 1, kind = 0 for {@code +I}, 1 {@code -U}, 2 {@code +U}, 3 {@code -D}, so the
 * insert-only W1-W3 have {@code kind = 0} throughout), printed as 16 lowercase hex digits. Watermarks and the end
 * of input do not enter the checksum.
 * <p>
 * Not thread safe: owned by the thread feeding it.
 * <p>
 * Reproducing the table's checksum proves a generator emits the same rows in the same global order as the
 * sequence the peer engines were measured on.
 */
public final class Checksum implements WorkloadSink
{
    private long h;
    private long left;
    private long right;
    private long watermarks;
    private long retractions;
    private boolean ended;

    @Override
    public void row(final int side, final long key, final long ts, final long f1)
    {
        change(side, INSERT, key, ts, f1);
    }

    @Override
    public void change(final int side, final byte kind, final long key, final long ts, final long f1)
    {
        h = h * 31 + key * 7 + ts * 3 + side + 2 * kind;
        if (side == LEFT)
        {
            left++;
        }
        else
        {
            right++;
        }
        if (kind == UPDATE_BEFORE || kind == DELETE)
        {
            retractions++;
        }
    }

    @Override
    public void watermark(final long watermark)
    {
        watermarks++;
    }

    @Override
    public void end()
    {
        ended = true;
    }

    /** @return the checksum value */
    public long value()
    {
        return h;
    }

    /** @return the checksum as 16 lowercase hex digits, zero padded */
    public String hex()
    {
        return hex16(h);
    }

    /** @return rows of both sides */
    public long events()
    {
        return left + right;
    }

    /** @return left rows */
    public long left()
    {
        return left;
    }

    /** @return right rows */
    public long right()
    {
        return right;
    }

    /** @return rows of kind {@code -U} or {@code -D} (both sides; 0 for the insert-only W1-W3) */
    public long retractions()
    {
        return retractions;
    }

    /** @return watermarks received (end of input not included) */
    public long watermarks()
    {
        return watermarks;
    }

    /** @return whether {@link #end()} was called */
    public boolean ended()
    {
        return ended;
    }

    /**
     * @param v a value
     * @return v as 16 lowercase hex digits, zero padded (two's complement for negatives)
     */
    public static String hex16(final long v)
    {
        final String s = Long.toHexString(v);
        return "0000000000000000".substring(s.length()) + s;
    }

    @Override
    public String toString()
    {
        return "events=" + events() + " left=" + left + " right=" + right + " checksum=" + hex();
    }
}
