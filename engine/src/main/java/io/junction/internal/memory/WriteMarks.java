package io.junction.internal.memory;

/**
 * The write barrier of durable partition state, for the parts below the state that store into it: a store into a
 * durable state's memory (a record's links and deadline, a bucket's fields) is announced before the store, so that a
 * copy-on-write checkpoint cut in flight keeps the bytes it froze (docs/DURABILITY.md). The state's implementation
 * (the dirty-chunk map in a durable arena file's header) is {@code internal.state.NativeArena#written(long, long)};
 * the state hands it to {@code internal.time}'s wheel as one of these when it builds one over durable memory, since
 * the time package may not import the state (docs/ARCHITECTURE.md, "Layering").
 *
 * <p>A part holding one calls it only for durable memory ({@code base} not 0): in memory a mark is one branch. With
 * one implementation loaded the call is monomorphic, and the JIT inlines it.
 *
 * <p>Implementations are called on the partition thread, the owner of the store that follows.
 */
@FunctionalInterface
public interface WriteMarks
{
    /** For memory that is not durable ({@code base} 0): no part calls it, and a call is a bug. */
    WriteMarks NONE = (base, address) ->
    {
        throw new IllegalStateException("a store into durable state (base " + base + ") with no write barrier handed in");
    };

    /**
     * Marks the durable state's cell holding {@code address} as written, before the store to it.
     *
     * @param base    the state's base address, not 0 ({@link Refs}).
     * @param address an address of the state about to be stored to.
     */
    void written(long base, long address);
}
