package io.junction.tools.workload;

/**
 * The workload checksum of WORKLOADS.md: {@code h = 0; for each row e in order: h = h*31 + key*7 + ts*3 + side}
 * (64-bit wrapping, left = 0, right = 1), printed as 16 lowercase hex digits. Watermarks and the end of input
 * do not enter the checksum.
 * <p>
 * Not thread safe: owned by the thread feeding it.
 * <p>
 * Reproducing the table's checksum proves a generator emits the same rows in the same global order as the
 * sequence the peer engines were measured on.
 */
public final class Checksum implements WorkloadSink {
    private long h;
    private long left;
    private long right;
    private long watermarks;
    private boolean ended;

    @Override
    public void row(final int side, final long key, final long ts, final long f1) {
        h = h * 31 + key * 7 + ts * 3 + side;
        if (side == LEFT) {
            left++;
        } else {
            right++;
        }
    }

    @Override
    public void watermark(final long watermark) {
        watermarks++;
    }

    @Override
    public void end() {
        ended = true;
    }

    /** @return the checksum value */
    public long value() {
        return h;
    }

    /** @return the checksum as 16 lowercase hex digits, zero padded */
    public String hex() {
        return hex16(h);
    }

    /** @return rows of both sides */
    public long events() {
        return left + right;
    }

    /** @return left rows */
    public long left() {
        return left;
    }

    /** @return right rows */
    public long right() {
        return right;
    }

    /** @return watermarks received (end of input not included) */
    public long watermarks() {
        return watermarks;
    }

    /** @return whether {@link #end()} was called */
    public boolean ended() {
        return ended;
    }

    /**
     * @param v a value
     * @return v as 16 lowercase hex digits, zero padded (two's complement for negatives)
     */
    public static String hex16(final long v) {
        final String s = Long.toHexString(v);
        return "0000000000000000".substring(s.length()) + s;
    }

    @Override
    public String toString() {
        return "events=" + events() + " left=" + left + " right=" + right + " checksum=" + hex();
    }
}
