package io.junction.internal.config;

import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Typed, strict reads of configuration properties ({@code EngineConfig.from(Map)},
 * {@code StateConfig.from(Map)}): a value that does not parse is an error naming the property, never
 * silently the default. Not API.
 *
 * <p>Thread safe (immutable after construction).
 */
public final class ConfigMap
{
    /** The prefix of every engine property. */
    public static final String PREFIX = "junction.";

    private final Map<String, String> values;

    /**
     * @param values property names and values; {@code null} values count as unset.
     */
    public ConfigMap(final Map<String, String> values)
    {
        this.values = new TreeMap<>();
        for (final Map.Entry<String, String> e : values.entrySet())
        {
            if (e.getKey() != null && e.getValue() != null)
            {
                this.values.put(e.getKey(), e.getValue().trim());
            }
        }
    }

    /**
     * @param known the property names the reader knows.
     * @return the system properties among them, as a map.
     */
    public static Map<String, String> systemProperties(final Set<String> known)
    {
        final Properties system = System.getProperties();
        final Map<String, String> out = new TreeMap<>();
        for (final String name : known)
        {
            final String value = system.getProperty(name);
            if (value != null)
            {
                out.put(name, value);
            }
        }
        return out;
    }

    /**
     * Refuses a {@code junction.*} name the readers do not know: a misspelt property must not be ignored.
     *
     * @param known every name the readers know.
     * @throws IllegalArgumentException naming the first unknown one.
     */
    public void checkKnown(final Set<String> known)
    {
        for (final String name : values.keySet())
        {
            if (name.startsWith(PREFIX) && !known.contains(name))
            {
                throw new IllegalArgumentException("unknown property '" + name + "' (known: " + new TreeSet<>(known) + ")");
            }
        }
    }

    /** @return the raw value, or null when unset. */
    public String string(final String name, final String otherwise)
    {
        final String value = values.get(name);
        return value == null ? otherwise : value;
    }

    /** @return the value as an int, or {@code otherwise} when unset. */
    public int intValue(final String name, final int otherwise)
    {
        final long value = longValue(name, otherwise);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(name + " must be a 32-bit integer: " + values.get(name));
        }
        return (int)value;
    }

    /** @return the value as a long (decimal, or hex with 0x), or {@code otherwise} when unset. */
    public long longValue(final String name, final long otherwise)
    {
        final String value = values.get(name);
        if (value == null)
        {
            return otherwise;
        }
        try
        {
            return Long.decode(value.replace("_", ""));
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(name + " must be an integer: " + value);
        }
    }

    /** @return the value as a boolean ({@code true} or {@code false}), or {@code otherwise} when unset. */
    public boolean booleanValue(final String name, final boolean otherwise)
    {
        final String value = values.get(name);
        if (value == null)
        {
            return otherwise;
        }
        if (value.equalsIgnoreCase("true"))
        {
            return true;
        }
        if (value.equalsIgnoreCase("false"))
        {
            return false;
        }
        throw new IllegalArgumentException(name + " must be true or false: " + value);
    }

    /** @return whether the property is set. */
    public boolean has(final String name)
    {
        return values.containsKey(name);
    }
}
