package io.junction.api;

/**
 * A window coGroup (docs/SEMANTICS.md section 6.4), as Flink's {@code CoGroupFunction} without its
 * {@code Iterable} garbage: called once per fired window and key with both sides' rows of that window
 * and key, and emits through a collector. Set with {@link JoinSpec.Builder#coGroup(CoGroupFunction)}
 * on a window join; built-in functions are in {@link CoGroupBuiltin}.
 *
 * <p>Which groups are called is the join type's rule: {@code full} calls every group, {@code left} those
 * with a left row, {@code right} those with a right row, {@code inner} those with rows on both sides. A
 * row that can never match (a null key, a failed pre-join filter) is a group of its own, with the other
 * side empty: {@code full} calls it, {@code left} if it is a left row, {@code right} if a right row,
 * {@code inner} never. Windows, firing, lateness and state are the window join's.
 *
 * <p>Contract: called on the partition thread; one instance serves every partition, so it must be thread
 * safe (stateless, or with per-thread state). It must not block, must not retain the cursors, the rows
 * or the collector past the call, and should not allocate if the join is to stay garbage-free. Its
 * output is held until it returns: a call that returns emits everything it collected, in order; a call
 * that throws emits nothing. Its rows are then dead-lettered {@link DeadLetterReason#COGROUP_FAILED}
 * (they leave state as the window fires), the exception is counted and handed to the engine's error
 * handler, and the partition goes on with the next group.
 */
@FunctionalInterface
public interface CoGroupFunction
{
    /**
     * @param left        the group's left rows in arrival order; may be empty.
     * @param right       the group's right rows in arrival order; may be empty.
     * @param windowStart the window's first instant, inclusive.
     * @param windowEnd   the window's end, exclusive.
     * @param out         where results go.
     */
    void coGroup(RowCursor left, RowCursor right, long windowStart, long windowEnd, CoGroupCollector out);
}
