/**
 * The join operators, usable without the runtime: {@link io.junction.join.RegularJoin}, and for the
 * interval, temporal, lookup, ASOF and window kinds one operator driver that runs each kind's algorithm; each a plain single-threaded
 * {@link io.junction.join.JoinOperator} driven event by event (rows, watermarks, end of input) that emits to a
 * {@link io.junction.api.ResultHandler}. {@link io.junction.join.JoinOperators} makes the operator for a spec.
 *
 * <p>{@link io.junction.join.StateConfig} sizes an operator's off-heap state (key capacity, arena
 * chunks, timer wheel, key length) and chooses its key index ({@link io.junction.join.IndexKind}).
 * The runtime ({@link io.junction.runtime}) runs one operator per partition thread.
 */
package io.junction.join;
