package io.junction.join;

import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.FieldFilter;
import io.junction.api.FieldType;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.PairCondition;
import io.junction.api.RowFilter;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.internal.metrics.JoinCounters;
import io.junction.testing.DeadLetter;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * User predicates ({@link RowFilter}, {@link PairCondition}) and the richer declarative filters (IN
 * lists, {@code any} disjunctions) through every join kind: ANDed with the declarative terms, null and
 * type-mismatch handling, and what a throwing predicate does.
 */
class UserPredicateTest
{
    private static final Schema SCHEMA = Schema.of("k", "v", "s");
    private static final int V = SCHEMA.indexOf("v");
    private static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(4096);

    private static JoinSpec.Builder regular(final JoinType type)
    {
        return JoinSpec.builder(JoinKind.REGULAR, type).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k");
    }

    private static List<String> signed(final List<Output> outputs)
    {
        return outputs.stream().map(Output::signed).sorted().collect(Collectors.toList());
    }

    private static boolean evenV(final RowView row)
    {
        return row.type(V) == FieldType.LONG && (row.getLong(V) & 1) == 0;
    }

    @Test
    void rowFilterIsAndedWithTheDeclarativeTerms()
    {
        final RowFilter even = UserPredicateTest::evenV;
        try (JoinHarness h = new JoinHarness(
            regular(JoinType.INNER).leftFilter("v", CompareOp.GT, Literal.of(2)).leftFilter(even).build(), CONFIG))
        {
            h.right("+I", "k", 1, "v", 0);
            assertEquals(List.of(), h.left("+I", "k", 1, "v", 2), "even but not > 2");
            assertEquals(List.of(), h.left("+I", "k", 1, "v", 3), "> 2 but odd");
            assertEquals(List.of("+{k=1, v=4} {k=1, v=0}"), signed(h.left("+I", "k", 1, "v", 4)));
            assertEquals(List.of(), h.left("+I", "k", 1, "v", "4"), "a string v: the user filter says no");
        }
    }

    @Test
    void rowFilterRunsOnlyAfterTheDeclarativeTermsHold()
    {
        final int[] calls = new int[1];
        final RowFilter counting = row ->
        {
            calls[0]++;
            return true;
        };
        try (JoinHarness h = new JoinHarness(
            regular(JoinType.INNER).rightFilter("s", CompareOp.EQ, Literal.of("x")).rightFilter(counting).build(), CONFIG))
        {
            h.right("+I", "k", 1, "s", "y");
            assertEquals(0, calls[0]);
            h.right("+I", "k", 1, "s", "x");
            assertEquals(1, calls[0]);
        }
    }

    @Test
    void pairConditionIsAndedWithTheDeclarativeTerms()
    {
        final PairCondition sumUnder10 = (l, r) -> l.getLong(V) + r.getLong(V) < 10;
        try (JoinHarness h = new JoinHarness(regular(JoinType.LEFT).condition("v", CompareOp.LE, "v").condition(sumUnder10).build(), CONFIG))
        {
            h.right("+I", "k", 1, "v", 3);
            h.right("+I", "k", 1, "v", 8);
            assertEquals(List.of("+{k=1, v=2} {k=1, v=3}"), signed(h.left("+I", "k", 1, "v", 2)), "2+8 is not under 10");
            assertEquals(List.of("+{k=1, v=5} null"), signed(h.left("+I", "k", 1, "v", 5)), "5 > 3, 5+8 >= 10: padded");
        }
    }

    @Test
    void throwingRowFilterDeadLettersTheRowBeforeAnyEffect()
    {
        final RowFilter throwsOnNegative = row ->
        {
            if (row.getLong(V) < 0)
            {
                throw new IllegalStateException("negative");
            }
            return true;
        };
        for (final JoinType type : List.of(JoinType.INNER, JoinType.LEFT, JoinType.ANTI))
        {
            try (JoinHarness h = new JoinHarness(regular(type).leftFilter(throwsOnNegative).build(), CONFIG))
            {
                h.right("+I", "k", 1, "v", 1);
                assertEquals(List.of(), h.left("+I", "k", 1, "v", -1), type.toString());
                final List<DeadLetter> dead = h.deadLetters().deadLetters();
                assertEquals(1, dead.size(), type.toString());
                assertEquals(DeadLetterReason.PREDICATE_FAILED, dead.get(0).reason());
                assertEquals(Side.LEFT, dead.get(0).side());
                assertEquals(1, ((JoinCounters)h.counters()).predicateFailures);
                assertEquals(1, ((JoinCounters)h.counters()).liveLeft + ((JoinCounters)h.counters()).liveRight, "not stored: " + type);
                assertEquals(type == JoinType.ANTI ? 0 : 1, h.left("+I", "k", 1, "v", 1).size(), "the partition goes on: " + type);
                assertEquals(2, ((JoinCounters)h.counters()).liveLeft + ((JoinCounters)h.counters()).liveRight, type.toString());
            }
        }
    }

    @Test
    void aRowForWhichAPairConditionThrowsIsDeadLetteredWhole()
    {
        final PairCondition throwsOn7 = (l, r) ->
        {
            if (r.getLong(V) == 7)
            {
                throw new IllegalStateException("seven");
            }
            return true;
        };
        try (JoinHarness h = new JoinHarness(regular(JoinType.LEFT).condition(throwsOn7).build(), CONFIG))
        {
            h.right("+I", "k", 1, "v", 7);
            h.right("+I", "k", 1, "v", 8);
            assertEquals(List.of(), signed(h.left("+I", "k", 1, "v", 1)), "no effect: no pair, no padding");
            assertEquals(1, ((JoinCounters)h.counters()).predicateFailures);
            assertEquals(1, h.deadLetters().deadLetters().size());
            assertEquals(DeadLetterReason.PREDICATE_FAILED, h.deadLetters().deadLetters().get(0).reason());
            assertEquals(2, h.counters().liveRight());
            assertEquals(0, h.counters().liveLeft(), "not stored");
        }
    }

    @Test
    void aConditionThatThrowsOnSomeCallsOnlyNeverLeavesMatchCountsWrong()
    {
        // Throws on its second call only: the pair's insert held, its retraction would be judged "false".
        final int[] calls = {0};
        final PairCondition flaky = (l, r) ->
        {
            if (++calls[0] == 2)
            {
                throw new IllegalStateException("second call");
            }
            return true;
        };
        try (JoinHarness h = new JoinHarness(regular(JoinType.LEFT).condition(flaky).build(), CONFIG))
        {
            assertEquals(List.of("+{k=1, v=1} null"), signed(h.left("+I", "k", 1, "v", 1)));
            assertEquals(List.of("+{k=1, v=1} {k=1, v=8}", "-{k=1, v=1} null"), signed(h.right("+I", "k", 1, "v", 8)));
            // The retraction's condition throws: the retraction is refused whole, the right row stays joined.
            assertEquals(List.of(), signed(h.right("-D", "k", 1, "v", 8)));
            assertEquals(DeadLetterReason.PREDICATE_FAILED, h.deadLetters().deadLetters().get(0).reason());
            assertEquals(1, h.counters().liveRight());
            // Retried, it goes through: the pair is retracted and the left row padded again (its count is right).
            assertEquals(List.of("+{k=1, v=1} null", "-{k=1, v=1} {k=1, v=8}"), signed(h.right("-D", "k", 1, "v", 8)));
            assertEquals(List.of("-{k=1, v=1} null"), signed(h.left("-D", "k", 1, "v", 1)), "the left row is unmatched again");
            assertEquals(0, h.counters().liveLeft() + h.counters().liveRight());
        }
    }

    @Test
    void userPredicatesWorkInIntervalJoins()
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(0, 10))
            .rightFilter(UserPredicateTest::evenV)
            .condition((l, r) -> l.getLong(V) < r.getLong(V))
            .build();
        try (JoinHarness h = new JoinHarness(spec, CONFIG))
        {
            h.leftAt(100, "+I", "k", 1, "v", 5);
            assertEquals(List.of(), h.rightAt(105, "+I", "k", 1, "v", 7), "odd");
            assertEquals(List.of(), h.rightAt(105, "+I", "k", 1, "v", 4), "not above 5");
            assertEquals(List.of(), h.rightAt(120, "+I", "k", 1, "v", 6), "outside the interval");
            assertEquals(List.of("+{k=1, v=5} {k=1, v=6}"), signed(h.rightAt(110, "+I", "k", 1, "v", 6)));
        }
    }

    @Test
    void userPredicatesWorkInWindowJoins()
    {
        final List<String> seen = new ArrayList<>();
        final JoinSpec spec = JoinSpec.builder(JoinKind.WINDOW, JoinType.INNER).schemas(SCHEMA, SCHEMA)
            .leftKey("k").rightKey("k").window(WindowSpec.tumbling(100, 0))
            .leftFilter(UserPredicateTest::evenV)
            .condition((l, r) ->
            {
                if (r.getLong(V) == 13)
                {
                    throw new IllegalStateException("13");
                }
                return l.getLong(V) < r.getLong(V);
            })
            .build();
        try (JoinHarness h = new JoinHarness(spec, CONFIG))
        {
            h.leftAt(10, "+I", "k", 1, "v", 2);
            h.leftAt(20, "+I", "k", 1, "v", 3);
            h.rightAt(30, "+I", "k", 1, "v", 1);
            h.rightAt(40, "+I", "k", 1, "v", 9);
            h.rightAt(50, "+I", "k", 1, "v", 13);
            for (final Output o : h.watermark(200))
            {
                seen.add(o.signed());
            }
            assertEquals(List.of("+{k=1, v=2} {k=1, v=9}"), seen);
            assertEquals(1, ((JoinCounters)h.counters()).predicateFailures, "the pair with 13");
        }
    }

    @Test
    void inListMatchesAnyEntryAndNeverNull()
    {
        final JoinSpec spec = regular(JoinType.INNER)
            .leftFilter(FieldFilter.in("s", Literal.of("OR"), Literal.of("ID"), Literal.ofNull(), Literal.of(1)))
            .build();
        try (JoinHarness h = new JoinHarness(spec, CONFIG))
        {
            h.right("+I", "k", 1);
            assertEquals(1, h.left("+I", "k", 1, "s", "OR").size());
            assertEquals(1, h.left("+I", "k", 1, "s", "ID").size());
            assertEquals(0, h.left("+I", "k", 1, "s", "CA").size());
            assertEquals(0, h.left("+I", "k", 1, "s", null).size(), "null never matches, not even a null entry");
            assertEquals(0, h.left("+I", "k", 1).size(), "absent never matches");
            assertEquals(0, h.left("+I", "k", 1, "s", "1").size(), "the string \"1\" is not the number 1");
            assertEquals(1, h.left("+I", "k", 1, "s", 1.0).size(), "1.0 is the number 1");
        }
    }

    @Test
    void anyIsADisjunctionAndListEntriesStayAnded()
    {
        final JoinSpec spec = regular(JoinType.INNER)
            .leftFilter(FieldFilter.any(
                new FieldFilter("v", CompareOp.LT, Literal.of(0)),
                FieldFilter.in("s", Literal.of("a"), Literal.of("b")),
                FieldFilter.any(new FieldFilter("v", CompareOp.EQ, Literal.of(100)))))
            .leftFilter("v", CompareOp.NE, Literal.of(-5))
            .build();
        try (JoinHarness h = new JoinHarness(spec, CONFIG))
        {
            h.right("+I", "k", 1);
            assertEquals(1, h.left("+I", "k", 1, "v", -1).size());
            assertEquals(0, h.left("+I", "k", 1, "v", -5).size(), "the other entry is ANDed");
            assertEquals(1, h.left("+I", "k", 1, "v", 3, "s", "b").size());
            assertEquals(0, h.left("+I", "k", 1, "v", 3, "s", "c").size());
            assertEquals(1, h.left("+I", "k", 1, "v", 100).size(), "nested any");
            assertEquals(0, h.left("+I", "k", 1, "v", null, "s", null).size(), "null: no alternative holds");
        }
    }

    @Test
    void filterFormsAreValidated()
    {
        assertThrows(IllegalArgumentException.class, () -> FieldFilter.in("s", List.of()));
        assertThrows(IllegalArgumentException.class, () -> FieldFilter.any(List.of()));
        final List<Literal> many = new ArrayList<>();
        for (int i = 0; i <= FieldFilter.MAX_ENTRIES; i++)
        {
            many.add(Literal.of(i));
        }
        assertThrows(IllegalArgumentException.class, () -> FieldFilter.in("s", many));
        assertEquals(FieldFilter.MAX_ENTRIES, FieldFilter.in("s", many.subList(0, FieldFilter.MAX_ENTRIES)).values().size());
        FieldFilter deep = new FieldFilter("v", CompareOp.EQ, Literal.of(1));
        for (int i = 0; i < FieldFilter.MAX_DEPTH; i++)
        {
            deep = FieldFilter.any(deep);
        }
        final FieldFilter deepest = deep;
        assertThrows(IllegalArgumentException.class, () -> FieldFilter.any(deepest));
        assertThrows(IllegalArgumentException.class, () -> new FieldFilter("v", CompareOp.IN, Literal.of(1)));
        assertThrows(IllegalArgumentException.class, () -> regular(JoinType.INNER).condition("v", CompareOp.IN, "v"));
        final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
            () -> regular(JoinType.INNER).rightFilter(FieldFilter.any(FieldFilter.in("nope", Literal.of(1)))).build());
        assertTrue(unknown.getMessage().contains("nope"), unknown.getMessage());
        assertThrows(IllegalArgumentException.class, () -> regular(JoinType.INNER).leftFilter((RowFilter)null));
        assertThrows(IllegalArgumentException.class, () -> regular(JoinType.INNER).condition((PairCondition)null));
    }

    @Test
    void specTextNamesUserPredicatesAndFilterForms()
    {
        final JoinSpec spec = regular(JoinType.INNER)
            .leftFilter(FieldFilter.any(FieldFilter.in("s", Literal.of("OR"), Literal.of("ID")), new FieldFilter("v", CompareOp.GT, Literal.of(1))))
            .leftFilter(row -> true).rightFilter(row -> true).condition((l, r) -> true)
            .build();
        final String text = spec.toString();
        assertTrue(text.contains("leftFilter=[any(s in [\"OR\", \"ID\"] or v > 1)]"), text);
        assertTrue(text.contains("leftRowFilters=1") && text.contains("rightRowFilters=1") && text.contains("pairConditions=1"), text);
        assertTrue(spec.hasUserPredicates());
        assertEquals(1, spec.rowFilters(Side.LEFT).size());
        assertTrue(!regular(JoinType.INNER).build().hasUserPredicates());
        assertEquals(FieldFilter.in("s", Literal.of(1)), FieldFilter.in("s", Literal.of(1)));
    }

    @Test
    void conditionOffsetAddsToTheLeftValueWithSaturation()
    {
        final JoinSpec spec = regular(JoinType.INNER).condition("v", 1000, CompareOp.LT, "v").build();
        assertTrue(spec.toString().contains("left.v + 1000 < right.v"), spec.toString());
        try (JoinHarness h = new JoinHarness(spec, CONFIG))
        {
            h.right("+I", "k", 1, "v", 2000);
            h.right("+I", "k", 1, "v", 2000.5);
            h.right("+I", "k", 1, "v", "3000");
            h.right("+I", "k", 1, "v", null);
            assertEquals(List.of("+{k=1, v=999} {k=1, v=2000.5d}", "+{k=1, v=999} {k=1, v=2000}"),
                signed(h.left("+I", "k", 1, "v", 999)));
            assertEquals(List.of("+{k=1, v=1000} {k=1, v=2000.5d}"), signed(h.left("+I", "k", 1, "v", 1000)), "1000 + 1000 is not < 2000");
            assertEquals(List.of("+{k=1, v=1000.25d} {k=1, v=2000.5d}"), signed(h.left("+I", "k", 1, "v", 1000.25)), "a double adds as a double");
            assertEquals(List.of(), h.left("+I", "k", 1, "v", "1"), "a string has no sum");
            assertEquals(List.of(), h.left("+I", "k", 1, "v", null));
            assertEquals(List.of(), h.left("+I", "k", 1, "v", Long.MAX_VALUE), "saturates instead of wrapping negative");
        }
        try (JoinHarness h = new JoinHarness(regular(JoinType.INNER).condition("v", 10, CompareOp.EQ, "v").build(), CONFIG))
        {
            h.right("+I", "k", 1, "v", Long.MAX_VALUE);
            assertEquals(1, h.left("+I", "k", 1, "v", Long.MAX_VALUE - 1).size(), "MAX - 1 + 10 saturates to MAX");
        }
        try (JoinHarness h = new JoinHarness(regular(JoinType.INNER).condition("v", -5, CompareOp.NE, "v").build(), CONFIG))
        {
            h.right("+I", "k", 1, "v", "x");
            h.right("+I", "k", 1, "v", 5);
            assertEquals(List.of("+{k=1, v=10} {k=1, v=\"x\"}"), signed(h.left("+I", "k", 1, "v", 10)),
                "a number against a string: only != holds, as without an offset; 10 - 5 is 5");
        }
    }
}
