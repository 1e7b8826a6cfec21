/**
 * Internal, not API. The cut of a partition's durable state at a checkpoint barrier: the dirty-chunk
 * tracking every mapped state file carries (its cell map and write barrier, the chunk sums, the check
 * mode), and the staged cut the partition thread hands to its background checkpoint writer (the cut's
 * files, their frozen or copied chunks, the side buffers of copy-on-write cuts, the cut's timings).
 * The on-disk formats the writer turns a cut into live in {@code io.junction.internal.durable}, which may
 * import this package; this package never imports it.
 *
 * <p>Nothing here is part of Junction's public API: it may change in any release without notice.
 * Applications use {@code io.junction.api}, {@code io.junction.runtime}, {@code io.junction.join}
 * and {@code io.junction.metrics}.
 */
package io.junction.internal.cut;
