package io.junction.api;

/**
 * Event-time windows of a window join (SPEC 2.3): tumbling {@code [start, start + size)} on
 * multiples of size plus offset; sliding windows of {@code size} every {@code slide}; session windows
 * that merge rows at most {@code gap} apart. Immutable, validated on construction.
 */
public final class WindowSpec
{
    /** The window families. */
    public enum Kind
    {
        TUMBLING,
        SLIDING,
        SESSION
    }

    /**
     * The most windows one row may belong to: a sliding window needs {@code ceil(size / slide)} at most
     * this. A row is stored (or, with a null key, padded) once per window, so this bounds the state and
     * the output one row can cause.
     */
    public static final int MAX_WINDOWS_PER_ROW = 1000;

    private final Kind kind;
    private final long size;
    private final long slide;
    private final long offset;
    private final long gap;

    private WindowSpec(final Kind kind, final long size, final long slide, final long offset, final long gap)
    {
        this.kind = kind;
        this.size = size;
        this.slide = slide;
        this.offset = offset;
        this.gap = gap;
    }

    /** @return tumbling windows of {@code size} ms starting at multiples of size plus {@code offset}. */
    public static WindowSpec tumbling(final long size, final long offset)
    {
        if (size <= 0)
        {
            throw new IllegalArgumentException("window.size must be > 0: " + size);
        }
        return new WindowSpec(Kind.TUMBLING, size, size, Math.floorMod(offset, size), 0);
    }

    /**
     * @return sliding windows of {@code size} ms every {@code slide} ms.
     * @throws IllegalArgumentException when a row would be in more than {@link #MAX_WINDOWS_PER_ROW} windows.
     */
    public static WindowSpec sliding(final long size, final long slide, final long offset)
    {
        if (size <= 0 || slide <= 0)
        {
            throw new IllegalArgumentException("window.size and window.slide must be > 0: size=" + size + " slide=" + slide);
        }
        if ((size - 1) / slide >= MAX_WINDOWS_PER_ROW)
        {
            throw new IllegalArgumentException("window.slide: a sliding window puts a row in up to ceil(size / slide) windows, " +
                "at most " + MAX_WINDOWS_PER_ROW + ": size=" + size + " slide=" + slide + " gives " +
                ((size - 1) / slide + 1) + " (raise window.slide or lower window.size)");
        }
        return new WindowSpec(Kind.SLIDING, size, slide, Math.floorMod(offset, slide), 0);
    }

    /** @return session windows closing after {@code gap} ms without a row of the key. */
    public static WindowSpec session(final long gap)
    {
        if (gap <= 0)
        {
            throw new IllegalArgumentException("window.gap must be > 0: " + gap);
        }
        return new WindowSpec(Kind.SESSION, 0, 0, 0, gap);
    }

    public Kind kind()
    {
        return kind;
    }

    public long size()
    {
        return size;
    }

    public long slide()
    {
        return slide;
    }

    public long offset()
    {
        return offset;
    }

    public long gap()
    {
        return gap;
    }

    @Override
    public String toString()
    {
        switch (kind)
        {
            case TUMBLING:
                return "tumbling(size=" + size + ", offset=" + offset + ")";
            case SLIDING:
                return "sliding(size=" + size + ", slide=" + slide + ", offset=" + offset + ")";
            default:
                return "session(gap=" + gap + ")";
        }
    }
}
