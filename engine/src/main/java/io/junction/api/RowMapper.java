package io.junction.api;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Maps a schema's rows to a record type and back, resolved once at set-up: the record's canonical
 * constructor takes the schema's fields in schema order (component {@code i} is field {@code i}, and
 * must have its name), so {@code record Paid(long order_id, String method, double amount)} maps
 * {@code Schema.of(Field.longField("order_id"), Field.string("method"), Field.doubleField("amount"))}.
 * Component types: {@code long}/{@code Long}, {@code int}/{@code Integer} (a long that fits),
 * {@code double}/{@code Double}, {@code boolean}/{@code Boolean}, {@code String}, or {@code Object}
 * (any value). A primitive component needs a present, non-null value; a boxed one reads absent and null
 * as null. With a typed schema ({@link Schema#of(Field...)}) each component's type must fit its field's,
 * checked by {@link #of(Class, Schema)}.
 *
 * <p>Allocation: the record, and its boxed and string components, per call; the flyweight path
 * ({@link RowView}) is the one that allocates nothing. Thread safe (immutable).
 *
 * @param <T> the record type.
 */
public final class RowMapper<T extends Record>
{
    private final Class<T> type;
    private final Schema schema;
    private final Class<?>[] types;
    private final MethodHandle constructor;
    private final MethodHandle[] accessors;

    private RowMapper(final Class<T> type, final Schema schema, final Class<?>[] types, final MethodHandle constructor,
        final MethodHandle[] accessors)
    {
        this.type = type;
        this.schema = schema;
        this.types = types;
        this.constructor = constructor;
        this.accessors = accessors;
    }

    /**
     * @param type   a public record whose components are the schema's fields, in order and by name.
     * @param schema the rows' schema.
     * @param <T>    the record type.
     * @return the mapper.
     * @throws IllegalArgumentException naming the component when the record does not fit the schema.
     */
    public static <T extends Record> RowMapper<T> of(final Class<T> type, final Schema schema)
    {
        final RecordComponent[] components = type.getRecordComponents();
        if (components == null)
        {
            throw new IllegalArgumentException(type.getName() + " is not a record");
        }
        if (components.length != schema.size())
        {
            throw new IllegalArgumentException(type.getSimpleName() + " has " + components.length + " components, the schema " +
                schema.size() + " fields " + schema);
        }
        final Class<?>[] types = new Class<?>[components.length];
        final MethodHandle[] accessors = new MethodHandle[components.length];
        final MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        try
        {
            for (int i = 0; i < components.length; i++)
            {
                final RecordComponent c = components[i];
                if (!c.getName().equals(schema.nameOf(i)))
                {
                    throw new IllegalArgumentException(type.getSimpleName() + "." + c.getName() + ": component " + i +
                        " must be named as field " + i + " of the schema, '" + schema.nameOf(i) + "'");
                }
                types[i] = c.getType();
                checkType(type, c, schema.field(i));
                accessors[i] = lookup.unreflect(c.getAccessor());
            }
            final MethodHandle constructor = lookup.findConstructor(type, MethodType.methodType(void.class, types));
            return new RowMapper<>(type, schema, types, constructor, accessors);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new IllegalArgumentException(type.getName() + " must be a public record with a public canonical constructor", e);
        }
    }

    private static void checkType(final Class<?> record, final RecordComponent c, final Field field)
    {
        final Class<?> t = c.getType();
        final boolean ok;
        if (t == long.class || t == Long.class || t == int.class || t == Integer.class)
        {
            ok = field.type() == Field.ANY || field.type() == FieldType.LONG;
        }
        else if (t == double.class || t == Double.class)
        {
            ok = field.type() == Field.ANY || field.type() == FieldType.DOUBLE || field.type() == FieldType.LONG;
        }
        else if (t == boolean.class || t == Boolean.class)
        {
            ok = field.type() == Field.ANY || field.type() == FieldType.BOOLEAN;
        }
        else if (t == String.class)
        {
            ok = field.type() == Field.ANY || field.type() == FieldType.STRING;
        }
        else
        {
            ok = t == Object.class;
        }
        if (!ok)
        {
            throw new IllegalArgumentException(record.getSimpleName() + "." + c.getName() + ": a " + t.getSimpleName() +
                " component cannot hold field '" + field.name() + "'" +
                (field.type() == Field.ANY ? "" : " of type " + FieldType.name(field.type())));
        }
    }

    /** @return the record type. */
    public Class<T> type()
    {
        return type;
    }

    /**
     * @param row a row of the schema, or null (a padded side).
     * @return the record, or null for a null row.
     * @throws IllegalArgumentException naming the field when a value does not fit its component.
     */
    public T map(final RowView row)
    {
        if (row == null)
        {
            return null;
        }
        final Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++)
        {
            final byte t = i < row.fieldSlots() ? row.type(i) : FieldType.ABSENT;
            final Object value;
            switch (t)
            {
                case FieldType.LONG:
                    value = row.getLong(i);
                    break;
                case FieldType.DOUBLE:
                    value = row.getDouble(i);
                    break;
                case FieldType.BOOLEAN:
                    value = row.getBoolean(i);
                    break;
                case FieldType.STRING:
                    value = row.getString(i);
                    break;
                default:
                    value = null;
            }
            args[i] = convert(i, value);
        }
        return construct(args);
    }

    /**
     * @param row a row as objects, or null.
     * @return the record, or null for a null row.
     * @throws IllegalArgumentException naming the field when a value does not fit its component.
     */
    public T map(final Row row)
    {
        if (row == null)
        {
            return null;
        }
        final Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++)
        {
            args[i] = convert(i, row.get(schema.nameOf(i)));
        }
        return construct(args);
    }

    /**
     * @param value a record, for {@code Publisher.publish(Side, ChangeKind, Row, long, long)}.
     * @return its components as a row of the schema (null components as explicit nulls).
     */
    public Row toRow(final T value)
    {
        final Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i < accessors.length; i++)
        {
            try
            {
                fields.put(schema.nameOf(i), accessors[i].invoke(value));
            }
            catch (final RuntimeException | Error e)
            {
                throw e;
            }
            catch (final Throwable e)
            {
                throw new IllegalStateException("accessor of " + schema.nameOf(i) + " threw", e);
            }
        }
        return Row.of(fields);
    }

    private Object convert(final int i, final Object value)
    {
        final Class<?> t = types[i];
        if (value == null)
        {
            if (t.isPrimitive())
            {
                throw new IllegalArgumentException("field '" + schema.nameOf(i) + "' is absent or null: " + type.getSimpleName() +
                    " takes a " + t + " (use the boxed type for an optional field)");
            }
            return null;
        }
        if (t == Object.class)
        {
            return value;
        }
        if ((t == long.class || t == Long.class) && value instanceof Long)
        {
            return value;
        }
        if ((t == int.class || t == Integer.class) && value instanceof Long && (long)(Long)value == (int)(long)(Long)value)
        {
            return (int)(long)(Long)value;
        }
        if ((t == double.class || t == Double.class) && value instanceof Number)
        {
            return ((Number)value).doubleValue();
        }
        if ((t == boolean.class || t == Boolean.class) && value instanceof Boolean)
        {
            return value;
        }
        if (t == String.class && value instanceof String)
        {
            return value;
        }
        throw new IllegalArgumentException("field '" + schema.nameOf(i) + "' holds " + value + ", not a " + t.getSimpleName());
    }

    @SuppressWarnings("unchecked")
    private T construct(final Object[] args)
    {
        try
        {
            return (T)constructor.invokeWithArguments(args);
        }
        catch (final RuntimeException | Error e)
        {
            throw e;
        }
        catch (final Throwable e)
        {
            throw new IllegalStateException(type.getSimpleName() + "'s constructor threw", e);
        }
    }
}
