package io.junction.testing;

import io.junction.api.ChangeKind;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Records every output as an immutable {@link Output}: the rows are decoded (copied) during the call. */
public final class CollectingResultHandler implements ResultHandler
{
    private final Schema leftSchema;
    private final Schema rightSchema;
    private final List<Output> outputs = new ArrayList<>();

    public CollectingResultHandler(final Schema leftSchema, final Schema rightSchema)
    {
        this.leftSchema = leftSchema;
        this.rightSchema = rightSchema;
    }

    @Override
    public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
    {
        outputs.add(new Output(kind, Rows.decode(leftSchema, left), Rows.decode(rightSchema, right), timestamp, step));
    }

    /** A window coGroup's computed row: recorded by its input rows (the computed row is the listener's to read). */
    @Override
    public void onCoGroupResult(
        final RowView left, final RowView right, final RowView row, final long windowStart, final long windowEnd, final long step)
    {
        outputs.add(new Output(ChangeKind.INSERT, Rows.decode(leftSchema, left), Rows.decode(rightSchema, right), windowEnd - 1, step));
    }

    /** @return every output so far, in order (unmodifiable view). */
    public List<Output> outputs()
    {
        return Collections.unmodifiableList(outputs);
    }

    /** @return the outputs from index {@code from} on, copied. */
    public List<Output> since(final int from)
    {
        return List.copyOf(outputs.subList(from, outputs.size()));
    }

    /** @return how many outputs were recorded. */
    public int size()
    {
        return outputs.size();
    }

    public void clear()
    {
        outputs.clear();
    }
}
