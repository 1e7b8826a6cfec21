package io.junction.api;

/**
 * A field of a {@link Schema} resolved once, at setup, to its position: {@code schema.ref("order_id")}.
 * Reading through it ({@link RowView#getLong(FieldRef)}, {@link RowView#getString(FieldRef)}, ...) or
 * writing ({@link RowWriter#putLong(FieldRef, long)}, ...) is the positional read or write of
 * {@link #index()}, with no name lookup per call; a misspelt name fails when the reference is made,
 * not with a silently absent value on the partition thread.
 *
 * <p>A reference names a position in the schema it was resolved against: use it only on rows of that
 * schema (the read does not check, as positional reads do not). It also carries the field's declared
 * {@link #type()}, so {@link Schema#ref(String, byte)} can refuse at setup a reference whose use would
 * read a value of another type.
 *
 * <p>Thread safe (immutable); make references once and keep them in fields (of a result handler, a
 * {@link RowFilter}, a {@link PairCondition}).
 */
public final class FieldRef
{
    private final String name;
    private final int index;
    private final byte type;

    FieldRef(final String name, final int index, final byte type)
    {
        this.name = name;
        this.index = index;
        this.type = type;
    }

    /** @return the field's name. */
    public String name()
    {
        return name;
    }

    /** @return the field's index in its schema: the position the reads and writes use. */
    public int index()
    {
        return index;
    }

    /** @return the field's declared {@link FieldType} tag, or {@link Field#ANY} when untyped. */
    public byte type()
    {
        return type;
    }

    @Override
    public String toString()
    {
        return name + "@" + index;
    }
}
