/**
 * Internal, not API. Off-heap state of the join operators: the key index (Chronicle Map or open
 * addressing), the row arena, and the layouts of row records and key buckets.
 *
 * <p>Nothing here is part of Junction's public API: it may change in any release without notice.
 * Applications use {@code io.junction.api}, {@code io.junction.runtime}, {@code io.junction.join}
 * and {@code io.junction.metrics}.
 */
package io.junction.internal.state;
