package io.junction.api;

import java.util.ArrayList;
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
 * <p>Every schema refuses, at publish, a row with more field slots than it has fields
 * ({@code Publisher.SCHEMA_MISMATCH}). A typed schema ({@link #of(Field...)}) also refuses a value of
 * another type than its field's and a required field absent or null, and a spec built on it may not
 * compare values of incompatible types (keys, filters, conditions: rejected at {@code build()}).
 *
 * <p>Thread safe (immutable). {@link #indexOf(String)} is for set-up and tools, not for hot paths.
 */
public final class Schema
{
    /** The largest number of fields a row can have: offsets are 16-bit in {@link RowFormat}. */
    public static final int MAX_FIELDS = 4096;

    private final Map<String, Integer> indexByName;
    private final String[] names;
    private final Field[] fields;
    /** Whether any field has a type or is required: only then does {@link #conforms} look at values. */
    private final boolean typed;

    private Schema(final String[] names)
    {
        this(names, untyped(names));
    }

    private static Field[] untyped(final String[] names)
    {
        final Field[] fields = new Field[names.length];
        for (int i = 0; i < names.length; i++)
        {
            fields[i] = names[i] == null ? null : Field.any(names[i]);
        }
        return fields;
    }

    private Schema(final String[] names, final Field[] fields)
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
        this.fields = fields;
        boolean anyTyped = false;
        for (final Field field : fields)
        {
            anyTyped |= field.type() != Field.ANY || field.isRequired();
        }
        this.typed = anyTyped;
    }

    /**
     * A typed schema: {@code Schema.of(Field.longField("order_id").required(), Field.string("method"))}.
     *
     * @param fields distinct fields.
     * @return a schema with these fields at indices 0, 1, ... in order.
     * @throws IllegalArgumentException on a null or duplicate name, or more than {@link #MAX_FIELDS} fields.
     */
    public static Schema of(final Field... fields)
    {
        final String[] names = new String[fields.length];
        for (int i = 0; i < fields.length; i++)
        {
            if (fields[i] == null)
            {
                throw new IllegalArgumentException("field " + i + " is null");
            }
            names[i] = fields[i].name();
        }
        return new Schema(names, fields.clone());
    }

    /**
     * This schema with the fields a row expansion adds (docs/SEMANTICS.md, "Row expansion") appended as
     * untyped fields, those it holds already kept where they are. A typed schema must not declare them:
     * their types are the elements'.
     *
     * @param added the new field names.
     * @param what  the spec field that adds them, for the message.
     * @return the schema the expanded rows have.
     * @throws IllegalArgumentException when a typed schema declares one of them.
     */
    public Schema withAdded(final List<String> added, final String what)
    {
        final List<String> extraNames = new ArrayList<>();
        for (final String name : added)
        {
            final int index = indexOf(name);
            if (index >= 0 && (fields[index].type() != Field.ANY || fields[index].isRequired()))
            {
                throw new IllegalArgumentException(what + ".as: new field '" + name + "' is declared in the schema: " +
                    "new fields are not declared (their types are the elements')");
            }
            if (index < 0 && !extraNames.contains(name))
            {
                extraNames.add(name);
            }
        }
        if (extraNames.isEmpty())
        {
            return this;
        }
        final String[] allNames = Arrays.copyOf(names, names.length + extraNames.size());
        final Field[] allFields = Arrays.copyOf(fields, fields.length + extraNames.size());
        for (int i = 0; i < extraNames.size(); i++)
        {
            allNames[names.length + i] = extraNames.get(i);
            allFields[names.length + i] = Field.any(extraNames.get(i));
        }
        return new Schema(allNames, allFields);
    }

    /**
     * @param index a field index of this schema.
     * @return the field: its name, type ({@link Field#ANY} in a names-only schema) and whether it is required.
     */
    public Field field(final int index)
    {
        return fields[index];
    }

    /** @return whether any field has a type or is required ({@link #of(Field...)}). */
    public boolean isTyped()
    {
        return typed;
    }

    /**
     * Whether a well-formed row fits this schema: no more field slots than fields and, when typed, each
     * value of its field's type and each required field present and not null. Allocation-free: called
     * by the publisher for every row.
     *
     * @param row a validated row.
     * @return whether it fits.
     */
    public boolean conforms(final RowView row)
    {
        final int slots = row.fieldSlots();
        if (slots > names.length)
        {
            return false;
        }
        if (!typed)
        {
            return true;
        }
        for (int i = 0; i < fields.length; i++)
        {
            final byte type = i < slots ? row.type(i) : FieldType.ABSENT;
            if (type == FieldType.ABSENT || type == FieldType.NULL)
            {
                if (fields[i].isRequired())
                {
                    return false;
                }
            }
            else if (!fields[i].accepts(type))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Why a row does not fit (for tools and dead-letter texts, not hot paths).
     *
     * @param row a validated row.
     * @return null when it fits, else a sentence naming the field (as {@link #appendMismatch}).
     */
    public String mismatch(final RowView row)
    {
        final StringBuilder out = new StringBuilder(64);
        return appendMismatch(row, out) ? out.toString() : null;
    }

    /**
     * Appends why a row does not fit: {@code field 'amount' is declared double but the row has a string},
     * {@code required field 'order_id' is missing} (or {@code is null}), {@code the row has 5 fields, the
     * schema 3}. Allocates nothing but the growth of {@code out}, which a caller that reuses it pays once
     * (the sentence is bounded by the longest field name): the publisher writes its
     * {@code lastRefusal()} with it.
     *
     * @param row a validated row.
     * @param out where the sentence is appended.
     * @return whether the row does not fit (false: nothing appended).
     */
    public boolean appendMismatch(final RowView row, final StringBuilder out)
    {
        final int slots = row.fieldSlots();
        if (slots > names.length)
        {
            out.append("the row has ").append(slots).append(" fields, the schema ").append(names.length);
            return true;
        }
        for (int i = 0; i < fields.length; i++)
        {
            final byte type = i < slots ? row.type(i) : FieldType.ABSENT;
            if (type == FieldType.ABSENT || type == FieldType.NULL)
            {
                if (fields[i].isRequired())
                {
                    out.append("required field '").append(names[i]).append(type == FieldType.NULL ? "' is null" : "' is missing");
                    return true;
                }
            }
            else if (!fields[i].accepts(type))
            {
                out.append("field '").append(names[i]).append("' is declared ").append(FieldType.name(fields[i].type()))
                    .append(" but the row has a ").append(FieldType.name(type));
                return true;
            }
        }
        return false;
    }

    /**
     * The sentence for a field name this schema lacks, as a publish of a {@link Row} answers it and
     * {@link #ref(String)} says it: {@code field 'amout' is not in the schema (did you mean 'amount'?)},
     * or, with no close name, the schema's names.
     *
     * @param name a field name that is not in this schema.
     * @return the sentence.
     */
    public String notInSchema(final String name)
    {
        final String closest = closest(name);
        return "field '" + name + "' is not in the schema " +
            (closest != null ? "(did you mean '" + closest + "'?)" : Arrays.toString(names));
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

    /**
     * Resolves a field name once, at setup, to a {@link FieldRef}: reads and writes through it are
     * positional, with no name lookup per call.
     *
     * @param name a field name of this schema.
     * @return the field's reference.
     * @throws IllegalArgumentException when the schema has no such field (the message names it, the
     *     schema's fields and the closest name).
     */
    public FieldRef ref(final String name)
    {
        final int index = indexOf(name);
        if (index < 0)
        {
            throw new IllegalArgumentException(noSuchField(name));
        }
        return new FieldRef(name, index, fields[index].type());
    }

    /**
     * As {@link #ref(String)}, and checks that reading the field as {@code type} is what the schema
     * declares: a field declared of another type is refused (an untyped field is taken). A double field
     * also holds integral values as longs (the codecs' number rule): {@link RowView#getDouble(FieldRef)}
     * reads either as a double.
     *
     * @param name a field name of this schema.
     * @param type the {@link FieldType} tag the caller will read or write ({@link FieldType#LONG}, ...).
     * @return the field's reference.
     * @throws IllegalArgumentException when the schema has no such field, or declares it of another type.
     */
    public FieldRef ref(final String name, final byte type)
    {
        final FieldRef ref = ref(name);
        final byte declared = ref.type();
        if (declared != Field.ANY && declared != type)
        {
            throw new IllegalArgumentException("field '" + name + "' is declared " + FieldType.name(declared) +
                ", not " + FieldType.name(type) + " (" + this + ")");
        }
        return ref;
    }

    private String noSuchField(final String name)
    {
        final String closest = closest(name);
        return "no field '" + name + "' in " + this + (closest != null ? "; did you mean '" + closest + "'?" : "");
    }

    /** @return the field name nearest a misspelt one, or null when none is near enough to suggest. */
    private String closest(final String name)
    {
        String closest = null;
        int best = Integer.MAX_VALUE;
        for (final String candidate : names)
        {
            final int distance = distance(String.valueOf(name), candidate);
            if (distance < best)
            {
                best = distance;
                closest = candidate;
            }
        }
        return closest != null && best <= Math.max(2, closest.length() / 3) ? closest : null;
    }

    /** Levenshtein distance, for the "did you mean" of a misspelt name (setup only). */
    private static int distance(final String a, final String b)
    {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++)
        {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++)
            {
                final int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    /** @return the number of fields. */
    public int size()
    {
        return names.length;
    }

    @Override
    public String toString()
    {
        return "Schema" + (typed ? Arrays.toString(fields) : Arrays.toString(names));
    }
}
