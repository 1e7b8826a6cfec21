package io.junction.api;

/**
 * Where a {@link CoGroupFunction} emits. Each emitted result carries the window; it is one of:
 * <ul>
 *   <li>input rows ({@link #emit}): the rows under the two cursors, either one absent, reaching the
 *       result handler as a window join's output does, {@link ResultHandler#onWindowResult} (a pair,
 *       or a row padded with null);</li>
 *   <li>a computed row ({@link #row()}, then {@link #emitRow}), written with a {@link RowWriter} in the
 *       spec's coGroup output schema ({@link JoinSpec#coGroupSchema()}), optionally with the rows under
 *       the cursors, reaching the handler through {@link ResultHandler#onCoGroupResult}.</li>
 * </ul>
 * Results are held until the function returns and then emitted in order; if it throws, none are.
 * Allocation-free once its buffers have grown to the largest call. Valid only during the call; not thread safe.
 */
public interface CoGroupCollector
{
    /**
     * Emits the current rows of the two cursors: a pair, or one row with null on the other side.
     *
     * @param left  the call's left cursor, on a row; or null for no left row.
     * @param right the call's right cursor, on a row; or null for no right row.
     * @throws IllegalArgumentException when both are null, or a cursor is not one of the call's.
     * @throws IllegalStateException    when a cursor is not on a row, or the call has returned.
     */
    void emit(RowCursor left, RowCursor right);

    /**
     * Starts a computed row: a writer over the collector's own buffer, wrapped for the coGroup output
     * schema's fields. Put the fields, then {@link #emitRow}. A second call starts the row over.
     *
     * @return the writer, reused by every call.
     * @throws IllegalStateException when the spec has no coGroup output schema, or the call has returned.
     */
    RowWriter row();

    /**
     * Emits the computed row written since {@link #row()}, with the current rows of the cursors.
     *
     * @param left  the call's left cursor, on a row; or null.
     * @param right the call's right cursor, on a row; or null.
     * @throws IllegalStateException when no row was started, it did not fit ({@link RowFormat#MAX_ROW_LENGTH}),
     *                               a cursor is not on a row, or the call has returned.
     * @throws IllegalArgumentException when a cursor is not one of the call's.
     */
    void emitRow(RowCursor left, RowCursor right);

    /**
     * Emits the computed row written since {@link #row()}, alone: {@code emitRow(null, null)}.
     *
     * @throws IllegalStateException as {@link #emitRow(RowCursor, RowCursor)}.
     */
    default void emitRow()
    {
        emitRow(null, null);
    }
}
