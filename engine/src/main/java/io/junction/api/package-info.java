/**
 * What a user of Junction writes against: the description of a join and the rows that flow through it.
 *
 * <p>{@link io.junction.api.JoinSpec} (built with {@link io.junction.api.JoinSpec#builder}) says which
 * join to run: its {@link io.junction.api.JoinKind kind} (regular, interval, window, temporal, lookup), its
 * {@link io.junction.api.JoinType type} (inner, left, right, full, semi, anti), the key fields of
 * each side by name in a {@link io.junction.api.Schema}, the pre-join filters, the post-join
 * condition, the interval or window, allowed lateness and state TTL. It is validated when built.
 *
 * <p>A window join can instead be a window coGroup: a {@link io.junction.api.CoGroupFunction} (or a
 * {@link io.junction.api.CoGroupBuiltin}) gets each fired window's rows of one key through two
 * allocation-free {@link io.junction.api.RowCursor}s and emits through a {@link io.junction.api.CoGroupCollector}.
 *
 * <p>Rows are binary ({@link io.junction.api.RowFormat}): written with
 * {@link io.junction.api.RowWriter} and read in place through the flyweight
 * {@link io.junction.api.RowView}, so that the hot path allocates nothing. {@link io.junction.api.Row}
 * and {@link io.junction.api.RowCodec} are an object layer over them for code that prefers objects
 * (they allocate).
 *
 * <p>Results reach a {@link io.junction.api.ResultHandler} as a changelog of
 * {@link io.junction.api.ChangeKind change kinds}; rows the join cannot process reach a
 * {@link io.junction.api.DeadLetterHandler} with a {@link io.junction.api.DeadLetterReason}.
 * The rules every join follows are in {@code docs/SEMANTICS.md}.
 */
package io.junction.api;
