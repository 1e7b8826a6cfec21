package io.junction.api;

/**
 * One side's rows of a coGroup call ({@link CoGroupFunction}): a reusable, allocation-free cursor over
 * the rows a fired window holds for one key, in the order they arrived. Position it with
 * {@link #next()}, then read the row under it; {@link #reset()} goes back before the first row, so
 * the rows can be walked any number of times during the call.
 *
 * <pre>{@code
 * while (left.next())
 * {
 *     long ts = left.ts();
 *     RowView row = left.row();
 * }
 * }</pre>
 *
 * <p>Valid only during the call it is handed to: the cursor, and every view it returns, are reused for
 * the next call, and the rows are freed once the window has been handed out. Not thread safe.
 */
public interface RowCursor
{
    /** @return how many rows the cursor holds; 0 when this side has none (the cursor is then empty). */
    int count();

    /**
     * Moves to the next row.
     *
     * @return true when there is one; false past the last row (the cursor then has no current row).
     */
    boolean next();

    /**
     * @return the current row, a flyweight reused by the next {@link #next()}.
     * @throws IllegalStateException when the cursor is not on a row.
     */
    RowView row();

    /**
     * @return the current row's event time, ms.
     * @throws IllegalStateException when the cursor is not on a row.
     */
    long ts();

    /** Goes back before the first row: the next {@link #next()} moves to it. */
    void reset();

    /** @return true when the cursor holds no row. */
    default boolean isEmpty()
    {
        return count() == 0;
    }
}
