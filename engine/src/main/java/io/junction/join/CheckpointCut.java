package io.junction.join;

/**
 * An opaque handle of a checkpoint's cut, made by the engine's runtime and handed to
 * {@link JoinOperator#stage(CheckpointCut)} and {@link JoinOperator#staged(CheckpointCut, boolean)}
 * (docs/DURABILITY.md "What runs where"). Its content (the staged chunks, sums and heap image) is the
 * runtime's and the built-in operators' business and no part of the public API: an operator of its own
 * never needs one (its {@code stage} returns false), and a handle not made by the runtime is refused.
 */
public interface CheckpointCut
{
}
