package io.junction.api;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects results as {@link Row} objects: for tests, examples and small tools. Copies each row
 * during the call (the flyweights are only valid then). Thread safe: one instance may serve every
 * partition. Allocates per result: not for hot paths.
 */
public final class CollectingResultHandler implements ResultHandler
{
    /**
     * One collected result; {@code left}/{@code right} are null for a padded side; {@code row} is a window
     * coGroup's computed row ({@link ResultHandler#onCoGroupResult}), else null.
     *
     * @param kind        the change kind.
     * @param left        the left row, or null.
     * @param right       the right row, or null.
     * @param timestamp   the result's event time (a window's last instant for window results).
     * @param step        the input step that produced it.
     * @param windowStart the window's start, or {@link #NO_WINDOW}.
     * @param windowEnd   the window's end, or {@link #NO_WINDOW}.
     * @param row         the computed row, or null.
     */
    public record Result(ChangeKind kind, Row left, Row right, long timestamp, long step, long windowStart, long windowEnd, Row row)
    {
        /** @return true for {@code +I}/{@code +U}. */
        public boolean isAccumulate()
        {
            return kind.isAccumulate();
        }
    }

    /** {@link Result#windowStart()} and {@link Result#windowEnd()} of results that have no window. */
    public static final long NO_WINDOW = Long.MIN_VALUE;

    private final Schema leftSchema;
    private final Schema rightSchema;
    private final Schema coGroupSchema;
    private final List<Result> results = new ArrayList<>();

    /** @param spec the join whose schemas name the fields. */
    public CollectingResultHandler(final JoinSpec spec)
    {
        this.leftSchema = spec.leftSchema();
        this.rightSchema = spec.rightSchema();
        this.coGroupSchema = spec.coGroupSchema();
    }

    @Override
    public synchronized void onResult(
        final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        results.add(new Result(kind, decode(leftSchema, left), decode(rightSchema, right), timestamp, step, NO_WINDOW, NO_WINDOW, null));
    }

    @Override
    public synchronized void onWindowResult(
        final ChangeKind kind, final RowView left, final RowView right, final long windowStart, final long windowEnd,
        final long step)
    {
        results.add(new Result(kind, decode(leftSchema, left), decode(rightSchema, right), windowEnd - 1, step,
            windowStart, windowEnd, null));
    }

    @Override
    public synchronized void onCoGroupResult(
        final RowView left, final RowView right, final RowView row, final long windowStart, final long windowEnd,
        final long step)
    {
        results.add(new Result(ChangeKind.INSERT, decode(leftSchema, left), decode(rightSchema, right), windowEnd - 1, step,
            windowStart, windowEnd, decode(coGroupSchema, row)));
    }

    private static Row decode(final Schema schema, final RowView view)
    {
        return view == null ? null : RowCodec.decode(schema, view);
    }

    /** @return a copy of what was collected so far, in arrival order (per partition). */
    public synchronized List<Result> results()
    {
        return new ArrayList<>(results);
    }

    /** Forgets what was collected. */
    public synchronized void clear()
    {
        results.clear();
    }
}
