/**
 * Internal, not API. File helpers below every package that writes state to disk: owner-only directories and files
 * ({@link io.junction.internal.io.OwnerOnlyFiles}) and the join of the workers of a bulk pass over them
 * ({@link io.junction.internal.io.WorkerThreads}). Imports nothing of ours (docs/ARCHITECTURE.md, "Layering").
 *
 * <p>Nothing here is part of Junction's public API: it may change in any release without notice.
 * Applications use {@code io.junction.api}, {@code io.junction.runtime}, {@code io.junction.join}
 * and {@code io.junction.metrics}.
 */
package io.junction.internal.io;
