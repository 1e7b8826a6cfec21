package io.junction.join;

import io.junction.api.CompareOp;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyHash;
import io.junction.internal.state.BucketDescriptor;
import io.junction.internal.state.RowStore;
import io.junction.testing.Rows;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JoinPredicate: key extraction with the pre-filter, the seeded hash, and the match of a stored row. */
class JoinPredicateTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    /** Left rows need v > 0; a pair needs left.v <= right.v. */
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA)
        .leftKey("k").rightKey("k").leftFilter("v", CompareOp.GT, Literal.of(0)).condition("v", CompareOp.LE, "v").build();
    private static final StateConfig CONFIG = StateConfig.defaults().withHashSeed(7);

    private final JoinCounters counters = new JoinCounters();

    private static RowView row(final String k, final long v)
    {
        return Rows.row(SCHEMA, "k", k, "v", v);
    }

    @Test
    void extractKeyAppliesTheSidesPreFilter()
    {
        try (RowStore store = new RowStore(4096))
        {
            final JoinPredicate predicate = new JoinPredicate(CompiledJoin.of(SPEC), CONFIG, store, counters);
            final int length = predicate.extractKey(Side.LEFT, row("a", 1));
            // KeyExtractor's format for one string field: type tag (1 byte), u16 length (2), UTF-8 bytes ("a": 1).
            assertEquals(4, length, "tag + u16 length + \"a\"");
            assertEquals(KeyHash.hash(7, predicate.key, 0, length), predicate.keyHash(length), "the configured seed");

            assertFalse(predicate.passesFilter(Side.LEFT, row("a", 0)));
            assertEquals(JoinPredicate.UNMATCHABLE, predicate.extractKey(Side.LEFT, row("a", 0)));
            assertEquals(length, predicate.extractKeyIgnoringFilter(Side.LEFT, row("a", 0), predicate.key.capacity()),
                "the key of a filtered row, for session windows");
            assertTrue(predicate.passesFilter(Side.RIGHT, row("a", 0)), "the filter is the left side's only");
            assertEquals(length, predicate.extractKey(Side.RIGHT, row("a", 0)));
        }
    }

    @Test
    void nullKeyIsUnmatchableAndALongKeyTooLong()
    {
        try (RowStore store = new RowStore(4096))
        {
            final JoinPredicate predicate = new JoinPredicate(CompiledJoin.of(SPEC), CONFIG, store, counters);
            assertEquals(JoinPredicate.UNMATCHABLE, predicate.extractKey(Side.RIGHT, Rows.row(SCHEMA, "k", null, "v", 1L)));
            assertEquals(JoinPredicate.UNMATCHABLE,
                predicate.extractKeyIgnoringFilter(Side.LEFT, Rows.row(SCHEMA, "k", null, "v", 0L), predicate.key.capacity()));
            assertEquals(JoinPredicate.TOO_LONG, predicate.extractKey(Side.RIGHT, row("a longer key", 1), 4));
        }
    }

    @Test
    void matchesNeedsTheSameKeyBytesAndTheCondition()
    {
        final long bucket = UnsafeApi.allocateMemory(BucketDescriptor.LENGTH);
        try (RowStore store = new RowStore(4096))
        {
            BucketDescriptor.init(0, bucket, 0);
            final JoinPredicate predicate = new JoinPredicate(CompiledJoin.of(SPEC), CONFIG, store, counters);
            final RowView stored = row("a", 5);
            final int storedLength = predicate.extractKey(Side.RIGHT, stored);
            final long record = store.append(bucket, Side.RIGHT.ordinal(), predicate.key, 0, storedLength, stored.buffer(), stored.offset(), stored.length(), 1);
            assertNotEquals(0, record);

            final int length = predicate.extractKey(Side.LEFT, row("a", 3));
            assertTrue(predicate.matches(record, length, Side.LEFT, row("a", 3)));
            assertEquals(Rows.pairs("k", "a", "v", 5L), Rows.decode(SCHEMA, predicate.otherRow), "the matched row, for output");
            assertFalse(predicate.matches(record, length, Side.LEFT, row("a", 9)), "left.v <= right.v fails");
            assertEquals(0, counters.hashCollisions);

            final int otherLength = predicate.extractKey(Side.LEFT, row("b", 3));
            assertFalse(predicate.matches(record, otherLength, Side.LEFT, row("b", 3)));
            assertEquals(1, counters.hashCollisions, "a row of another key in the bucket counts as a collision");

            assertTrue(predicate.conditionHolds(row("x", 1), row("y", 1)));
            assertFalse(predicate.conditionHolds(row("x", 2), row("y", 1)));
        }
        finally
        {
            UnsafeApi.freeMemory(bucket);
        }
    }
}
