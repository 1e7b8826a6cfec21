/**
 * Read-only views of what a join is doing: {@link io.junction.metrics.OperatorCounters}, the counters
 * of one operator (rows in and out, late rows, bad inputs, live rows, state bytes, pending timers,
 * watermark), read on the operator's own thread; and {@link io.junction.metrics.PartitionSnapshot},
 * a consistent copy of one partition's counters and ring occupancy that any thread can take through
 * {@link io.junction.runtime.JoinEngine#metrics()}.
 */
package io.junction.metrics;
