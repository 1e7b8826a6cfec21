package io.junction.tools.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RowPayloadTest
{

    @Test
    void shouldDeriveF2FromKeyAndSide()
    {
        assertEquals(1_000_003L * 5 + 1, RowPayload.f2(5, WorkloadSink.RIGHT));
        assertEquals(0L, RowPayload.f2(0, WorkloadSink.LEFT));
        assertEquals(Long.MAX_VALUE * 1_000_003L, RowPayload.f2(Long.MAX_VALUE, WorkloadSink.LEFT)); // wraps
    }

    @Test
    void shouldFormatF3AsZeroPaddedLowercaseHex()
    {
        final byte[] dst = new byte[32];
        RowPayload.f3(0xABCL, 1L, dst);
        assertEquals("0000000000000abc0000000000000001", new String(dst, StandardCharsets.US_ASCII));
    }

    @Test
    void shouldFormatNegativeF2InTwosComplement()
    {
        final long key = SplitMix64.mix64(1);              // a W1 key
        final long f2 = RowPayload.f2(key, WorkloadSink.LEFT);
        final byte[] dst = new byte[40];
        RowPayload.f3(-1L, 255L, dst, 4);
        assertEquals("ffffffffffffffff00000000000000ff", new String(dst, 4, 32, StandardCharsets.US_ASCII));
        RowPayload.f3(Long.MIN_VALUE, 0L, dst, 8);
        assertEquals("80000000000000000000000000000000", new String(dst, 8, 32, StandardCharsets.US_ASCII));
        RowPayload.f3(f2, 12345L, dst, 0);
        assertEquals(Checksum.hex16(f2) + Checksum.hex16(12345L), new String(dst, 0, 32, StandardCharsets.US_ASCII));
        assertEquals(Checksum.hex16(f2) + Checksum.hex16(12345L),
            RowPayload.f3(f2, 12345L, new StringBuilder("junk")).toString());
    }

    @Test
    void shouldWriteTheWhole48BytePayloadBigEndian()
    {
        final long key = -7L;
        final byte[] dst = new byte[50];
        RowPayload.write(key, WorkloadSink.RIGHT, 99L, dst, 2);
        final ByteBuffer bb = ByteBuffer.wrap(dst, 2, 48);   // big-endian by default
        assertEquals(99L, bb.getLong());
        final long f2 = bb.getLong();
        assertEquals(-7L * 1_000_003L + 1, f2);
        assertEquals(Checksum.hex16(f2) + Checksum.hex16(99L), new String(dst, 18, 32, StandardCharsets.US_ASCII));
        assertEquals("ffffffffff95302c", Checksum.hex16(f2));
    }
}
