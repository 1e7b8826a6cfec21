package io.junction.join;

import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.OutputMode;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.RegularJoin.UniqueKeyShape;
import io.junction.testing.DeadLetter;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Upsert output refuses a second live row of a unique key (docs/SEMANTICS.md 4.4, 4.6): with upsert output a
 * {@code +I}/{@code +U} whose unique key is live on its side in any row (another join key, a null join key, a row
 * failing its side's filter, with or without a padded-row delay) is dead-lettered {@code UNIQUE_KEY_VIOLATION};
 * a retraction or a delete of the live row frees the key; the refusal survives a persist and a reopen.
 */
class UpsertUniqueKeyTest
{
    static final Schema LEFT = Schema.of("k", "g", "v");
    static final Schema RIGHT = Schema.of("k", "g", "w");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1024).withChunkSize(64 * 1024).withMaxLiveRows(4096);

    /** How the earlier live row of the unique key differs from the refused one. */
    enum Earlier
    {
        OTHER_JOIN_KEY,
        NULL_JOIN_KEY,
        FAILS_FILTER,
        SAME_JOIN_KEY
    }

    /** The join key {@code k, g} holds the unique key {@code k} on both sides; a row with {@code g = "z"} fails its side's filter. */
    static JoinSpec spec(final JoinType type, final long delay)
    {
        final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, type).schemas(LEFT, RIGHT)
            .leftKey("k", "g").rightKey("k", "g").leftUniqueKey("k").rightUniqueKey("k")
            .leftFilter("g", CompareOp.NE, Literal.of("z")).rightFilter("g", CompareOp.NE, Literal.of("z"))
            .output(OutputMode.UPSERT);
        if (delay >= 0)
        {
            b.paddedDelay(delay);
        }
        return b.build();
    }

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final JoinType type : new JoinType[] {JoinType.LEFT, JoinType.RIGHT, JoinType.FULL, JoinType.INNER})
        {
            for (final Side side : Side.values())
            {
                for (final Earlier earlier : Earlier.values())
                {
                    cases.add(Arguments.of(type, side, earlier, -1L));
                    if (type != JoinType.INNER)
                    {
                        cases.add(Arguments.of(type, side, earlier, 10L));
                    }
                }
            }
        }
        return cases.stream();
    }

    static Object[] earlierRow(final Side side, final Earlier earlier)
    {
        final String value = side == Side.LEFT ? "v" : "w";
        switch (earlier)
        {
            case OTHER_JOIN_KEY:
                return new Object[] {"k", "1", "g", "y", value, 1L};
            case NULL_JOIN_KEY:
                return new Object[] {"k", "1", "g", null, value, 1L};
            case FAILS_FILTER:
                return new Object[] {"k", "1", "g", "z", value, 1L};
            default:
                return new Object[] {"k", "1", "g", "x", value, 2L};
        }
    }

    static List<DeadLetter> violations(final JoinHarness h)
    {
        final List<DeadLetter> letters = new ArrayList<>();
        for (final DeadLetter letter : h.deadLetters().deadLetters())
        {
            if (letter.reason() == DeadLetterReason.UNIQUE_KEY_VIOLATION)
            {
                letters.add(letter);
            }
        }
        return letters;
    }

    @Test
    void shouldDeadLetterTheSecondRowOfAUniqueKeyUnderAnotherJoinKey()
    {
        try (JoinHarness h = new JoinHarness(spec(JoinType.RIGHT, 10), CONFIG))
        {
            assertEquals(List.of(), h.row(Side.RIGHT, "+I", 17, "k", "1", "g", "y"));
            assertEquals(List.of(), h.row(Side.RIGHT, "+I", 25, "k", "1", "g", "x"));
            assertEquals(1, h.deadLetters().size(), h.deadLetters().deadLetters().toString());
            final DeadLetter letter = h.deadLetters().deadLetters().get(0);
            assertEquals(DeadLetterReason.UNIQUE_KEY_VIOLATION, letter.reason());
            assertEquals("x", letter.row().get("g"));
            final List<Output> out = h.endOfInput();
            assertEquals(1, out.size(), out.toString());
            assertEquals("+U null {g=\"y\", k=\"1\"}", out.get(0).kinded());
            assertEquals(1, h.counters().liveRight());
        }
    }

    @ParameterizedTest(name = "{0} {1} earlier={2} delay={3}")
    @MethodSource("cases")
    void shouldRefuseAnyLiveRowOfTheUniqueKeyAndFreeItOnRetraction(
        final JoinType type, final Side side, final Earlier earlier, final long delay)
    {
        try (JoinHarness h = new JoinHarness(spec(type, delay), CONFIG))
        {
            final RegularJoin op = (RegularJoin)((OperatorDriver)h.operator()).algorithm();
            assertEquals(UniqueKeyShape.INDEXED, RegularJoinViews.shape(op, side), "upsert output indexes every unique key");
            final String value = side == Side.LEFT ? "v" : "w";
            final Object[] first = earlierRow(side, earlier);
            h.row(side, "+I", 17, first);
            assertEquals(0, h.deadLetters().size(), h.deadLetters().deadLetters().toString());
            final long live = side == Side.LEFT ? h.counters().liveLeft() : h.counters().liveRight();
            // the refused row: join key (1, x), passes its filter
            assertEquals(List.of(), h.row(side, "+I", 25, "k", "1", "g", "x", value, 3L));
            assertEquals(1, violations(h).size(), h.deadLetters().deadLetters().toString());
            assertEquals(live, side == Side.LEFT ? h.counters().liveLeft() : h.counters().liveRight(), "nothing stored");
            assertEquals(List.of(), h.row(side, "+U", 26, "k", "1", "g", "x", value, 4L));
            assertEquals(2, violations(h).size(), "a +U is refused as a +I is");
            // the retraction of the live row frees the unique key
            h.row(side, "-U", 27, first);
            h.row(side, "+U", 28, "k", "1", "g", "x", value, 3L);
            assertEquals(2, h.deadLetters().size(), h.deadLetters().deadLetters().toString());
            h.row(side, "-D", 29, "k", "1", "g", "x", value, 3L);
            h.row(side, "+I", 30, first);
            assertEquals(2, h.deadLetters().size(), "a delete frees the unique key too: " + h.deadLetters().deadLetters());
        }
    }

    @Test
    void shouldRefuseTheSecondRowAfterAReopenOfDurableState(@TempDir final Path dir) throws IOException
    {
        final StateConfig config = CONFIG.withStateDirectory(dir);
        try (JoinHarness h = new JoinHarness(spec(JoinType.RIGHT, 10), config))
        {
            h.row(Side.RIGHT, "+I", 17, "k", "1", "g", "y");
            h.row(Side.LEFT, "+I", 18, "k", "2", "g", null);
            h.operator().persist();
        }
        try (JoinHarness h = new JoinHarness(spec(JoinType.RIGHT, 10), config))
        {
            assertEquals(List.of(), h.row(Side.RIGHT, "+I", 25, "k", "1", "g", "x"));
            assertEquals(List.of(), h.row(Side.LEFT, "+I", 26, "k", "2", "g", "x"));
            assertEquals(2, violations(h).size(), h.deadLetters().deadLetters().toString());
            h.row(Side.RIGHT, "-D", 27, "k", "1", "g", "y");
            h.row(Side.RIGHT, "+I", 28, "k", "1", "g", "x");
            assertEquals(2, h.deadLetters().size(), h.deadLetters().deadLetters().toString());
        }
    }
}
