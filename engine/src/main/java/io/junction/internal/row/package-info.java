/**
 * Internal, not API. A join spec compiled for the hot path: key extraction and hashing, pre-join
 * filters, the post-join condition, and value comparison over binary rows.
 *
 * <p>Nothing here is part of Junction's public API: it may change in any release without notice.
 * Applications use {@code io.junction.api}, {@code io.junction.runtime}, {@code io.junction.join}
 * and {@code io.junction.metrics}.
 */
package io.junction.internal.row;
