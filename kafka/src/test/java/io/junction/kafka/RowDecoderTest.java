package io.junction.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.junction.api.RowFormat;
import io.junction.api.RowView;
import io.junction.api.Schema;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link RowDecoder#decodeInto}, the runner's way to decode: the binary decoder reads the value in place, any
 * other decoder writes into the scratch buffer, which the row then reads.
 */
class RowDecoderTest
{
    private final UnsafeBuffer row = new UnsafeBuffer(new byte[0]);
    private final UnsafeBuffer scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(RowFormat.MAX_ROW_LENGTH));

    @Test
    void theBinaryDecoderPointsTheRowAtTheValueWithoutACopy()
    {
        final byte[] value = {1, 2, 3};
        assertEquals(3, RowDecoder.binary().decodeInto(value, row, scratch));
        assertSame(value, row.byteArray());
        assertEquals(3, row.capacity());
        assertEquals(0, scratch.getByte(0), "the scratch buffer is not written");
    }

    @Test
    void anotherDecoderWritesIntoTheScratchBufferThatTheRowThenReads()
    {
        final RowDecoder json = new JsonRowDecoder(Schema.of("k", "v"));
        final int length = json.decodeInto("{\"k\":7,\"v\":9}".getBytes(StandardCharsets.UTF_8), row, scratch);
        final RowView view = new RowView().wrap(row, 0, length);
        assertEquals(7, view.getLong(0));
        assertEquals(9, view.getLong(1));
        assertEquals(scratch.addressOffset(), row.addressOffset());
        assertEquals(RowDecoder.UNDECODABLE, json.decodeInto("{".getBytes(StandardCharsets.UTF_8), row, scratch));
    }
}
