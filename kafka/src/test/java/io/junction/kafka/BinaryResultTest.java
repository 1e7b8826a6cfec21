package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BinaryResultTest
{
    private static RowView view(final byte[] bytes)
    {
        return new RowView().wrap(new UnsafeBuffer(bytes), 0, bytes.length);
    }

    @Test
    void shouldReadBackWhatTheBinaryEncoderWrites()
    {
        final byte[] left = JoinFixture.encode(JoinFixture.LEFT, Row.of("k", 5L, "ts", 10L, "f1", 1L));
        final byte[] right = JoinFixture.encode(JoinFixture.RIGHT, Row.of("k", 5L, "ts", 12L, "f2", 2L));
        final ResultEncoder encoder = ResultEncoder.binary(JoinFixture.INNER);

        final BinaryResult pair = BinaryResult.parse(encoder.value(ChangeKind.UPDATE_AFTER, view(left), view(right), 12));
        assertEquals(ChangeKind.UPDATE_AFTER, pair.kind());
        assertArrayEquals(left, pair.left());
        assertArrayEquals(right, pair.right());
        assertEquals(12, pair.timestamp());

        final BinaryResult padded = BinaryResult.parse(encoder.value(ChangeKind.INSERT, null, view(right), 12));
        assertNull(padded.left());
        assertNull(padded.leftView());
        assertArrayEquals(right, padded.right());
    }

    @Test
    void shouldKeyByTheJoinKeyOfEitherSide()
    {
        final ResultEncoder encoder = ResultEncoder.binary(JoinFixture.INNER);
        final byte[] right = JoinFixture.encode(JoinFixture.RIGHT, Row.of("k", 7L, "ts", 12L, "f2", 2L));
        final byte[] left = JoinFixture.encode(JoinFixture.LEFT, Row.of("k", 7L, "ts", 10L, "f1", 1L));
        final byte[] byRight = encoder.key(ChangeKind.INSERT, null, view(right), 12);
        final byte[] byLeft = encoder.key(ChangeKind.INSERT, view(left), view(right), 12);
        assertArrayEquals(byLeft, byRight, "equal join keys, equal record keys");
        assertEquals(7L, RowCodec.decode(Schema.of("k"), view(byLeft)).getLong("k"));
    }

    @Test
    void shouldRefuseBytesThatAreNotAResult()
    {
        assertThrows(IllegalArgumentException.class, () -> BinaryResult.parse(new byte[] {0, 0, 0}));
        assertThrows(IllegalArgumentException.class, () -> BinaryResult.parse(new byte[] {9, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0}));
    }
}
