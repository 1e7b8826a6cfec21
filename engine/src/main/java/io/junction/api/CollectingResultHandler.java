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
    /** One collected result; {@code left}/{@code right} are null for a padded side. */
    public record Result(ChangeKind kind, Row left, Row right, long timestamp, long step, long windowStart, long windowEnd)
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
    private final List<Result> results = new ArrayList<>();

    /** @param spec the join whose schemas name the fields. */
    public CollectingResultHandler(final JoinSpec spec)
    {
        this.leftSchema = spec.leftSchema();
        this.rightSchema = spec.rightSchema();
    }

    @Override
    public synchronized void onResult(
        final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        results.add(new Result(kind, decode(leftSchema, left), decode(rightSchema, right), timestamp, step, NO_WINDOW, NO_WINDOW));
    }

    @Override
    public synchronized void onWindowResult(
        final ChangeKind kind, final RowView left, final RowView right, final long windowStart, final long windowEnd,
        final long step)
    {
        results.add(new Result(kind, decode(leftSchema, left), decode(rightSchema, right), windowEnd - 1, step,
            windowStart, windowEnd));
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
