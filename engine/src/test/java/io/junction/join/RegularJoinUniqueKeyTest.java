package io.junction.join;

import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.row.KeyHash;
import io.junction.join.RegularJoin.UniqueKeyShape;
import io.junction.testing.DeadLetter;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Declared unique keys of a regular join, event by event, in each state shape: the output equals that
 * of the same spec without the declaration (every event is fed to both), and every way of breaking the
 * promise is dead-lettered before it has any effect.
 */
class RegularJoinUniqueKeyTest
{
    /** The left rows' join key is {@code id}; {@code oid} is an order id, unique per live left row. */
    static final Schema LEFT = Schema.of("id", "oid", "price", "k2");
    /** The right rows' join key is {@code id}; {@code rid} is unique per live right row. */
    static final Schema RIGHT = Schema.of("budget", "id", "rid", "k2");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(4096).withMaxLiveRows(1 << 16);

    static JoinSpec.Builder spec(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT).leftKey("id").rightKey("id");
    }

    /**
     * Runs every event on two operators, the declared one and the same spec without unique keys, and
     * checks that they agree on every output (kind, rows, timestamp) and every dead letter except those
     * the declaration adds ({@link DeadLetterReason#UNIQUE_KEY_VIOLATION}, which the plain operator is not fed).
     */
    static final class Twin implements AutoCloseable
    {
        final JoinHarness declared;
        final JoinHarness plain;

        Twin(final JoinType type, final Consumer<JoinSpec.Builder> common, final Consumer<JoinSpec.Builder> uniqueKeys,
            final StateConfig config)
        {
            final JoinSpec.Builder withKeys = spec(type);
            common.accept(withKeys);
            uniqueKeys.accept(withKeys);
            final JoinSpec.Builder without = spec(type);
            common.accept(without);
            declared = new JoinHarness(withKeys.build(), config);
            plain = new JoinHarness(without.build(), config);
        }

        Twin(final JoinType type, final Consumer<JoinSpec.Builder> uniqueKeys)
        {
            this(type, b -> { }, uniqueKeys, CONFIG);
        }

        RegularJoin op()
        {
            return (RegularJoin)((OperatorDriver)declared.operator()).algorithm();
        }

        /** Feeds a row to both operators. @return the declared operator's outputs, as kinded text. */
        List<String> row(final Side side, final long ts, final String op, final Object... nameValues)
        {
            final int plainDead = plain.deadLetters().size();
            final int declaredDead = declared.deadLetters().size();
            final List<Output> outputs = declared.row(side, op, ts, nameValues);
            final List<Output> expected = plain.row(side, op, ts, nameValues);
            assertEquals(texts(expected), texts(outputs), "the declaration changed the output");
            assertEquals(letters(plain.deadLetters().deadLetters().subList(plainDead, plain.deadLetters().size())),
                letters(declared.deadLetters().deadLetters().subList(declaredDead, declared.deadLetters().size())),
                "the declaration changed the dead letters");
            return kinded(outputs);
        }

        List<String> left(final String op, final Object... nameValues)
        {
            return row(Side.LEFT, 0, op, nameValues);
        }

        List<String> right(final String op, final Object... nameValues)
        {
            return row(Side.RIGHT, 0, op, nameValues);
        }

        /** Feeds a row the declaration rejects to the declared operator only, and checks it was rejected whole. */
        void violation(final Side side, final String op, final Object... nameValues)
        {
            final long liveLeft = declared.counters().liveLeft();
            final long liveRight = declared.counters().liveRight();
            final long badInputs = declared.counters().badInputs();
            final int dead = declared.deadLetters().size();
            assertEquals(List.of(), declared.row(side, op, 0, nameValues), "a violation emits nothing");
            assertEquals(dead + 1, declared.deadLetters().size());
            final DeadLetter letter = declared.deadLetters().deadLetters().get(dead);
            assertEquals(DeadLetterReason.UNIQUE_KEY_VIOLATION, letter.reason(), letter.toString());
            assertEquals(side, letter.side());
            assertEquals(badInputs + 1, declared.counters().badInputs(), "counted as bad input");
            assertEquals(liveLeft, declared.counters().liveLeft(), "nothing stored or removed");
            assertEquals(liveRight, declared.counters().liveRight(), "nothing stored or removed");
        }

        void watermark(final long watermark)
        {
            assertEquals(texts(plain.watermark(watermark)), texts(declared.watermark(watermark)));
        }

        DeadLetterReason lastDeadLetter()
        {
            final List<DeadLetter> all = declared.deadLetters().deadLetters();
            return all.isEmpty() ? null : all.get(all.size() - 1).reason();
        }

        @Override
        public void close()
        {
            declared.close();
            plain.close();
        }
    }

    static List<String> texts(final List<Output> outputs)
    {
        final List<String> list = new ArrayList<>();
        for (final Output o : outputs)
        {
            list.add(o.kinded() + " @" + o.timestamp());
        }
        return list;
    }

    /** Dead letters without their steps: the plain operator is not fed the violations, so steps differ. */
    static List<String> letters(final List<DeadLetter> letters)
    {
        final List<String> list = new ArrayList<>();
        for (final DeadLetter d : letters)
        {
            list.add(d.side() + " " + d.kind() + " " + d.row() + " @" + d.ts() + " " + d.reason());
        }
        return list;
    }

    static List<String> kinded(final List<Output> outputs)
    {
        final List<String> list = new ArrayList<>();
        for (final Output o : outputs)
        {
            list.add(o.kinded());
        }
        return list;
    }

    static String row(final Object... nameValues)
    {
        return RegularJoinTest.row(nameValues);
    }

    // ---------------------------------------------------------------- the spec

    @Test
    void shouldDeclareUniqueKeysOnRegularJoinsOnly()
    {
        final JoinSpec spec = spec(JoinType.INNER).leftUniqueKey("oid").rightUniqueKey("rid", "id").build();
        assertEquals(List.of("oid"), spec.leftUniqueKey());
        assertEquals(List.of("rid", "id"), spec.rightUniqueKey());
        assertEquals(List.of("oid"), spec.uniqueKey(Side.LEFT));
        assertEquals(List.of("rid", "id"), spec.uniqueKey(Side.RIGHT));
        assertTrue(spec.toString().contains("leftUniqueKey=[oid] rightUniqueKey=[rid, id]"), spec.toString());
        final JoinSpec none = spec(JoinType.INNER).build();
        assertEquals(List.of(), none.leftUniqueKey());
        assertTrue(!none.toString().contains("UniqueKey"), none.toString());

        final IllegalArgumentException window = assertThrows(IllegalArgumentException.class, () ->
            JoinSpec.builder(JoinKind.WINDOW, JoinType.INNER).schemas(LEFT, RIGHT).leftKey("id").rightKey("id")
                .window(WindowSpec.tumbling(10, 0)).leftUniqueKey("oid").build());
        assertTrue(window.getMessage().startsWith("leftUniqueKey: only for regular joins"), window.getMessage());
        final IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () ->
            spec(JoinType.INNER).rightUniqueKey().build());
        assertTrue(empty.getMessage().startsWith("rightUniqueKey: at least one field"), empty.getMessage());
        final IllegalArgumentException duplicate = assertThrows(IllegalArgumentException.class, () ->
            spec(JoinType.INNER).leftUniqueKey("oid", "id").leftUniqueKey("oid").build());
        assertTrue(duplicate.getMessage().startsWith("leftUniqueKey: duplicate field 'oid'"), duplicate.getMessage());
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () ->
            spec(JoinType.INNER).leftUniqueKey("rid").build());
        assertTrue(unknown.getMessage().startsWith("leftUniqueKey: unknown field 'rid'"), "a field of the other side: " +
            unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> spec(JoinType.INNER).rightUniqueKey((String)null).build());
    }

    @Test
    void shouldChooseTheShapeOfEachSide()
    {
        try (JoinHarness h = new JoinHarness(spec(JoinType.INNER).leftUniqueKey("id").rightUniqueKey("rid").build(), CONFIG))
        {
            final RegularJoin op = (RegularJoin)((OperatorDriver)h.operator()).algorithm();
            assertEquals(UniqueKeyShape.IN_JOIN_KEY, RegularJoinViews.shape(op, Side.LEFT));
            assertNull(RegularJoinViews.uniqueKeys(op, Side.LEFT), "the join key's bucket is the index");
            assertEquals(UniqueKeyShape.INDEXED, RegularJoinViews.shape(op, Side.RIGHT));
            assertEquals(CONFIG.maxLiveRows(), RegularJoinViews.uniqueKeys(op, Side.RIGHT).capacity(), "capped by the live rows");
        }
        final JoinSpec composite = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(LEFT, RIGHT)
            .leftKey("id", "k2").rightKey("id", "k2").leftUniqueKey("k2", "id").rightUniqueKey("id", "rid").build();
        assertEquals(UniqueKeyShape.IN_JOIN_KEY, RegularJoin.shape(composite, Side.LEFT), "any order of the fields");
        assertEquals(UniqueKeyShape.INDEXED, RegularJoin.shape(composite, Side.RIGHT), "one field beyond the join key");
        assertEquals(UniqueKeyShape.NONE, RegularJoin.shape(spec(JoinType.INNER).build(), Side.LEFT));
    }

    // ---------------------------------------------------------------- shape (a): the join key holds the unique key

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void inJoinKeyShouldUpdateAsWithoutTheDeclaration(final IndexKind index)
    {
        try (Twin t = new Twin(JoinType.FULL, b -> { }, b -> b.leftUniqueKey("id").rightUniqueKey("id"), CONFIG.withIndex(index)))
        {
            assertEquals(List.of("+I " + row("id", 1, "price", 10) + " null"), t.left("+I", "id", 1, "price", 10));
            assertEquals(2, t.right("+I", "id", 1, "budget", 5).size());
            assertEquals(2, t.left("-U", "id", 1, "price", 10).size());
            assertEquals(2, t.left("+U", "id", 1, "price", 20).size());
            assertEquals(2, t.right("-D", "id", 1, "budget", 5).size());
            assertEquals(1, t.left("-D", "id", 1, "price", 20).size());
            assertEquals(0, t.op().state.store.liveRows());
            assertEquals(0, t.op().state.index.size());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void inJoinKeyShouldDeadLetterEveryViolation(final IndexKind index)
    {
        try (Twin t = new Twin(JoinType.INNER, b -> { }, b -> b.leftUniqueKey("id"), CONFIG.withIndex(index)))
        {
            t.left("+I", "id", 1, "price", 10);
            t.right("+I", "id", 1, "budget", 5);
            t.violation(Side.LEFT, "+I", "id", 1, "price", 11);
            t.violation(Side.LEFT, "+U", "id", 1, "price", 10);
            t.violation(Side.LEFT, "+I", "id", null, "price", 10);
            t.violation(Side.LEFT, "+I", "price", 10);
            t.violation(Side.LEFT, "-D", "id", null, "price", 10);
            // the right side declares nothing: two rows of one key are fine there
            assertEquals(1, t.right("+I", "id", 1, "budget", 6).size());
            // a retraction of the live key with other row bytes is not in state, as without the declaration
            assertEquals(List.of(), t.left("-U", "id", 1, "price", 11));
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, t.lastDeadLetter());
            assertEquals(List.of(), t.left("-D", "id", 2, "price", 10));
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, t.lastDeadLetter());
            // the stored row was untouched by all of it
            assertEquals(2, t.left("-D", "id", 1, "price", 10).size());
            assertEquals(2, t.left("+I", "id", 1, "price", 12).size(), "the key is free again");
        }
    }

    @Test
    void inJoinKeyShouldTellApartKeysWhoseHashesCollide()
    {
        final byte[][] keys = RegularJoinTest.collidingStrings();
        assertNotNull(keys, "no colliding keys were constructed for the fixed seed");
        try (Twin t = new Twin(JoinType.LEFT, b -> { }, b -> b.leftUniqueKey("id"), CONFIG.withHashSeed(KeyHash.DEFAULT_SEED)))
        {
            t.left("+I", "id", keys[0], "price", 1);
            t.left("+I", "id", keys[1], "price", 2);
            assertEquals(1, t.op().state.index.size(), "one bucket holds both keys");
            assertEquals(2, t.declared.counters().liveLeft(), "a colliding key is another key, not a duplicate");
            t.violation(Side.LEFT, "+I", "id", keys[1], "price", 3);
            t.violation(Side.LEFT, "+I", "id", keys[0], "price", 3);
            assertEquals(1, t.left("-D", "id", keys[1], "price", 2).size());
            assertEquals(1, t.left("-D", "id", keys[0], "price", 1).size());
            assertEquals(0, t.op().state.index.size());
        }
    }

    @Test
    void inJoinKeyShouldNotCheckRowsThatCanNeverMatch()
    {
        // Documented: rows that can never match (here: failing the pre-filter) live apart from their join
        // key, so the bucket cannot see their duplicates; only a null unique-key field is caught there.
        try (Twin t = new Twin(JoinType.LEFT, b -> b.leftFilter("price", CompareOp.GE, Literal.of(5)),
            b -> b.leftUniqueKey("id"), CONFIG))
        {
            t.left("+I", "id", 1, "price", 1);
            t.left("+I", "id", 1, "price", 2);
            t.violation(Side.LEFT, "+I", "id", null, "price", 1);
            assertEquals(2, t.declared.counters().liveLeft());
            assertEquals(1, t.left("-D", "id", 1, "price", 1).size());
            assertEquals(1, t.left("-D", "id", 1, "price", 2).size());
        }
    }

    @Test
    void inJoinKeyShouldFreeTheKeyWhenItsRowExpiresAndAcceptItAgain()
    {
        try (Twin t = new Twin(JoinType.INNER, b -> b.stateTtl(1000), b -> b.leftUniqueKey("id"), CONFIG))
        {
            t.row(Side.LEFT, 5000, "+I", "id", 1, "price", 1);
            t.watermark(6001);
            assertEquals(1, t.declared.counters().expiredRows());
            assertEquals(List.of(), t.row(Side.LEFT, 7000, "+I", "id", 1, "price", 2));
            assertEquals(0, t.declared.deadLetters().size(), "the expired row's key is free");
            assertEquals(1, t.row(Side.RIGHT, 7000, "+I", "id", 1).size());
            t.violation(Side.LEFT, "+I", "id", 1, "price", 3);
        }
    }

    // ---------------------------------------------------------------- shape (b): a unique key beyond the join key

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void indexedShouldFollowAnUpdateThatChangesTheJoinKey(final IndexKind index)
    {
        try (Twin t = new Twin(JoinType.FULL, b -> { }, b -> b.leftUniqueKey("oid").rightUniqueKey("rid"), CONFIG.withIndex(index)))
        {
            t.left("+I", "id", 1, "oid", 7, "price", 10);
            t.right("+I", "id", 1, "rid", 100);
            t.right("+I", "id", 2, "rid", 200);
            assertEquals(2, RegularJoinViews.uniqueKeys(t.op(), Side.RIGHT).size());
            assertEquals(List.of(
                "-D " + row("id", 1, "oid", 7, "price", 10) + " " + row("id", 1, "rid", 100),
                "+I null " + row("id", 1, "rid", 100)), t.left("-U", "id", 1, "oid", 7, "price", 10));
            assertEquals(0, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            assertEquals(List.of(
                "-D null " + row("id", 2, "rid", 200),
                "+I " + row("id", 2, "oid", 7, "price", 10) + " " + row("id", 2, "rid", 200)),
                t.left("+U", "id", 2, "oid", 7, "price", 10));
            assertEquals(1, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            // a row that can never match is found by its unique key too
            t.right("+I", "rid", 300);
            assertEquals(List.of("-D null " + row("rid", 300)), t.right("-D", "rid", 300));
            t.left("-D", "id", 2, "oid", 7, "price", 10);
            t.right("-D", "id", 1, "rid", 100);
            t.right("-D", "id", 2, "rid", 200);
            assertEquals(0, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            assertEquals(0, RegularJoinViews.uniqueKeys(t.op(), Side.RIGHT).size());
            assertEquals(0, t.op().state.store.usedBytes());
            assertEquals(0, t.op().state.index.size());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void indexedShouldDeadLetterEveryViolation(final IndexKind index)
    {
        try (Twin t = new Twin(JoinType.LEFT, b -> { }, b -> b.leftUniqueKey("oid"), CONFIG.withIndex(index)))
        {
            t.left("+I", "id", 1, "oid", 7, "price", 10);
            t.right("+I", "id", 2);
            t.violation(Side.LEFT, "+I", "id", 1, "oid", 7, "price", 11);
            t.violation(Side.LEFT, "+U", "id", 1, "oid", 7, "price", 10);
            t.violation(Side.LEFT, "+I", "id", 1, "oid", null, "price", 10);
            t.violation(Side.LEFT, "+I", "id", 1, "price", 10);
            t.violation(Side.LEFT, "-D", "id", 1, "price", 10);
            t.violation(Side.LEFT, "-U", "id", 1, "oid", null, "price", 10);
            // the unique key "7" (a string) is another key than 7
            assertEquals(1, t.left("+I", "id", 2, "oid", "7").size());
            // retractions: another row of a live unique key, an unknown unique key
            assertEquals(List.of(), t.left("-D", "id", 1, "oid", 7, "price", 11));
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, t.lastDeadLetter());
            assertEquals(List.of(), t.left("-D", "id", 1, "oid", 9, "price", 10));
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, t.lastDeadLetter());
            assertEquals(2, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            assertEquals(List.of("-D " + row("id", 1, "oid", 7, "price", 10) + " null"),
                t.left("-D", "id", 1, "oid", 7, "price", 10));
            assertEquals(1, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            assertEquals(List.of("+I " + row("id", 3, "oid", 7) + " null"), t.left("+I", "id", 3, "oid", 7), "7 is free again");
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void indexedShouldKeepDuplicatesItDoesNotCheckAsWithoutTheDeclaration(final IndexKind index)
    {
        // Documented: a duplicate under another join key may be in another partition, and rows that can
        // never match live apart from their join key; neither is checked, and both work as undeclared.
        try (Twin t = new Twin(JoinType.FULL, b -> { }, b -> b.leftUniqueKey("oid"), CONFIG.withIndex(index)))
        {
            t.left("+I", "id", 1, "oid", 7, "price", 10);
            t.right("+I", "id", 2);
            assertEquals(2, t.left("+I", "id", 2, "oid", 7, "price", 10).size(), "joins as undeclared");
            t.left("+I", "oid", 8);
            t.left("+I", "oid", 8, "price", 1);
            assertEquals(4, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size(), "one entry per live row");
            t.violation(Side.LEFT, "+I", "id", 2, "oid", 7, "price", 11);
            // each retraction finds its own row among those of its unique key
            assertEquals(List.of("-D " + row("id", 2, "oid", 7, "price", 10) + " " + row("id", 2),
                "+I null " + row("id", 2)), t.left("-D", "id", 2, "oid", 7, "price", 10));
            assertEquals(List.of("-D " + row("oid", 8, "price", 1) + " null"), t.left("-D", "oid", 8, "price", 1));
            assertEquals(List.of(), t.left("-D", "id", 2, "oid", 7, "price", 10));
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, t.lastDeadLetter());
            t.left("-D", "oid", 8);
            t.left("-D", "id", 1, "oid", 7, "price", 10);
            t.right("-D", "id", 2);
            assertEquals(0, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            assertEquals(0, t.op().state.store.usedBytes());
        }
    }

    @Test
    void indexedShouldTellApartUniqueKeysWhoseHashesCollide()
    {
        final byte[][] keys = RegularJoinTest.collidingStrings();
        assertNotNull(keys, "no colliding keys were constructed for the fixed seed");
        try (Twin t = new Twin(JoinType.INNER, b -> { }, b -> b.leftUniqueKey("oid"), CONFIG.withHashSeed(KeyHash.DEFAULT_SEED)))
        {
            t.left("+I", "id", 1, "oid", keys[0]);
            t.left("+I", "id", 1, "oid", keys[1]);
            assertEquals(2, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size(), "a colliding unique key is another key");
            t.violation(Side.LEFT, "+I", "id", 1, "oid", keys[1], "price", 1);
            t.violation(Side.LEFT, "+I", "id", 1, "oid", keys[0], "price", 1);
            assertEquals(List.of(), t.left("-D", "id", 2, "oid", keys[0]));
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, t.lastDeadLetter());
            t.left("-D", "id", 1, "oid", keys[1]);
            assertEquals(1, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            t.violation(Side.LEFT, "+I", "id", 1, "oid", keys[0], "price", 2);
            t.left("-D", "id", 1, "oid", keys[0]);
            assertEquals(0, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
        }
    }

    @Test
    void indexedShouldForgetAnExpiredRowAndAcceptItsKeyAgain()
    {
        try (Twin t = new Twin(JoinType.INNER, b -> b.stateTtl(1000), b -> b.leftUniqueKey("oid"), CONFIG))
        {
            t.row(Side.LEFT, 5000, "+I", "id", 1, "oid", 7);
            t.row(Side.LEFT, 5000, "+I", "oid", 8);
            assertEquals(2, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            t.watermark(6001);
            assertEquals(2, t.declared.counters().expiredRows());
            assertEquals(0, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size(), "expiry removes rows from the index");
            assertEquals(List.of(), t.row(Side.LEFT, 7000, "-D", "id", 1, "oid", 7));
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, t.lastDeadLetter());
            t.row(Side.LEFT, 7000, "+I", "id", 2, "oid", 7);
            t.row(Side.LEFT, 7000, "+I", "oid", 8);
            assertEquals(DeadLetterReason.RETRACTION_NOT_IN_STATE, t.lastDeadLetter(), "no new dead letter");
            assertEquals(1, t.row(Side.RIGHT, 7000, "+I", "id", 2).size());
            t.violation(Side.LEFT, "+I", "id", 2, "oid", 7, "price", 1);
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void indexedShouldForgetARowEvictedToMakeRoom(final IndexKind index)
    {
        final StateConfig config = CONFIG.withIndex(index).withMaxLiveRows(2).withFullPolicy(FullPolicy.EXPIRE_OLDEST);
        try (Twin t = new Twin(JoinType.INNER, b -> b.stateTtl(1000), b -> b.leftUniqueKey("oid"), config))
        {
            assertEquals(2, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).capacity());
            t.row(Side.LEFT, 10, "+I", "id", 1, "oid", 1);
            t.row(Side.LEFT, 20, "+I", "id", 2, "oid", 2);
            t.row(Side.LEFT, 30, "+I", "id", 3, "oid", 3);
            assertEquals(1, t.declared.counters().expiredRows(), "the row of ts 10 made room");
            assertEquals(2, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            t.row(Side.LEFT, 40, "+I", "id", 1, "oid", 1);
            assertEquals(0, t.declared.deadLetters().size(), "the evicted row's key is free: " + t.declared.deadLetters().deadLetters());
            assertEquals(2, RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).size());
            // a violation is rejected before it could evict anything
            t.violation(Side.LEFT, "+I", "id", 3, "oid", 3, "price", 1);
            assertEquals(2, t.declared.counters().expiredRows());
        }
    }

    @Test
    void indexedShouldRejectAUniqueKeyLongerThanTheKeyBuffer()
    {
        final StateConfig config = StateConfig.builder().maxKeys(4096).chunkSize(64 * 1024).wheel(10, 64).maxKeyLength(16)
            .maxLiveRows(1024).build();
        try (Twin t = new Twin(JoinType.INNER, b -> { }, b -> b.leftUniqueKey("oid"), config))
        {
            t.declared.left("+I", "id", 1, "oid", "a unique key of more than sixteen bytes");
            assertEquals(DeadLetterReason.KEY_TOO_LONG, t.lastDeadLetter());
            assertEquals(0, t.declared.counters().liveLeft());
        }
    }

    @Test
    void indexedShouldCountItsTableInTheStateBytes()
    {
        try (Twin t = new Twin(JoinType.INNER, b -> b.leftUniqueKey("oid").rightUniqueKey("rid")))
        {
            final long tables = RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).offHeapBytes() + RegularJoinViews.uniqueKeys(t.op(), Side.RIGHT).offHeapBytes();
            assertTrue(tables > 0);
            assertEquals(t.plain.counters().stateBytes() + tables, t.declared.counters().stateBytes());
            final long caps = 2 * RegularJoinViews.uniqueKeys(t.op(), Side.LEFT).maxOffHeapBytes();
            assertEquals(t.plain.counters().usedStateBytes() + caps, t.declared.counters().usedStateBytes());
        }
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new JoinHarness(
            spec(JoinType.INNER).leftUniqueKey("oid").build(),
            CONFIG.withMaxLiveRows(1 << 24).withMaxStateBytes(64L << 20)));
        assertTrue(e.getMessage().contains("unique-key indexes") && e.getMessage().contains(StateConfig.MAX_LIVE_ROWS_PROP_NAME),
            e.getMessage());
    }

    // ---------------------------------------------------------------- both shapes on one join

    @ParameterizedTest
    @EnumSource(JoinType.class)
    void mixedShapesShouldMatchTheJoinWithoutDeclarations(final JoinType type)
    {
        try (Twin t = new Twin(type, b -> b.leftUniqueKey("id").rightUniqueKey("rid")))
        {
            t.left("+I", "id", 1, "price", 1);
            t.right("+I", "id", 1, "rid", 10, "budget", 1);
            t.right("+I", "id", 1, "rid", 11, "budget", 2);
            t.right("-U", "id", 1, "rid", 10, "budget", 1);
            t.right("+U", "id", 2, "rid", 10, "budget", 1);
            t.left("-U", "id", 1, "price", 1);
            t.left("+U", "id", 1, "price", 2);
            t.left("+I", "id", 2, "price", 3);
            t.violation(Side.RIGHT, "+I", "id", 1, "rid", 11);
            t.violation(Side.LEFT, "+I", "id", 2, "price", 4);
            t.right("-D", "id", 1, "rid", 11, "budget", 2);
            t.left("-D", "id", 2, "price", 3);
            t.right("-D", "id", 2, "rid", 10, "budget", 1);
            t.left("-D", "id", 1, "price", 2);
            assertEquals(0, t.op().state.store.usedBytes());
            assertEquals(0, RegularJoinViews.uniqueKeys(t.op(), Side.RIGHT).size());
        }
    }
}
