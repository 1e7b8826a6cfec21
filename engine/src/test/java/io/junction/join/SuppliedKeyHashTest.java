package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.row.CompiledJoin;
import io.junction.internal.row.KeyHash;
import io.junction.testing.Rows;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The key is hashed once per row: a row given to an operator with its join-key hash (the runtime's publisher
 * computed it to route the row) is stored and looked up under that hash, not under one the operator computes
 * again; a row given without one (tests, tools, direct drivers) is hashed by the operator with the same function
 * and seed, so both entries agree. A supplied hash the state cannot trust (no fixed seed: a random one, or a reopened
 * state's marker's) is ignored; a reopen under another fixed seed is refused.
 */
class SuppliedKeyHashTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final long SEED = 4242;
    private static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1024).withHashSeed(SEED);
    /** Not the hash of any key these tests use (checked): a row under it lands in a bucket of its own. */
    private static final long BOGUS = 0x5EED_0000_0000_0001L;

    /** The kinds whose stored rows a later row finds at once (no watermark needed), each with its own lookup. */
    enum Kind
    {
        REGULAR(JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").build()),
        INTERVAL(JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k")
            .interval(IntervalBounds.inclusive(-10, 10)).build()),
        LOOKUP(JoinSpec.builder(JoinKind.LOOKUP, JoinType.INNER).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").build());

        final JoinSpec spec;

        Kind(final JoinSpec spec)
        {
            this.spec = spec;
        }
    }

    private int results;
    private int deadLetters;
    private final ResultHandler counting = (kind, left, right, ts, step) -> results++;

    private static RowView row(final String k, final long v)
    {
        return Rows.row(SCHEMA, "k", k, "v", v);
    }

    /** The hash the publisher computes: the side's key extractor's bytes, {@link KeyHash} under the seed. */
    private static long routedHash(final JoinSpec spec, final Side side, final RowView row, final long seed)
    {
        final UnsafeBuffer key = new UnsafeBuffer(ByteBuffer.allocateDirect(CONFIG.maxKeyLength()));
        final int length = CompiledJoin.of(spec).key(side).extract(row, key, 0, key.capacity());
        return KeyHash.hash(seed, key, 0, length);
    }

    private JoinOperator operator(final JoinSpec spec, final StateConfig config)
    {
        return JoinOperators.create(spec, config, counting, (side, kind, row, ts, step, reason) -> deadLetters++);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRowIsStoredAndFoundUnderTheHashItCameWith(final Kind kind)
    {
        final long trueHash = routedHash(kind.spec, Side.RIGHT, row("a", 1), SEED);
        assertNotEquals(trueHash, BOGUS);
        try (JoinOperator operator = operator(kind.spec, CONFIG))
        {
            final PartitionState state = ((OperatorDriver)operator).state;
            operator.onRow(Side.RIGHT, ChangeKind.INSERT, row("a", 1), 0, 0, BOGUS);
            assertNotEquals(0, state.index.find(BOGUS), "stored in the supplied hash's bucket");
            assertEquals(0, state.index.find(trueHash), "not in the one the operator would have computed");

            operator.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 1), 0, 1);
            assertEquals(0, results, "a left row hashed by the operator looks in the key's own bucket: empty");
            operator.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 1), 0, 2, BOGUS);
            assertEquals(1, results, "a left row with the same supplied hash finds the stored row");
            assertEquals(0, deadLetters);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRowWithoutAHashIsHashedWithTheSameFunctionAndSeed(final Kind kind)
    {
        try (JoinOperator operator = operator(kind.spec, CONFIG))
        {
            final PartitionState state = ((OperatorDriver)operator).state;
            // The entry of tests, tools and direct drivers: no hash given.
            operator.onRow(Side.RIGHT, ChangeKind.INSERT, row("a", 1), 0, 0);
            assertNotEquals(0, state.index.find(routedHash(kind.spec, Side.RIGHT, row("a", 1), SEED)),
                "the operator's own hash is the publisher's");
            operator.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 1), 0, 1, routedHash(kind.spec, Side.LEFT, row("a", 1), SEED));
            assertEquals(1, results, "a row with the routed hash finds one stored without a hash");
            operator.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 2), 0, 2);
            assertEquals(2, results, "and so does one without");
            operator.onRow(Side.LEFT, ChangeKind.INSERT, row("b", 3), 0, 3);
            assertEquals(2, results, "another key finds nothing");
        }
    }

    @Test
    void aHashIsIgnoredWhenTheSeedIsNotFixed()
    {
        final JoinSpec spec = Kind.REGULAR.spec;
        try (JoinOperator operator = operator(spec, StateConfig.defaults().withMaxKeys(1024)))
        {
            // No caller can know a seed drawn at random: the operator hashes the key itself.
            operator.onRow(Side.RIGHT, ChangeKind.INSERT, row("a", 1), 0, 0, BOGUS);
            assertEquals(0, ((OperatorDriver)operator).state.index.find(BOGUS));
            operator.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 1), 0, 1);
            assertEquals(1, results);
        }
    }

    @Test
    void aReopenedStateKeepsItsMarkersSeed(@TempDir final Path directory)
    {
        final JoinSpec spec = Kind.REGULAR.spec;
        try (JoinOperator operator = operator(spec, CONFIG.withStateDirectory(directory)))
        {
            operator.onRow(Side.RIGHT, ChangeKind.INSERT, row("a", 1), 0, 0, routedHash(spec, Side.RIGHT, row("a", 1), SEED));
        }
        // Stored hashes mean what they meant: another fixed seed is refused, so a supplied hash is never under it.
        assertThrows(DurableStateException.class, () -> operator(spec, CONFIG.withHashSeed(SEED + 1).withStateDirectory(directory)));
        // With no fixed seed the state takes its marker's, which no caller was told: the operator hashes the key itself.
        try (JoinOperator operator = operator(spec, StateConfig.defaults().withMaxKeys(1024).withStateDirectory(directory)))
        {
            operator.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 1), 0, 1, BOGUS);
            assertEquals(1, results, "the stored row is found under the marker's seed");
        }
        // And with the marker's seed fixed, the routed hash finds it.
        try (JoinOperator operator = operator(spec, CONFIG.withStateDirectory(directory)))
        {
            operator.onRow(Side.LEFT, ChangeKind.INSERT, row("a", 2), 0, 2, routedHash(spec, Side.LEFT, row("a", 2), SEED));
            assertEquals(2, results);
            assertEquals(0, deadLetters);
        }
    }
}
