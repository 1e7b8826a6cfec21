/**
 * Internal, not API. The lowest layer of partition state's memory conventions, imported by the state and by the
 * time package (which may not import each other's internals): how a reference between pieces of state is stored
 * ({@link io.junction.internal.memory.Refs}) and the write barrier a store into durable state goes through
 * ({@link io.junction.internal.memory.WriteMarks}). Imports nothing of ours (docs/ARCHITECTURE.md, "Layering").
 *
 * <p>Nothing here is part of Junction's public API: it may change in any release without notice.
 * Applications use {@code io.junction.api}, {@code io.junction.runtime}, {@code io.junction.join}
 * and {@code io.junction.metrics}.
 */
package io.junction.internal.memory;
