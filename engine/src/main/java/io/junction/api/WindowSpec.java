package io.junction.api;

/**
 * Event-time windows of a window join (SEMANTICS 6): tumbling {@code [start, start + size)} on
 * multiples of size plus offset; sliding windows of {@code size} every {@code slide}; session windows
 * that merge rows at most {@code gap} apart. Immutable, validated on construction.
 */
public final class WindowSpec
{
    /** The window families. */
    public enum Kind
    {
        /** Fixed-size windows that do not overlap. */
        TUMBLING,
        /** Fixed-size windows that start every {@code slide} ms and may overlap. */
        SLIDING,
        /** Per-key windows that grow while rows keep arriving at most {@code gap} ms apart. */
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

    /**
     * @param size   window length, ms, &gt; 0.
     * @param offset shift of the window starts, ms.
     * @return tumbling windows of {@code size} ms starting at multiples of size plus {@code offset}.
     * @throws IllegalArgumentException when {@code size} is not positive.
     */
    public static WindowSpec tumbling(final long size, final long offset)
    {
        if (size <= 0)
        {
            throw new IllegalArgumentException("window.size must be > 0: " + size);
        }
        return new WindowSpec(Kind.TUMBLING, size, size, Math.floorMod(offset, size), 0);
    }

    /**
     * @param size   window length, ms, &gt; 0.
     * @param slide  distance between window starts, ms, &gt; 0.
     * @param offset shift of the window starts, ms.
     * @return sliding windows of {@code size} ms every {@code slide} ms.
     * @throws IllegalArgumentException when {@code size} or {@code slide} is not positive, or a row would
     *         be in more than {@link #MAX_WINDOWS_PER_ROW} windows.
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

    /**
     * @param gap the longest distance between two rows of one session, ms, &gt; 0.
     * @return session windows closing after {@code gap} ms without a row of the key.
     * @throws IllegalArgumentException when {@code gap} is not positive.
     */
    public static WindowSpec session(final long gap)
    {
        if (gap <= 0)
        {
            throw new IllegalArgumentException("window.gap must be > 0: " + gap);
        }
        return new WindowSpec(Kind.SESSION, 0, 0, 0, gap);
    }

    /** @return the window family. */
    public Kind kind()
    {
        return kind;
    }

    /** @return the window length in ms (tumbling, sliding); 0 for sessions. */
    public long size()
    {
        return size;
    }

    /** @return the distance between window starts in ms (equal to size for tumbling); 0 for sessions. */
    public long slide()
    {
        return slide;
    }

    /** @return the shift of the window starts in ms, reduced modulo the slide; 0 for sessions. */
    public long offset()
    {
        return offset;
    }

    /** @return the session gap in ms; 0 for tumbling and sliding windows. */
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
