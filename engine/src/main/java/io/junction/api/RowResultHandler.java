package io.junction.api;

/**
 * The typed result handler: each result's rows decoded into {@link Row}s by their sides' schemas, for
 * users who prefer objects to flyweights ({@link ResultHandler} is the allocation-free fast path it
 * wraps). Build the {@link ResultHandler} the engine takes with {@link #of(JoinSpec, RowResultHandler)}:
 * <pre>{@code
 * JoinEngine.builder(spec).resultHandler(RowResultHandler.of(spec, (kind, left, right, ts, step) -> ...))
 * }</pre>
 * A window result comes with {@code ts = windowEnd - 1} (as {@link ResultHandler#onWindowResult} by
 * default); a padded side is null. Allocates one {@link Row} per side per result.
 *
 * <p>Called on the partition thread that produced the result: with several partitions, give each its
 * own ({@code resultHandlers(p -> ...)}) or make it thread safe.
 */
@FunctionalInterface
public interface RowResultHandler
{
    /**
     * @param kind  the result's change kind.
     * @param left  the left row, or null when padded.
     * @param right the right row, or null when padded.
     * @param ts    the result's event time, ms.
     * @param step  the step of the input event that caused it.
     */
    void onResult(ChangeKind kind, Row left, Row right, long ts, long step);

    /**
     * @param spec    the join whose schemas decode the rows.
     * @param handler the typed handler.
     * @return a {@link ResultHandler} that decodes each result and calls {@code handler}.
     */
    static ResultHandler of(final JoinSpec spec, final RowResultHandler handler)
    {
        final Schema left = spec.leftSchema();
        final Schema right = spec.rightSchema();
        return (kind, l, r, ts, step) -> handler.onResult(kind,
            l == null ? null : RowCodec.decode(left, l), r == null ? null : RowCodec.decode(right, r), ts, step);
    }
}
