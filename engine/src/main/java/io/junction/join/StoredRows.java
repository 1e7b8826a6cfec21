package io.junction.join;

import io.junction.api.RowView;
import io.junction.internal.state.RowStore;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Row views over the records of a {@link RowStore}: the state hands out row bytes, the operators read them through
 * the api's flyweight (the state may not import the api: docs/ARCHITECTURE.md, "Layering"). Allocation-free.
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class StoredRows
{
    private StoredRows()
    {
    }

    /**
     * Points {@code view} at a record's row through {@code buffer}, which the view then references: use one buffer
     * per view that must stay valid at the same time.
     *
     * @return the view.
     */
    static RowView wrap(final long record, final UnsafeBuffer buffer, final RowView view)
    {
        return view.wrap(buffer, 0, RowStore.wrapRow(record, buffer));
    }
}
