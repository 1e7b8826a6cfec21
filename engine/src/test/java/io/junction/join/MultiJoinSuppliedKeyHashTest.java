package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.row.KeyExtractor;
import io.junction.internal.row.KeyHash;
import io.junction.testing.Rows;
import io.junction.testing.ForwardingOperator;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * The multi-way join's key is hashed once per row too (as {@link SuppliedKeyHashTest} shows for the binary kinds):
 * a row given with its common-key hash ({@link JoinOperator#onInputRow(int, ChangeKind, RowView, long, long, long)},
 * the runtime's publisher computed it to route the row) is stored and looked up under that hash, masked as every
 * hash of the join, not under one the join computes again; a row given without one is hashed with the same
 * function and seed, so both entries agree, in randomized scenarios too. A supplied hash the state cannot trust
 * (no fixed seed) is ignored; a row that can never match is kept by its content's hash whatever it came with.
 */
class MultiJoinSuppliedKeyHashTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final long SEED = 4242;
    private static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1024).withHashSeed(SEED);
    /** Not the hash of any key these tests use (checked): a row under it lands in a bucket of its own. */
    private static final long BOGUS = 0x5EED_0000_0000_0001L;
    /** orders ⋈ payments ⟕ shipments, on one key field. */
    private static final JoinSpec SPEC = JoinSpec.multi(MultiJoinSpec.builder(SCHEMA)
        .input("orders", "k")
        .input("payments", JoinType.INNER, "k")
        .input("shipments", JoinType.LEFT, "k")
        .build());

    private final MultiJoinStateTest.Collector out = new MultiJoinStateTest.Collector();

    private static RowView row(final String k, final long v)
    {
        return Rows.row(SCHEMA, "k", k, "v", v);
    }

    /** Input {@code input}'s key extractor, as the publisher builds it from the spec. */
    private static KeyExtractor extractor(final MultiJoinSpec multi, final int input)
    {
        final List<String> fields = multi.key(input);
        final int[] indices = new int[fields.size()];
        for (int f = 0; f < indices.length; f++)
        {
            indices[f] = multi.schema(input).indexOf(fields.get(f));
        }
        return new KeyExtractor(indices);
    }

    /** The hash the publisher computes: the key extractor's bytes, {@link KeyHash} under the seed (0 for a null key). */
    private static long routedHash(final KeyExtractor extractor, final UnsafeBuffer key, final RowView row)
    {
        final int length = extractor.extract(row, key, 0, key.capacity());
        return length < 0 ? 0 : KeyHash.hash(SEED, key, 0, length);
    }

    private static long routedHash(final MultiJoinSpec multi, final int input, final RowView row)
    {
        return routedHash(extractor(multi, input), new UnsafeBuffer(ByteBuffer.allocateDirect(CONFIG.maxKeyLength())), row);
    }

    private int results()
    {
        int results = 0;
        for (final String line : out.lines)
        {
            if (line.contains(" dead "))
            {
                throw new AssertionError("no dead letter expected: " + line);
            }
            results++;
        }
        return results;
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void aRowIsStoredAndFoundUnderTheHashItCameWith(final IndexKind kind)
    {
        final long trueHash = routedHash(SPEC.multi(), 1, row("a", 1));
        assertNotEquals(trueHash, BOGUS);
        try (MultiJoin join = new MultiJoin(SPEC, CONFIG.withIndex(kind), out, out))
        {
            join.onInputRow(1, ChangeKind.INSERT, row("a", 1), 0, 0, BOGUS);
            assertNotEquals(0, join.state().index.find(BOGUS), "stored in the supplied hash's bucket");
            assertEquals(0, join.state().index.find(trueHash), "not in the one the join would have computed");

            join.onInputRow(0, ChangeKind.INSERT, row("a", 1), 0, 1);
            assertEquals(0, results(), "an order hashed by the join looks in the key's own bucket: empty");
            join.onInputRow(0, ChangeKind.INSERT, row("a", 2), 0, 2, BOGUS);
            assertEquals(1, results(), "an order with the same supplied hash finds the stored payment");
            join.onInputRow(1, ChangeKind.DELETE, row("a", 1), 0, 3, BOGUS);
            assertEquals(2, results(), "and the payment's retraction under it retracts the combination");
            assertEquals(0, join.liveRows(1));
        }
    }

    @Test
    void theTwoSidedEntryTakesTheHashToo()
    {
        try (MultiJoin join = new MultiJoin(SPEC, CONFIG, out, out))
        {
            join.onRow(Side.RIGHT, ChangeKind.INSERT, row("a", 1), 0, 0, BOGUS);
            assertNotEquals(0, join.state().index.find(BOGUS), "input 1's row, under the supplied hash");
            join.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 2), 0, 1, BOGUS);
            assertEquals(1, results());
        }
    }

    @Test
    void aRowWithoutAHashIsHashedWithTheSameFunctionAndSeed()
    {
        try (MultiJoin join = new MultiJoin(SPEC, CONFIG, out, out))
        {
            // The entry of tests, tools and direct drivers: no hash given.
            join.onInputRow(1, ChangeKind.INSERT, row("a", 1), 0, 0);
            assertNotEquals(0, join.state().index.find(routedHash(SPEC.multi(), 1, row("a", 1))),
                "the join's own hash is the publisher's");
            join.onInputRow(0, ChangeKind.INSERT, row("a", 2), 0, 1, routedHash(SPEC.multi(), 0, row("a", 2)));
            assertEquals(1, results(), "a row with the routed hash finds one stored without a hash");
            join.onInputRow(0, ChangeKind.INSERT, row("a", 3), 0, 2);
            assertEquals(2, results(), "and so does one without");
            join.onInputRow(0, ChangeKind.INSERT, row("b", 4), 0, 3);
            assertEquals(2, results(), "another key finds nothing");
        }
    }

    @Test
    void theJoinsHashMaskAppliesToTheSuppliedHash()
    {
        try (MultiJoin join = new MultiJoin(SPEC, CONFIG, out, out, 0x3L))
        {
            join.onInputRow(1, ChangeKind.INSERT, row("a", 1), 0, 0, BOGUS);
            assertNotEquals(0, join.state().index.find(BOGUS & 0x3L), "stored under the masked hash");
            assertEquals(0, join.state().index.find(BOGUS));
            // Another supplied hash with the same low bits: the same bucket once masked, and the same key.
            join.onInputRow(0, ChangeKind.INSERT, row("a", 2), 0, 1, BOGUS | 0xF0L);
            assertEquals(1, results(), "the masked hashes meet");
        }
    }

    @Test
    void aHashIsIgnoredWhenTheSeedIsNotFixed()
    {
        try (MultiJoin join = new MultiJoin(SPEC, StateConfig.defaults().withMaxKeys(1024), out, out))
        {
            // No caller can know a seed drawn at random: the join hashes the key itself.
            join.onInputRow(1, ChangeKind.INSERT, row("a", 1), 0, 0, BOGUS);
            assertEquals(0, join.state().index.find(BOGUS));
            join.onInputRow(0, ChangeKind.INSERT, row("a", 2), 0, 1);
            assertEquals(1, results());
        }
    }

    @Test
    void aRowThatCanNeverMatchIsKeptByItsContentWhateverHashItCameWith()
    {
        try (MultiJoin join = new MultiJoin(SPEC, CONFIG, out, out))
        {
            final RowView nullKey = Rows.row(SCHEMA, "k", null, "v", 1L);
            join.onInputRow(1, ChangeKind.INSERT, nullKey, 0, 0, BOGUS);
            assertEquals(0, join.state().index.find(BOGUS), "a null key's row is bucketed by content");
            assertEquals(1, join.liveRows(1));
            join.onInputRow(1, ChangeKind.DELETE, Rows.row(SCHEMA, "k", null, "v", 1L), 0, 1);
            assertEquals(0, join.liveRows(1), "its retraction without a hash finds it");
            assertEquals(0, results(), "nothing emitted, no dead letter");
        }
    }

    /**
     * Randomized (fixed seeds): the same events given with their routed hashes and without give the same output,
     * keys and live rows, on both indexes and with a narrow hash mask (colliding keys) too.
     */
    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void routedAndOwnHashesGiveTheSameJoin(final IndexKind kind)
    {
        // Fewer on Chronicle Map: each of its maps costs milliseconds to create.
        final int scenarios = kind == IndexKind.CHRONICLE ? 20 : 120;
        final StateConfig config = CONFIG.withIndex(kind);
        for (int seed = 0; seed < scenarios; seed++)
        {
            final Random random = new Random(0x21_5000L + seed);
            final int inputs = 2 + random.nextInt(3);
            final JoinSpec spec = JoinSpec.multi(MultiJoinStateTest.spec(random, inputs));
            final long mask = random.nextInt(3) == 0 ? 0x3L : -1L;
            final MultiJoinStateTest.Collector plain = new MultiJoinStateTest.Collector();
            final MultiJoinStateTest.Collector routed = new MultiJoinStateTest.Collector();
            try (MultiJoin a = new MultiJoin(spec, config, plain, plain, mask);
                 MultiJoin b = new MultiJoin(spec, config, routed, routed, mask))
            {
                MultiJoinStateTest.feed(random, inputs, a, new Routed(b, spec.multi()));
                final String where = "seed " + seed + " mask " + mask + " " + spec.multi();
                assertEquals(plain.lines, routed.lines, where);
                assertEquals(a.keys(), b.keys(), where);
                for (int i = 0; i < inputs; i++)
                {
                    assertEquals(a.liveRows(i), b.liveRows(i), where);
                }
            }
        }
    }

    /**
     * Gives every row to a multi-way join with its routed hash, as the runtime's partition does; the rest is
     * forwarded ({@link ForwardingOperator}), but close, which the test does itself.
     */
    private static final class Routed extends ForwardingOperator
    {
        private final KeyExtractor[] keys;
        private final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(CONFIG.maxKeyLength()));

        Routed(final MultiJoin join, final MultiJoinSpec multi)
        {
            super(join);
            this.keys = new KeyExtractor[multi.inputs()];
            for (int i = 0; i < keys.length; i++)
            {
                keys[i] = extractor(multi, i);
            }
        }

        @Override
        public void onInputRow(final int input, final ChangeKind kind, final RowView row, final long ts, final long step)
        {
            delegate.onInputRow(input, kind, row, ts, step, routedHash(keys[input], key, row));
        }

        @Override
        public void onRow(final Side side, final ChangeKind kind, final RowView row, final long ts, final long step)
        {
            throw new AssertionError("the scenarios give input rows");
        }

        @Override
        public void onInputWatermark(final int input, final long watermark, final long step)
        {
            delegate.onInputWatermark(input, watermark, step);
        }

        @Override
        public void close()
        {
        }
    }
}
