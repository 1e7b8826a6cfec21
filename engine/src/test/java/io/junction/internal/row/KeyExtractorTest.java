package io.junction.internal.row;

import io.junction.api.FieldType;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;

import io.junction.testing.Rows;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class KeyExtractorTest
{
    static final Schema SCHEMA = Schema.of("a", "b", "c");

    /** @return the key bytes, or null for a null key. */
    static byte[] key(final KeyExtractor extractor, final RowView row)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int length = extractor.extract(row, buffer, 0, 256);
        if (length == KeyExtractor.NULL_KEY)
        {
            return null;
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    static byte[] key(final KeyExtractor extractor, final Object... nameValues)
    {
        return key(extractor, Rows.row(SCHEMA, nameValues));
    }

    static final KeyExtractor A = new KeyExtractor(new int[] {0});
    static final KeyExtractor AB = new KeyExtractor(new int[] {0, 1});
    static final KeyExtractor BA = new KeyExtractor(new int[] {1, 0});

    @Test
    void shouldGiveNullKeyForNullField()
    {
        assertEquals(null, key(A, "a", null, "b", 1));
    }

    @Test
    void shouldGiveNullKeyForAbsentField()
    {
        assertEquals(null, key(A, "b", 1));
        assertEquals(null, key(A));
    }

    @Test
    void shouldGiveNullKeyWhenAnyCompositeFieldIsNull()
    {
        assertEquals(null, key(AB, "a", 1, "b", null));
        assertEquals(null, key(AB, "a", null, "b", 1));
        assertEquals(null, key(AB, "a", 1));
    }

    @Test
    void shouldGiveEqualKeysForEqualValuesWhateverTheOtherFields()
    {
        assertArrayEquals(key(A, "a", "x", "b", 1), key(A, "a", "x", "c", true));
    }

    @Test
    void shouldTellStringFromNumber()
    {
        assertFalse(Arrays.equals(key(A, "a", "1"), key(A, "a", 1)));
        assertFalse(Arrays.equals(key(A, "a", true), key(A, "a", 1)));
    }

    @Test
    void shouldTellLongFromDouble()
    {
        assertFalse(Arrays.equals(key(A, "a", 1), key(A, "a", 1.5)));
        assertFalse(Arrays.equals(key(A, "a", Long.MAX_VALUE), key(A, "a", 0x1p63)), "2^63 does not fit a long");
    }

    @Test
    void shouldMakeAnIntegralDoubleTheKeyOfItsLong()
    {
        // A row written through the binary API with putDouble(2.0) joins the row with putLong(2).
        assertArrayEquals(key(A, "a", 2L), key(A, "a", 2.0));
        assertArrayEquals(key(A, "a", 0L), key(A, "a", -0.0));
        assertArrayEquals(key(A, "a", 1L << 60), key(A, "a", 0x1p60));
        assertArrayEquals(key(A, "a", Long.MIN_VALUE), key(A, "a", -0x1p63));
    }

    @Test
    void shouldConcatenateCompositeKeyInOrder()
    {
        final byte[] ab = key(AB, "a", 1, "b", "xy");
        assertEquals(9 + 3 + 2, ab.length);
        assertNotEquals(Arrays.toString(ab), Arrays.toString(key(BA, "a", 1, "b", "xy")));
        assertArrayEquals(ab, key(BA, "a", "xy", "b", 1), "(a, b) of one row equals (b, a) of the swapped row");
    }

    @Test
    void shouldNotConfuseCompositeKeysThatConcatenateToTheSameText()
    {
        assertFalse(Arrays.equals(key(AB, "a", "ab", "b", "c"), key(AB, "a", "a", "b", "bc")));
    }

    @Test
    void shouldEncodeEachTypeWithItsTag()
    {
        assertEquals(9, key(A, "a", Long.MAX_VALUE).length);
        assertEquals(9, key(A, "a", 0.25).length);
        assertEquals(2, key(A, "a", false).length);
        assertEquals(3, key(A, "a", "").length);
        assertFalse(Arrays.equals(key(A, "a", true), key(A, "a", false)));
    }

    @Test
    void shouldReportKeyTooLong()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final RowView row = Rows.row(SCHEMA, "a", "0123456789", "b", 1);
        assertEquals(KeyExtractor.KEY_TOO_LONG, A.extract(row, buffer, 0, 12));
        assertEquals(13, A.extract(row, buffer, 0, 13));
        assertEquals(KeyExtractor.KEY_TOO_LONG, AB.extract(row, buffer, 0, 20));
        assertEquals(KeyExtractor.KEY_TOO_LONG, new KeyExtractor(new int[] {1}).extract(row, buffer, 0, 8));
        assertEquals(KeyExtractor.KEY_TOO_LONG, new KeyExtractor(new int[] {2, 0}).extract(
            Rows.row(SCHEMA, "c", true), buffer, 0, 1));
    }

    @Test
    void shouldWriteAtTheGivenOffset()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final int length = A.extract(Rows.row(SCHEMA, "a", 7), buffer, 10, 54);
        assertEquals(9, length);
        assertEquals(FieldType.LONG, buffer.getByte(10));
        assertEquals(0, buffer.getByte(0));
    }

    @Test
    void shouldHashEqualKeysEqual()
    {
        final byte[] k1 = key(AB, "a", 1, "b", "x");
        final byte[] k2 = key(AB, "a", 1, "b", "x", "c", 3);
        assertEquals(KeyHash.hash(new UnsafeBuffer(k1), 0, k1.length), KeyHash.hash(new UnsafeBuffer(k2), 0, k2.length));
        final byte[] k3 = key(AB, "a", 1, "b", "y");
        assertNotEquals(KeyHash.hash(new UnsafeBuffer(k1), 0, k1.length), KeyHash.hash(new UnsafeBuffer(k3), 0, k3.length));
    }

    @Test
    void shouldResolveKeyFieldsThroughTheSpec()
    {
        final Schema left = Schema.of("x", "id");
        final Schema right = Schema.of("id");
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(left, right)
            .leftKey("id").rightKey("id").build();
        final UnsafeBuffer lk = new UnsafeBuffer(new byte[64]);
        final UnsafeBuffer rk = new UnsafeBuffer(new byte[64]);
        final int ll = CompiledJoin.of(spec).key(Side.LEFT).extract(Rows.row(left, "x", 9, "id", "k"), lk, 0, 64);
        final int rl = CompiledJoin.of(spec).key(Side.RIGHT).extract(Rows.row(right, "id", "k"), rk, 0, 64);
        assertEquals(ll, rl);
        assertEquals(0, BufferCompare.compare(lk, 0, ll, rk, 0, rl));
    }
}
