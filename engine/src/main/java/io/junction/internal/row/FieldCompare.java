package io.junction.internal.row;

import io.junction.api.CompareOp;
import io.junction.api.FieldType;
import io.junction.api.Literal;
import io.junction.api.RowView;

/**
 * Value comparison of filters and conditions (SEMANTICS 1): numbers compare as numbers (a long and a
 * double by value), strings lexicographically by code point, booleans false before true. A null or
 * absent value is {@link #INCOMPARABLE}: every operator is false. Values of different types are
 * {@link #DIFFERENT_TYPES}: they are unequal and unordered, so only {@code !=} holds.
 */
public final class FieldCompare
{
    /** One side is null or absent: {@link CompareOp#INCOMPARABLE}. */
    public static final int INCOMPARABLE = CompareOp.INCOMPARABLE;
    /** Non-null values of different types: {@link CompareOp#DIFFERENT_TYPES}. */
    public static final int DIFFERENT_TYPES = CompareOp.DIFFERENT_TYPES;

    private FieldCompare()
    {
    }

    /** Compares field {@code fa} of row {@code a} with field {@code fb} of row {@code b}. */
    public static int compare(final RowView a, final int fa, final RowView b, final int fb)
    {
        final byte ta = a.type(fa);
        final byte tb = b.type(fb);
        if (ta == FieldType.ABSENT || ta == FieldType.NULL || tb == FieldType.ABSENT || tb == FieldType.NULL)
        {
            return INCOMPARABLE;
        }
        if (ta == FieldType.LONG && tb == FieldType.LONG)
        {
            return Long.compare(a.getLong(fa), b.getLong(fb));
        }
        if (FieldType.isNumber(ta) && FieldType.isNumber(tb))
        {
            return compareDoubles(a.getNumberAsDouble(fa), b.getNumberAsDouble(fb));
        }
        if (ta != tb)
        {
            return DIFFERENT_TYPES;
        }
        if (ta == FieldType.BOOLEAN)
        {
            return Boolean.compare(a.getBoolean(fa), b.getBoolean(fb));
        }
        return BufferCompare.compare(
            a.buffer(), a.stringBytesIndex(fa), a.stringLength(fa),
            b.buffer(), b.stringBytesIndex(fb), b.stringLength(fb));
    }

    /**
     * Compares field {@code fa} of row {@code a} plus {@code offset} with field {@code fb} of row {@code b}.
     * A long adds with saturation at the long range (no wrap-around); a double adds as a double. A left
     * value that is null, absent or not a number is {@link #INCOMPARABLE}: arithmetic on it has no value.
     */
    public static int compare(final RowView a, final int fa, final long offset, final RowView b, final int fb)
    {
        final byte ta = a.type(fa);
        final byte tb = b.type(fb);
        if (!FieldType.isNumber(ta) || tb == FieldType.ABSENT || tb == FieldType.NULL)
        {
            return INCOMPARABLE;
        }
        if (!FieldType.isNumber(tb))
        {
            return DIFFERENT_TYPES;
        }
        if (ta == FieldType.LONG)
        {
            final long x = saturatingAdd(a.getLong(fa), offset);
            return tb == FieldType.LONG ? Long.compare(x, b.getLong(fb)) : compareDoubles(x, b.getNumberAsDouble(fb));
        }
        return compareDoubles(a.getDouble(fa) + offset, b.getNumberAsDouble(fb));
    }

    /** @return {@code x + y}, clamped to the long range instead of wrapping. */
    public static long saturatingAdd(final long x, final long y)
    {
        final long r = x + y;
        if (((x ^ r) & (y ^ r)) < 0)
        {
            return x < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** Compares field {@code field} of {@code row} with a literal. */
    public static int compare(final RowView row, final int field, final Literal literal)
    {
        final byte ta = row.type(field);
        final byte tb = literal.type();
        if (ta == FieldType.ABSENT || ta == FieldType.NULL || tb == FieldType.NULL)
        {
            return INCOMPARABLE;
        }
        if (ta == FieldType.LONG && tb == FieldType.LONG)
        {
            return Long.compare(row.getLong(field), literal.longValue());
        }
        if (FieldType.isNumber(ta) && FieldType.isNumber(tb))
        {
            return compareDoubles(row.getNumberAsDouble(field), literal.doubleValue());
        }
        if (ta != tb)
        {
            return DIFFERENT_TYPES;
        }
        if (ta == FieldType.BOOLEAN)
        {
            return Boolean.compare(row.getBoolean(field), literal.longValue() != 0);
        }
        return literal.compareUtf8(row.buffer(), row.stringBytesIndex(field), row.stringLength(field));
    }

    /** Numeric order where -0.0 equals 0.0 (as in SQL); NaN sorts above every number, as Double.compare does. */
    private static int compareDoubles(final double x, final double y)
    {
        if (x < y)
        {
            return -1;
        }
        if (x > y)
        {
            return 1;
        }
        return x == y ? 0 : Double.compare(x, y);
    }
}
