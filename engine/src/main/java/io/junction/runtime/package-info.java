/**
 * The engine a service embeds: partitioned, multi-threaded execution of one join.
 *
 * <p>{@link io.junction.runtime.JoinEngine} (built with {@link io.junction.runtime.JoinEngine#builder})
 * starts one partition per configured thread, each with its own LMAX Disruptor ring, its own operator
 * and its own off-heap state. Producers feed it through a {@link io.junction.runtime.Publisher}, which
 * routes each row to the partition of its join key and copies it into a preallocated ring slot;
 * watermarks and the end of input go to every partition. {@link io.junction.runtime.EngineConfig}
 * holds the knobs (partitions, ring size, slot capacity, {@link io.junction.runtime.WaitStrategyKind
 * wait strategy}, state sizing), settable in code or from system properties.
 */
package io.junction.runtime;
