package io.junction.api;

/** Type tags of a field value in the binary row format ({@link RowFormat}). */
public final class FieldType
{
    /** The row has no such field. Reads as null. */
    public static final byte ABSENT = 0;
    /** An explicit JSON null. */
    public static final byte NULL = 1;
    /** A signed 64-bit integer. */
    public static final byte LONG = 2;
    /** An IEEE 754 double; integral values that fit a long are written as {@link #LONG} by the codecs. */
    public static final byte DOUBLE = 3;
    /** A boolean, one byte. */
    public static final byte BOOLEAN = 4;
    /** UTF-8 bytes with a 16-bit length prefix. */
    public static final byte STRING = 5;
    /**
     * An array of scalars or of flat objects ({@link RowFormat#ARRAY_COUNT_OFFSET the layout}): carried as it
     * is and compared by value, never a key, filter or condition operand (docs/SEMANTICS.md, "Row expansion").
     */
    public static final byte ARRAY = 6;
    /** An element of an {@link #ARRAY} that is a flat object: named scalar entries. Never a field's own type. */
    public static final byte OBJECT = 7;

    private FieldType()
    {
    }

    /**
     * @param type a type tag of this class.
     * @return true for types that compare as numbers.
     */
    public static boolean isNumber(final byte type)
    {
        return type == LONG || type == DOUBLE;
    }

    /**
     * @param type a type tag of this class.
     * @return true for the scalar types a key, filter or condition reads (null included).
     */
    public static boolean isScalar(final byte type)
    {
        return type >= NULL && type <= STRING;
    }

    /**
     * @param type a type tag of this class.
     * @return a readable name of the tag.
     */
    public static String name(final byte type)
    {
        switch (type)
        {
            case ABSENT:
                return "absent";
            case NULL:
                return "null";
            case LONG:
                return "long";
            case DOUBLE:
                return "double";
            case BOOLEAN:
                return "boolean";
            case STRING:
                return "string";
            case ARRAY:
                return "array";
            case OBJECT:
                return "object";
            default:
                return "unknown(" + type + ")";
        }
    }
}
