package io.junction.api;

import org.agrona.DirectBuffer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A constant of a pre-join filter: null, long, double, boolean or string. Immutable. */
public final class Literal
{
    private final byte type;
    private final long longValue;
    private final double doubleValue;
    private final byte[] utf8;

    private Literal(final byte type, final long longValue, final double doubleValue, final byte[] utf8)
    {
        this.type = type;
        this.longValue = longValue;
        this.doubleValue = doubleValue;
        this.utf8 = utf8;
    }

    /** @return the null literal, which compares false with everything. */
    public static Literal ofNull()
    {
        return new Literal(FieldType.NULL, 0, 0, null);
    }

    /**
     * @param value the value.
     * @return a long literal.
     */
    public static Literal of(final long value)
    {
        return new Literal(FieldType.LONG, value, value, null);
    }

    /**
     * @param value the value, finite.
     * @return a double literal; a value that is integral and fits a long becomes a long literal, as
     *     in rows ({@code -0.0} is the long 0; {@code 2^63} does not fit and stays a double).
     */
    public static Literal of(final double value)
    {
        if (isLongValued(value))
        {
            return of((long)value);
        }
        return new Literal(FieldType.DOUBLE, 0, value, null);
    }

    /**
     * The number rule rows and literals share: a double that is integral and in
     * {@code [-2^63, 2^63)} is that long (exactly: such a double converts without rounding).
     */
    static boolean isLongValued(final double value)
    {
        return value == Math.rint(value) && value >= -0x1p63 && value < 0x1p63;
    }

    /**
     * @param value the value.
     * @return a boolean literal.
     */
    public static Literal of(final boolean value)
    {
        return new Literal(FieldType.BOOLEAN, value ? 1 : 0, 0, null);
    }

    /**
     * @param value the value, not null.
     * @return a string literal.
     */
    public static Literal of(final String value)
    {
        return new Literal(FieldType.STRING, 0, 0, value.getBytes(StandardCharsets.UTF_8));
    }

    /** @return the {@link FieldType} tag. */
    public byte type()
    {
        return type;
    }

    /** @return the value of a long or boolean (1/0) literal. */
    public long longValue()
    {
        return longValue;
    }

    /** @return the value of a number literal as a double. */
    public double doubleValue()
    {
        return doubleValue;
    }

    /**
     * Compares a UTF-8 string held in a buffer with this string literal by unsigned bytes (Unicode code
     * point order), without copying either.
     *
     * @param buffer holds the UTF-8 bytes of a string.
     * @param index  where the bytes start.
     * @param length how many bytes.
     * @return negative, zero or positive as the buffer's string sorts before, equal to or after this one.
     */
    public int compareUtf8(final DirectBuffer buffer, final int index, final int length)
    {
        return Bytes.compare(buffer, index, length, utf8);
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof Literal))
        {
            return false;
        }
        final Literal that = (Literal)o;
        return type == that.type && longValue == that.longValue &&
            Double.compare(doubleValue, that.doubleValue) == 0 && Arrays.equals(utf8, that.utf8);
    }

    @Override
    public int hashCode()
    {
        return 31 * Long.hashCode(longValue) + type;
    }

    @Override
    public String toString()
    {
        switch (type)
        {
            case FieldType.NULL:
                return "null";
            case FieldType.LONG:
                return Long.toString(longValue);
            case FieldType.DOUBLE:
                return Double.toString(doubleValue);
            case FieldType.BOOLEAN:
                return Boolean.toString(longValue != 0);
            default:
                return '"' + new String(utf8, StandardCharsets.UTF_8) + '"';
        }
    }
}
