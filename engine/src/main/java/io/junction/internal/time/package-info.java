/**
 * Internal, not API. Event time for the join operators: the watermark-driven timer wheel, the
 * join's watermark (the minimum of its inputs'), and generated bounded out-of-orderness watermarks.
 *
 * <p>Nothing here is part of Junction's public API: it may change in any release without notice.
 * Applications use {@code io.junction.api}, {@code io.junction.runtime}, {@code io.junction.join}
 * and {@code io.junction.metrics}.
 */
package io.junction.internal.time;
