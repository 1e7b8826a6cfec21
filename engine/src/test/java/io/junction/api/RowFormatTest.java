package io.junction.api;

import io.junction.testing.Rows;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Objects;
import java.util.Random;

/** RowWriter and RowView: round trips, canonical bytes, overflow and validation of malformed bytes. */
class RowFormatTest
{
    static final Schema SCHEMA = Schema.of("a", "b", "c", "d", "e", "f");

    @Test
    void layoutConstantsAreTheDocumentedWireFormat()
    {
        // The constants are derived from one another; this pins what they derive to, the format on the wire.
        assertEquals(2, RowFormat.OFFSET_TABLE_OFFSET);
        assertEquals(2, RowFormat.OFFSET_ENTRY_LENGTH);
        assertEquals(1, RowFormat.TAG_LENGTH);
        assertEquals(8, RowFormat.LONG_PAYLOAD_LENGTH);
        assertEquals(8, RowFormat.DOUBLE_PAYLOAD_LENGTH);
        assertEquals(1, RowFormat.BOOLEAN_PAYLOAD_LENGTH);
        assertEquals(3, RowFormat.STRING_BYTES_OFFSET);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int length = new RowWriter().wrap(buffer, 0, 256, 5)
            .putNull(0).putLong(1, 7).putDouble(2, 0.5).putBoolean(3, false).putString(4, "ab")
            .finish();
        assertEquals(2 + 2 * 5 + 1 + 9 + 9 + 2 + 3 + 2, length);
        assertEquals(RowFormat.valuesOffset(5) + RowFormat.TAG_LENGTH * 4 + RowFormat.NULL_PAYLOAD_LENGTH +
            RowFormat.LONG_PAYLOAD_LENGTH + RowFormat.DOUBLE_PAYLOAD_LENGTH + RowFormat.BOOLEAN_PAYLOAD_LENGTH +
            RowFormat.STRING_BYTES_OFFSET + 2, length);
        final RowView row = new RowView().wrap(buffer, 0, length);
        assertNull(row.validate());
        assertEquals(RowFormat.valuesOffset(5) + 1 + 9 + 9 + 2 + RowFormat.STRING_BYTES_OFFSET, row.stringBytesIndex(4));
    }

    @Test
    void putFieldCopiesEachTypeAndLeavesAnAbsentFieldAbsent()
    {
        final UnsafeBuffer source = new UnsafeBuffer(new byte[256]);
        final int length = new RowWriter().wrap(source, 0, 256, 6)
            .putNull(0).putLong(1, -7).putDouble(2, 2.5).putBoolean(3, true).putString(4, "héllo")
            .finish();
        final RowView from = new RowView().wrap(source, 0, length);
        final UnsafeBuffer target = new UnsafeBuffer(new byte[256]);
        final RowWriter writer = new RowWriter().wrap(target, 0, 256, 6);
        for (int f = 5; f >= 0; f--)
        {
            writer.putField(f, from, f);
        }
        final RowView copy = new RowView().wrap(target, 0, writer.finish());
        assertNull(copy.validate());
        for (int f = 0; f < 6; f++)
        {
            assertEquals(from.type(f), copy.type(f), "field " + f);
        }
        assertEquals(FieldType.ABSENT, copy.type(5));
        assertEquals(-7, copy.getLong(1));
        assertEquals(2.5, copy.getDouble(2));
        assertTrue(copy.getBoolean(3));
        assertEquals("héllo", copy.getString(4));
        final int beyond = new RowWriter().wrap(target, 0, 256, 1).putField(0, from, 40).finish();
        assertEquals(FieldType.ABSENT, new RowView().wrap(target, 0, beyond).type(0), "a source field beyond the row's slots is absent");
        final UnsafeBuffer small = new UnsafeBuffer(new byte[8]);
        assertEquals(-1, new RowWriter().wrap(small, 0, 8, 1).putField(0, from, 4).finish(), "a copy that does not fit overflows");
    }

    @Test
    void shouldRoundTripEveryType()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int length = new RowWriter().wrap(buffer, 0, 256, 6)
            .putNull(0)
            .putLong(1, Long.MIN_VALUE)
            .putDouble(2, -1.5)
            .putBoolean(3, true)
            .putString(4, "héllo ✓")
            .finish();
        final RowView row = new RowView().wrap(buffer, 0, length);
        assertNull(row.validate());
        assertEquals(6, row.fieldSlots());
        assertEquals(FieldType.NULL, row.type(0));
        assertTrue(row.isNull(0));
        assertEquals(FieldType.LONG, row.type(1));
        assertEquals(Long.MIN_VALUE, row.getLong(1));
        assertEquals(FieldType.DOUBLE, row.type(2));
        assertEquals(-1.5, row.getDouble(2));
        assertEquals(-1.5, row.getNumberAsDouble(2));
        assertEquals((double)Long.MIN_VALUE, row.getNumberAsDouble(1));
        assertTrue(row.getBoolean(3));
        assertEquals("héllo ✓", row.getString(4));
        assertEquals("héllo ✓".getBytes(StandardCharsets.UTF_8).length, row.stringLength(4));
        assertEquals(FieldType.ABSENT, row.type(5));
        assertTrue(row.isNull(5));
        assertEquals(FieldType.ABSENT, row.type(6), "beyond the slots reads absent");
        assertEquals(FieldType.ABSENT, row.type(-1));
    }

    @Test
    void shouldComputeLengthFromHeaderAndValues()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final int length = new RowWriter().wrap(buffer, 0, 64, 2).putLong(0, 1).putAscii(1, "xy").finish();
        assertEquals(2 + 2 * 2 + 9 + 3 + 2, length);
    }

    @Test
    void shouldWriteAtAnOffsetInsideTheBuffer()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        final int length = new RowWriter().wrap(buffer, 40, 88, 1).putAscii(0, "abc").finish();
        final RowView row = new RowView().wrap(buffer, 40, length);
        assertNull(row.validate());
        assertEquals("abc", row.getString(0));
        assertEquals(40, row.offset());
        assertEquals(40 + 2 + 2 + 3, row.stringBytesIndex(0));
    }

    @Test
    void shouldRoundTripThroughTestRows()
    {
        final Map<String, Object> values = Rows.pairs("a", 1L, "c", "x", "d", null, "f", false, "b", 2.25);
        assertEquals(Map.of("a", 1L, "b", 2.25, "c", "x", "f", false), withoutNulls(Rows.decode(SCHEMA, Rows.row(SCHEMA, values))));
        assertTrue(Rows.decode(SCHEMA, Rows.row(SCHEMA, values)).containsKey("d"));
        assertEquals(Rows.format(values), Rows.format(SCHEMA, Rows.row(SCHEMA, values)));
    }

    private static Map<String, Object> withoutNulls(final Map<String, Object> map)
    {
        final HashMap<String, Object> copy = new HashMap<>(map);
        copy.values().removeIf(Objects::isNull);
        return copy;
    }

    @Test
    void shouldGiveEqualBytesForEqualRowsWrittenInAscendingOrder()
    {
        assertArrayEquals(Rows.bytes(SCHEMA, "a", 1, "c", "x"), Rows.bytes(SCHEMA, "c", "x", "a", 1));
        assertTrue(Rows.row(SCHEMA, "a", 1, "c", "x").contentEquals(Rows.row(SCHEMA, "c", "x", "a", 1)));
        assertFalse(Rows.row(SCHEMA, "a", 1).contentEquals(Rows.row(SCHEMA, "a", "1")));
        assertFalse(Rows.row(SCHEMA, "a", 1).contentEquals(Rows.row(SCHEMA, "a", 1, "b", null)));
    }

    @Test
    void shouldWriteEmptyRow()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8]);
        final int length = new RowWriter().wrap(buffer, 0, 8, 0).finish();
        assertEquals(2, length);
        final RowView row = new RowView().wrap(buffer, 0, length);
        assertNull(row.validate());
        assertEquals(FieldType.ABSENT, row.type(0));
    }

    @Test
    void shouldReportOverflowWhenRowDoesNotFit()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        assertEquals(-1, new RowWriter().wrap(buffer, 0, 16, 1).putAscii(0, "a long string that does not fit").finish());
        assertEquals(-1, new RowWriter().wrap(buffer, 0, 4, 2).finish(), "header alone overflows");
        assertEquals(-1, new RowWriter().wrap(buffer, 0, 12, 1).putLong(0, 1).putLong(0, 2).finish());
    }

    @Test
    void shouldRefuseStringLongerThanItsLengthPrefix()
    {
        final byte[] huge = new byte[0x10000];
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[0x20000]);
        assertEquals(-1, new RowWriter().wrap(buffer, 0, 0x20000, 1).putUtf8(0, huge, 0, huge.length).finish());
    }

    @Test
    void shouldRejectFieldOutsideItsSlots()
    {
        final RowWriter writer = new RowWriter().wrap(new UnsafeBuffer(new byte[64]), 0, 64, 2);
        assertThrows(IndexOutOfBoundsException.class, () -> writer.putLong(2, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> writer.putLong(-1, 1));
        assertThrows(IllegalArgumentException.class, () -> writer.wrap(new UnsafeBuffer(new byte[64]), 0, 64, Schema.MAX_FIELDS + 1));
    }

    // ---------------------------------------------------------------- validate

    static RowView view(final byte[] bytes, final int length)
    {
        return new RowView().wrap(new UnsafeBuffer(bytes), 0, length);
    }

    static byte[] wellFormed()
    {
        return Rows.bytes(SCHEMA, "a", 7L, "b", "xyz", "c", true, "d", null, "e", 0.5);
    }

    static void putShort(final byte[] bytes, final int at, final int value)
    {
        new UnsafeBuffer(bytes).putShort(at, (short)value, ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void shouldAcceptWellFormedRow()
    {
        final byte[] bytes = wellFormed();
        assertNull(view(bytes, bytes.length).validate());
    }

    @Test
    void shouldRejectRowShorterThanHeader()
    {
        assertNotNull(view(new byte[1], 1).validate());
        assertNotNull(view(new byte[0], 0).validate());
    }

    @Test
    void shouldRejectOffsetTableOverrunningRow()
    {
        final byte[] bytes = new byte[8];
        putShort(bytes, 0, 10);
        assertNotNull(view(bytes, bytes.length).validate());
    }

    @Test
    void shouldRejectFieldOffsetPastTheEnd()
    {
        final byte[] bytes = wellFormed();
        putShort(bytes, RowFormat.offsetEntry(1), bytes.length);
        assertNotNull(view(bytes, bytes.length).validate());
    }

    @Test
    void shouldRejectFieldOffsetIntoOffsetTable()
    {
        final byte[] bytes = wellFormed();
        putShort(bytes, RowFormat.offsetEntry(1), 1);
        assertNotNull(view(bytes, bytes.length).validate());
    }

    @Test
    void shouldRejectUnknownTypeTag()
    {
        final byte[] bytes = wellFormed();
        final int at = new UnsafeBuffer(bytes).getShort(RowFormat.offsetEntry(2), ByteOrder.LITTLE_ENDIAN);
        bytes[at] = 9;
        assertNotNull(view(bytes, bytes.length).validate());
    }

    @Test
    void shouldRejectTruncatedLong()
    {
        final byte[] bytes = Rows.bytes(SCHEMA, "a", 7L);
        assertNull(view(bytes, bytes.length).validate());
        assertNotNull(view(bytes, bytes.length - 1).validate());
    }

    @Test
    void shouldRejectTruncatedDouble()
    {
        final byte[] bytes = Rows.bytes(SCHEMA, "a", 7.5);
        assertNotNull(view(bytes, bytes.length - 3).validate());
    }

    @Test
    void shouldRejectTruncatedBoolean()
    {
        final byte[] bytes = Rows.bytes(SCHEMA, "a", true);
        assertNotNull(view(bytes, bytes.length - 1).validate());
    }

    @Test
    void shouldRejectStringLengthOverrunningRow()
    {
        final byte[] bytes = Rows.bytes(SCHEMA, "a", "abc");
        final int at = RowFormat.valuesOffset(1);
        putShort(bytes, at + 1, 4);
        assertNotNull(view(bytes, bytes.length).validate());
    }

    @Test
    void shouldRejectStringWithTruncatedLengthPrefix()
    {
        final byte[] bytes = Rows.bytes(SCHEMA, "a", "");
        assertNull(view(bytes, bytes.length).validate());
        assertNotNull(view(bytes, bytes.length - 1).validate());
        assertNotNull(view(bytes, bytes.length - 2).validate());
    }

    @Test
    void shouldRejectEveryTruncationOfWellFormedRow()
    {
        final byte[] bytes = wellFormed();
        for (int length = 0; length < bytes.length; length++)
        {
            assertNotNull(view(bytes, length).validate(), "truncated to " + length);
        }
    }

    @Test
    void shouldNeverThrowOnRandomBytes()
    {
        final Random random = new Random(3);
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] bytes = new byte[2 + random.nextInt(40)];
            random.nextBytes(bytes);
            if (random.nextBoolean())
            {
                putShort(bytes, 0, random.nextInt(6));
            }
            final RowView row = view(bytes, bytes.length);
            if (row.validate() == null)
            {
                // a row that validates can be read field by field within its bounds
                for (int f = 0; f < row.fieldSlots(); f++)
                {
                    if (row.type(f) == FieldType.STRING)
                    {
                        assertTrue(row.stringBytesIndex(f) + row.stringLength(f) <= bytes.length);
                        row.getString(f);
                    }
                }
            }
        }
    }
}
