package io.junction.api;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Field names and their indices in the binary row format. Immutable: the names are fixed when the
 * schema is made, so a spec compiled against it, and every row written with it, keep their meaning.
 * A name that is not in the schema is an error wherever it is used ({@link RowCodec}, the spec's
 * fields), never a new column: a typo must not silently become one.
 *
 * <p>Thread safe (immutable). {@link #indexOf(String)} is for set-up and tools, not for hot paths.
 */
public final class Schema
{
    /** The largest number of fields a row can have: offsets are 16-bit in {@link RowFormat}. */
    public static final int MAX_FIELDS = 4096;

    private final Map<String, Integer> indexByName;
    private final String[] names;

    private Schema(final String[] names)
    {
        if (names.length > MAX_FIELDS)
        {
            throw new IllegalArgumentException("a schema holds at most " + MAX_FIELDS + " field names, got " + names.length);
        }
        final Map<String, Integer> byName = new HashMap<>(names.length * 2);
        for (int i = 0; i < names.length; i++)
        {
            final String name = names[i];
            if (name == null)
            {
                throw new IllegalArgumentException("field name " + i + " is null");
            }
            if (byName.putIfAbsent(name, i) != null)
            {
                throw new IllegalArgumentException("duplicate field name: " + name);
            }
        }
        this.names = names;
        this.indexByName = byName;
    }

    /**
     * @param fieldNames distinct field names.
     * @return a schema with these fields at indices 0, 1, ... in order.
     * @throws IllegalArgumentException on a null or duplicate name, or more than {@link #MAX_FIELDS} names.
     */
    public static Schema of(final String... fieldNames)
    {
        return new Schema(fieldNames.clone());
    }

    /**
     * @param fieldNames distinct field names.
     * @return a schema with these fields at indices 0, 1, ... in order (as {@link #of(String...)}).
     */
    public static Schema of(final List<String> fieldNames)
    {
        return new Schema(fieldNames.toArray(new String[0]));
    }

    /**
     * @param name a field name.
     * @return its index, or -1 when the schema has no such field.
     */
    public int indexOf(final String name)
    {
        final Integer index = indexByName.get(name);
        return index == null ? -1 : index;
    }

    /**
     * @param index a field index of this schema.
     * @return the field's name.
     */
    public String nameOf(final int index)
    {
        return names[index];
    }

    /** @return the number of fields. */
    public int size()
    {
        return names.length;
    }

    @Override
    public String toString()
    {
        return "Schema" + Arrays.toString(names);
    }
}
