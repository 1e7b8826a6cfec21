package io.junction.internal.memory;

/**
 * The write barrier of partition state for the parts below it: a store into a durable state's memory (a record's
 * links and deadline, a bucket's fields) is announced, before the store, so that a copy-on-write checkpoint cut in
 * flight keeps the bytes it froze (docs/DURABILITY.md). The marking itself (the dirty-chunk map in a durable arena
 * file's header) is {@code internal.state.NativeArena#written(long, long)}, which installs itself here when its
 * class is initialized, before any durable arena exists; {@code internal.time}'s wheel marks through this class
 * because it may not import the state (docs/ARCHITECTURE.md, "Layering"), and the state calls its own method.
 *
 * <p>In memory ({@code base} 0) a mark is one branch, as {@code NativeArena.written} is; a durable mark adds a
 * volatile read (a plain load on x86) and a call the JIT inlines, there being one marker.
 *
 * <p>Thread safe: the marker is installed once; marking is the caller's store's, owned by the partition thread.
 */
public final class WriteMarks
{
    /** Marks the durable state's cell holding an address as written, before a store to it. */
    @FunctionalInterface
    public interface Marker
    {
        /**
         * @param base    the state's base address, not 0.
         * @param address an address of the state about to be stored to.
         */
        void written(long base, long address);
    }

    private static final Marker NONE = (base, address) ->
    {
        throw new IllegalStateException("a durable state's write with no marker installed (internal.state.NativeArena)");
    };

    private static volatile Marker marker = NONE;

    private WriteMarks()
    {
    }

    /**
     * Installs the marking of durable state: {@code internal.state.NativeArena} does, once, when it is loaded.
     *
     * @param installed the marker.
     */
    public static void install(final Marker installed)
    {
        if (installed == null)
        {
            throw new IllegalArgumentException("marker: required");
        }
        marker = installed;
    }

    /**
     * Marks the cell holding {@code address} as written, before the store; nothing in memory ({@code base} 0).
     *
     * @param base    the state's base address (0 in memory, {@link Refs}).
     * @param address an address of the state.
     */
    public static void written(final long base, final long address)
    {
        if (base != 0)
        {
            marker.written(base, address);
        }
    }
}
