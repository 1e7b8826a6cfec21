package io.junction.api;

import java.util.Objects;

/**
 * A field of a typed {@link Schema}: its name, the type its values must have ({@link FieldType}, or
 * {@link #ANY}) and whether every row must carry it. A typed schema is checked at the door: a publish of
 * a row whose value has another type, or that lacks a required field, is refused with
 * {@code Publisher.SCHEMA_MISMATCH} ({@link DeadLetterReason#SCHEMA_MISMATCH}), never published; and a spec
 * that compares fields or literals of incompatible types is rejected when it is built.
 *
 * <p>Numbers: a {@link #doubleField(String) double field} also takes {@link FieldType#LONG} values (the
 * codecs write integral doubles as longs); a {@link #longField(String) long field} takes longs only.
 * A null or absent value fits any field that is not {@link #required() required}.
 *
 * <p>Thread safe (immutable).
 */
public final class Field
{
    /** The type of an untyped field: any value fits (the names-only {@link Schema#of(String...)}). */
    public static final byte ANY = -1;

    private final String name;
    private final byte type;
    private final boolean required;

    private Field(final String name, final byte type, final boolean required)
    {
        this.name = Objects.requireNonNull(name, "field name");
        this.type = type;
        this.required = required;
    }

    /**
     * @param name the field's name.
     * @return an untyped, optional field.
     */
    public static Field any(final String name)
    {
        return new Field(name, ANY, false);
    }

    /**
     * @param name the field's name.
     * @return an optional field of signed 64-bit integers.
     */
    public static Field longField(final String name)
    {
        return new Field(name, FieldType.LONG, false);
    }

    /**
     * @param name the field's name.
     * @return an optional field of doubles (longs fit too).
     */
    public static Field doubleField(final String name)
    {
        return new Field(name, FieldType.DOUBLE, false);
    }

    /**
     * @param name the field's name.
     * @return an optional field of booleans.
     */
    public static Field booleanField(final String name)
    {
        return new Field(name, FieldType.BOOLEAN, false);
    }

    /**
     * @param name the field's name.
     * @return an optional field of arrays (of scalars or of flat objects: docs/SEMANTICS.md 12), never a key,
     *         filter or condition operand.
     */
    public static Field array(final String name)
    {
        return new Field(name, FieldType.ARRAY, false);
    }

    /**
     * @param name the field's name.
     * @return an optional field of strings.
     */
    public static Field string(final String name)
    {
        return new Field(name, FieldType.STRING, false);
    }

    /** @return this field, required: a row without it, or with a null in it, is refused. */
    public Field required()
    {
        return new Field(name, type, true);
    }

    /** @return the field's name. */
    public String name()
    {
        return name;
    }

    /** @return its {@link FieldType} tag, or {@link #ANY}. */
    public byte type()
    {
        return type;
    }

    /** @return whether every row must carry a non-null value. */
    public boolean isRequired()
    {
        return required;
    }

    /**
     * @param valueType the {@link FieldType} tag of a value, not absent or null.
     * @return whether a value of that type fits this field.
     */
    boolean accepts(final byte valueType)
    {
        return type == ANY || type == valueType || (type == FieldType.DOUBLE && valueType == FieldType.LONG);
    }

    @Override
    public String toString()
    {
        return name + (type == ANY ? "" : ":" + FieldType.name(type)) + (required ? "!" : "");
    }
}
