package io.junction.join;

import java.util.Locale;

/** Which key index a partition's state uses: both map a join key's hash to that key's rows. */
public enum IndexKind
{
    /**
     * Chronicle Map: off-heap and segment-locked; slower per new or expired key than {@link #HASH}, and the
     * candidate for a durable (memory-mapped, persisted) index. Tested in CI like the default.
     */
    CHRONICLE,
    /** The default: an off-heap open-addressing table owned by the partition thread: no locks, fewer cache misses. */
    HASH;

    /**
     * @param name {@code chronicle} or {@code hash}.
     * @return the kind named, case-insensitive, or null.
     */
    public static IndexKind fromName(final String name)
    {
        for (final IndexKind kind : values())
        {
            if (kind.name().equals(name.trim().toUpperCase(Locale.ROOT)))
            {
                return kind;
            }
        }
        return null;
    }
}
