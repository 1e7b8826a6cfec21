/**
 * Internal, not API. The operators' counters as plain fields of the owning thread, their
 * publication to other threads once per batch, and latency recording.
 *
 * <p>Nothing here is part of Junction's public API: it may change in any release without notice.
 * Applications use {@code io.junction.api}, {@code io.junction.runtime}, {@code io.junction.join}
 * and {@code io.junction.metrics}.
 */
package io.junction.internal.metrics;
