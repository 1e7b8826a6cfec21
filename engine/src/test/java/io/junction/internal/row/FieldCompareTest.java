package io.junction.internal.row;

import io.junction.api.CompareOp;
import io.junction.api.Literal;
import io.junction.api.RowView;
import io.junction.api.Schema;

import io.junction.testing.Rows;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Value comparison of filters and conditions (SEMANTICS 1). */
class FieldCompareTest
{
    static final Schema SCHEMA = Schema.of("x", "y");

    /** @return the operators that hold for {@code x op y} over two fields of one row. */
    static Set<CompareOp> holding(final Object x, final Object y)
    {
        final RowView row = Rows.row(SCHEMA, Rows.pairs("x", x, "y", y));
        final int cmp = FieldCompare.compare(row, 0, row, 1);
        final Set<CompareOp> ops = EnumSet.noneOf(CompareOp.class);
        for (final CompareOp op : CompareOp.values())
        {
            if (op != CompareOp.IN && op.test(cmp))
            {
                ops.add(op);
            }
        }
        return ops;
    }

    /** @return the operators that hold for {@code field op literal}. */
    static Set<CompareOp> holdingLiteral(final Object x, final Literal literal)
    {
        final RowView row = Rows.row(SCHEMA, Rows.pairs("x", x));
        final int cmp = FieldCompare.compare(row, 0, literal);
        final Set<CompareOp> ops = EnumSet.noneOf(CompareOp.class);
        for (final CompareOp op : CompareOp.values())
        {
            if (op != CompareOp.IN && op.test(cmp))
            {
                ops.add(op);
            }
        }
        return ops;
    }

    static final Set<CompareOp> EQUAL = EnumSet.of(CompareOp.EQ, CompareOp.LE, CompareOp.GE);
    static final Set<CompareOp> LESS = EnumSet.of(CompareOp.NE, CompareOp.LT, CompareOp.LE);
    static final Set<CompareOp> GREATER = EnumSet.of(CompareOp.NE, CompareOp.GT, CompareOp.GE);
    static final Set<CompareOp> NONE = EnumSet.noneOf(CompareOp.class);
    static final Set<CompareOp> ONLY_NE = EnumSet.of(CompareOp.NE);

    @Test
    void shouldCompareLongsAsNumbers()
    {
        assertEquals(EQUAL, holding(5L, 5L));
        assertEquals(LESS, holding(-10L, 2L));
        assertEquals(GREATER, holding(Long.MAX_VALUE, Long.MIN_VALUE));
    }

    @Test
    void shouldCompareLongWithDoubleByValue()
    {
        assertEquals(EQUAL, holding(1L, 1.0));
        assertEquals(LESS, holding(2L, 2.5));
        assertEquals(GREATER, holding(3.5, 3L));
        assertEquals(LESS, holding(-0.5, 0L));
    }

    @Test
    void shouldCompareDoubles()
    {
        assertEquals(LESS, holding(0.1, 0.2));
        assertEquals(EQUAL, holding(1e300, 1e300));
    }

    @Test
    void shouldTreatNegativeZeroAsEqualToZero()
    {
        // -0.0 and 0.0 are the same number (Java ==, IEEE 754, SQL); Double.compare orders them
        assertEquals(EQUAL, holding(-0.0, 0.0), "double -0.0 vs double 0.0");
        assertEquals(EQUAL, holding(0L, -0.0), "long 0 vs double -0.0");
    }

    @Test
    void shouldCompareStringsLexicographically()
    {
        assertEquals(LESS, holding("a", "b"));
        assertEquals(GREATER, holding("ab", "a"));
        assertEquals(LESS, holding("", "a"));
        assertEquals(EQUAL, holding("same", "same"));
        assertEquals(LESS, holding("Z", "a"), "by code point: upper case first");
        assertEquals(LESS, holding("10", "9"), "digits compare as text");
    }

    @Test
    void shouldCompareStringsByCodePoint()
    {
        assertEquals(GREATER, holding("é", "z"));
        assertEquals(LESS, holding("\uFFFF", "\uD83D\uDE00"), "a supplementary code point sorts after U+FFFF");
    }

    @Test
    void shouldCompareBooleansFalseBeforeTrue()
    {
        assertEquals(LESS, holding(false, true));
        assertEquals(EQUAL, holding(true, true));
    }

    @Test
    void shouldMakeEveryOperatorFalseWhenEitherSideIsNull()
    {
        assertEquals(NONE, holding(null, 1L));
        assertEquals(NONE, holding(1L, null));
        assertEquals(NONE, holding(null, null));
        assertEquals(NONE, holding("a", null));
    }

    @Test
    void shouldMakeEveryOperatorFalseWhenEitherSideIsAbsent()
    {
        final RowView row = Rows.row(SCHEMA, "x", 1L);
        final int cmp = FieldCompare.compare(row, 0, row, 1);
        assertEquals(FieldCompare.INCOMPARABLE, cmp);
        for (final CompareOp op : CompareOp.values())
        {
            assertEquals(false, op.test(cmp), op.symbol());
        }
        assertEquals(FieldCompare.INCOMPARABLE, FieldCompare.compare(row, 1, row, 0));
    }

    @Test
    void shouldHoldOnlyNotEqualForDifferentTypes()
    {
        assertEquals(ONLY_NE, holding("1", 1L));
        assertEquals(ONLY_NE, holding(1.5, "1.5"));
        assertEquals(ONLY_NE, holding(true, 1L));
        assertEquals(ONLY_NE, holding("true", true));
    }

    @Test
    void shouldCompareFieldWithLiteral()
    {
        assertEquals(EQUAL, holdingLiteral(3L, Literal.of(3)));
        assertEquals(EQUAL, holdingLiteral(3L, Literal.of(3.0)));
        assertEquals(LESS, holdingLiteral(3L, Literal.of(3.5)));
        assertEquals(GREATER, holdingLiteral(3.25, Literal.of(3)));
        assertEquals(EQUAL, holdingLiteral("ok", Literal.of("ok")));
        assertEquals(LESS, holdingLiteral("ok", Literal.of("okay")));
        assertEquals(GREATER, holdingLiteral(true, Literal.of(false)));
        assertEquals(ONLY_NE, holdingLiteral("3", Literal.of(3)));
        assertEquals(ONLY_NE, holdingLiteral(3L, Literal.of("3")));
    }

    @Test
    void shouldMakeEveryOperatorFalseAgainstNullLiteralOrNullField()
    {
        assertEquals(NONE, holdingLiteral(3L, Literal.ofNull()));
        assertEquals(NONE, holdingLiteral(null, Literal.of(3)));
        assertEquals(NONE, holdingLiteral(null, Literal.ofNull()));
        final RowView empty = Rows.row(SCHEMA);
        assertEquals(FieldCompare.INCOMPARABLE, FieldCompare.compare(empty, 0, Literal.of("a")));
    }

    @Test
    void shouldMapOperatorSymbols()
    {
        for (final CompareOp op : CompareOp.values())
        {
            assertEquals(op, CompareOp.fromSymbol(op.symbol()));
        }
        assertEquals(null, CompareOp.fromSymbol("="));
    }
}
