package io.junction.api;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The number rule (docs: a number is a 64-bit integer when it is integral and fits one, otherwise a
 * double) in the typed layer and in filter literals.
 */
class NumberRuleTest
{
    @Test
    void shouldMakeAnIntegralDoubleThatFitsALongThatLongInLiterals()
    {
        assertEquals(Literal.of(9007199254740992L), Literal.of(9007199254740992.0));
        assertEquals(FieldType.LONG, Literal.of(0x1p60).type());
        assertEquals(1L << 60, Literal.of(0x1p60).longValue());
        assertEquals(Literal.of(Long.MIN_VALUE), Literal.of(-0x1p63));
        assertEquals(Literal.of(0L), Literal.of(-0.0));
        assertEquals(Literal.of(1L), Literal.of(1.0));
        assertEquals(FieldType.DOUBLE, Literal.of(0x1p63).type(), "2^63 does not fit a long");
        assertEquals(FieldType.DOUBLE, Literal.of(1.5).type());
        assertEquals(FieldType.DOUBLE, Literal.of(Double.POSITIVE_INFINITY).type());
        assertEquals(FieldType.DOUBLE, Literal.of(Double.NaN).type());
    }

    @Test
    void shouldEncodeAnIntegralDoubleAboveTwoToThe53AsTheSameKeyAsItsLong()
    {
        final Schema schema = Schema.of("k");
        final RowCodec codec = new RowCodec(schema);
        final UnsafeBuffer x = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final UnsafeBuffer y = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final int xl = codec.encode(Row.of("k", 9007199254740992.0), x, 0, 64);
        final int yl = codec.encode(Row.of("k", 9007199254740992L), y, 0, 64);
        assertTrue(new RowView().wrap(x, 0, xl).contentEquals(new RowView().wrap(y, 0, yl)));
        assertEquals(Row.of("k", 9007199254740992L), Row.of("k", 9007199254740992.0));
        assertEquals(Row.of("k", 0L), Row.of("k", -0.0));
        assertEquals(0x1p63, Row.of("k", 0x1p63).get("k"));
    }
}
