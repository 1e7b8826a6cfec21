package io.junction.internal.memory;

/**
 * How a reference between two pieces of partition state (a bucket's row group, a group's records, a
 * record's bucket, timer links, index values, free-list links) is stored: as the target's distance
 * from the state's base address, so that a durable state mapped at another address on reopen still
 * holds valid references. 0 stays "none" both ways. In memory the base is 0, so a stored reference
 * is the raw address and the conversions cost an add and a mask, no branch and no load.
 *
 * <p>Both directions take non-negative values: addresses and offsets of user space, with a row
 * group's low tag bit ({@code internal.state.RowGroup.ARRAY_TAG}) surviving since every base is 8-aligned.
 */
public final class Refs
{
    private Refs()
    {
    }

    /**
     * @param base    the state's base address (0 in memory).
     * @param address an address in the state, or 0.
     * @return the value to store for it.
     */
    public static long toStored(final long base, final long address)
    {
        // -address >> 63 is all ones for an address > 0 and 0 for none: 0 stays 0 without a branch.
        return address - (base & (-address >> 63));
    }

    /**
     * @param base   the state's base address (0 in memory).
     * @param stored a stored reference, or 0.
     * @return the address it refers to, or 0.
     */
    public static long toAddress(final long base, final long stored)
    {
        return stored + (base & (-stored >> 63));
    }
}
