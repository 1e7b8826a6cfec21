package io.junction.api;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Field names and their indices in the binary row format. A schema only grows: a name keeps its index
 * forever, so rows written earlier stay readable.
 *
 * <p>Thread safety: {@link #register(String)} is synchronized and publishes the new name table
 * through a volatile field, so {@link #nameOf(int)} may be called from any thread. A partition thread
 * that reads a row published through the runtime also sees every name registered before the row was
 * published. {@link #indexOf(String)} is for set-up and tools, not for hot paths.
 */
public final class Schema
{
    /** The largest number of fields a row can have: offsets are 16-bit in {@link RowFormat}. */
    public static final int MAX_FIELDS = 4096;

    private final Map<String, Integer> indexByName = new HashMap<>();
    private volatile String[] names = new String[0];

    /**
     * @param fieldNames distinct field names.
     * @return a schema with these fields at indices 0, 1, ... in order.
     * @throws IllegalArgumentException when a name repeats.
     */
    public static Schema of(final String... fieldNames)
    {
        final Schema schema = new Schema();
        for (final String name : fieldNames)
        {
            if (schema.indexOf(name) >= 0)
            {
                throw new IllegalArgumentException("duplicate field name: " + name);
            }
            schema.register(name);
        }
        return schema;
    }

    /**
     * @param name a field name.
     * @return its index, registering it when it is new.
     * @throws IllegalStateException when the schema already holds {@link #MAX_FIELDS} names.
     */
    public synchronized int register(final String name)
    {
        final Integer existing = indexByName.get(name);
        if (existing != null)
        {
            return existing;
        }
        final String[] current = names;
        if (current.length >= MAX_FIELDS)
        {
            throw new IllegalStateException("schema is full: at most " + MAX_FIELDS + " field names, adding " + name);
        }
        final String[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = name;
        indexByName.put(name, current.length);
        names = grown;
        return current.length;
    }

    /**
     * @param name a field name.
     * @return its index, or -1 when the schema has no such field.
     */
    public synchronized int indexOf(final String name)
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
