package io.junction.kafka;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Upsert output to Kafka (SEMANTICS 4.5-4.7): the result key is the record key, a delete is a tombstone. */
class UpsertEncodingTest
{
    static final Schema LEFT = Schema.of("k", "ts", "f1");
    static final Schema RIGHT = Schema.of("k", "ts", "f2");

    private static RowView view(final Schema schema, final Row row)
    {
        final byte[] bytes = JoinFixture.encode(schema, row);
        return new RowView().wrap(new UnsafeBuffer(bytes), 0, bytes.length);
    }

    @Test
    void keysByTheResultKeyAndWritesATombstoneForADelete()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.FULL).schemas(LEFT, RIGHT).leftKey("k").rightKey("k")
            .leftUniqueKey("f1").rightUniqueKey("f2").output(OutputMode.UPSERT).build();
        final ResultEncoder encoder = ResultEncoder.binary(spec);
        final RowView left = view(LEFT, Row.of("k", 5L, "ts", 10L, "f1", 1L));
        final RowView right = view(RIGHT, Row.of("k", 5L, "ts", 12L, "f2", 2L));
        final byte[] pairKey = encoder.key(ChangeKind.UPDATE_AFTER, left, right, 12);
        final Row key = RowCodec.decode(Schema.of("f1", "f2"), new RowView().wrap(new UnsafeBuffer(pairKey), 0, pairKey.length));
        assertEquals(1L, key.getLong("f1"));
        assertEquals(2L, key.getLong("f2"));
        final byte[] paddedKey = encoder.key(ChangeKind.UPDATE_AFTER, left, null, 10);
        final Row padded = RowCodec.decode(Schema.of("f1", "f2"), new RowView().wrap(new UnsafeBuffer(paddedKey), 0, paddedKey.length));
        assertEquals(1L, padded.getLong("f1"));
        assertNull(padded.get("f2"));
        assertArrayEquals(paddedKey, encoder.key(ChangeKind.DELETE, left, null, 10), "a delete names its key");
        assertNull(encoder.value(ChangeKind.DELETE, left, null, 10), "a tombstone");
        assertNotNull(encoder.value(ChangeKind.UPDATE_AFTER, left, right, 12));
        assertEquals(ChangeKind.UPDATE_AFTER, BinaryResult.parse(encoder.value(ChangeKind.UPDATE_AFTER, left, right, 12)).kind());
    }

    @Test
    void theJsonEncoderKeysByTheResultKeyAsReplayWritesItAndWritesATombstoneForADelete()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.FULL).schemas(LEFT, RIGHT).leftKey("k").rightKey("k")
            .leftUniqueKey("f1").rightUniqueKey("f2").output(OutputMode.UPSERT).build();
        final ResultEncoder encoder = new JsonResultEncoder(spec);
        final RowView left = view(LEFT, Row.of("k", 5L, "ts", 10L, "f1", 1L));
        final RowView right = view(RIGHT, Row.of("k", 5L, "ts", 12L, "f2", 2L));
        assertEquals("{\"left\":{\"f1\":1},\"right\":{\"f2\":2}}", utf8(encoder.key(ChangeKind.UPDATE_AFTER, left, right, 12)));
        assertEquals("{\"left\":{\"f1\":1},\"right\":null}", utf8(encoder.key(ChangeKind.INSERT, left, null, 10)));
        assertEquals("{\"left\":{\"f1\":1},\"right\":null}", utf8(encoder.key(ChangeKind.DELETE, left, null, 10)),
            "a delete names its key");
        assertNull(encoder.value(ChangeKind.DELETE, left, null, 10), "a tombstone");
        assertNull(encoder.value(ChangeKind.UPDATE_BEFORE, left, right, 12), "a -U is a delete too");
        assertEquals("{\"op\":\"upsert\",\"key\":{\"left\":{\"f1\":1},\"right\":{\"f2\":2}}," +
            "\"left\":{\"k\":5,\"ts\":10,\"f1\":1},\"right\":{\"k\":5,\"ts\":12,\"f2\":2},\"ts\":12}",
            utf8(encoder.value(ChangeKind.UPDATE_AFTER, left, right, 12)));
    }

    @Test
    void theJsonEncoderOfTheRetractionChangelogKeepsTheBinaryJoinKeyAndTheChangeKinds()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(LEFT, RIGHT).leftKey("k").rightKey("k").build();
        final RowView left = view(LEFT, Row.of("k", 5L, "ts", 10L, "f1", 1L));
        final ResultEncoder encoder = new JsonResultEncoder(spec);
        assertArrayEquals(ResultEncoder.binary(spec).key(ChangeKind.DELETE, left, null, 10), encoder.key(ChangeKind.DELETE, left, null, 10));
        assertEquals("{\"op\":\"-D\",\"left\":{\"k\":5,\"ts\":10,\"f1\":1},\"right\":null,\"ts\":10}",
            utf8(encoder.value(ChangeKind.DELETE, left, null, 10)));
    }

    private static String utf8(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
