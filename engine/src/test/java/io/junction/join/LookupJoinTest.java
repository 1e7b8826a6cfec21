package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Side;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.junction.join.IntervalTestRows.ABSENT;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The processing-time lookup join, rule by rule (docs/SEMANTICS.md section 7), event by event. */
class LookupJoinTest
{
    private static VersionedTestHarness lookup(final JoinType type)
    {
        return VersionedTestHarness.of(JoinKind.LOOKUP, type);
    }

    @Test
    void aLeftRowJoinsTheLatestVersionReceivedWhateverItsTs()
    {
        try (VersionedTestHarness h = lookup(JoinType.LEFT))
        {
            final long before = h.left(5, 1, "L0");
            assertEquals(List.of("+I L0 null"), h.at(before), "no version yet: padded at once");
            final long r1 = h.right(100, 1, "R100");
            assertEquals(List.of(), h.at(r1), "right rows emit nothing");
            h.right(50, 1, "R50");                     // arrives later, so it is the current version
            final long l = h.left(1, 1, "L1");
            assertEquals(List.of("+I L1 R50"), h.at(l));
            assertEquals(1, h.out.get(1).ts(), "output time is the left row's ts");
            assertEquals(1, h.counters().liveRight(), "one version per key");
            assertEquals(0, h.counters().liveLeft(), "left rows are never kept");
        }
    }

    @Test
    void aDeleteRemovesTheVersionAndAnUpdateBeforeIsIgnored()
    {
        try (VersionedTestHarness h = lookup(JoinType.INNER))
        {
            h.right(1, 1, "R1");
            h.right("-U", 2, 1, "R1", ABSENT);
            final long afterUpdateBefore = h.left(3, 1, "L1");
            assertEquals(List.of("+I L1 R1"), h.at(afterUpdateBefore));
            h.right("+U", 4, 1, "U4", ABSENT);
            assertEquals(List.of("+I L2 U4"), h.at(h.left(5, 1, "L2")));
            h.right("-D", 6, 1, "whatever", ABSENT);
            assertEquals(List.of(), h.at(h.left(7, 1, "L3")));
            assertEquals(0, h.counters().liveRight());
            h.right("-D", 8, 2, "nothing to delete", ABSENT);
            assertEquals(0, h.counters().badInputs(), "-U and a -D of no version are not bad inputs");
        }
    }

    @Test
    void timePlaysNoPart()
    {
        try (VersionedTestHarness h = lookup(JoinType.LEFT))
        {
            h.left(100, 1, "Lwait");
            h.right(0, 1, "R0");
            assertEquals(List.of(), h.at(h.watermark(1000)), "watermarks emit nothing");
            assertEquals(List.of("+I Lold R0"), h.at(h.left(3, 1, "Lold")), "nothing is late");
            assertEquals(List.of(), h.at(h.end()), "nothing waits for the end");
            assertEquals(0, h.counters().lateRows());
            assertEquals(List.of("0: +I Lwait null", "3: +I Lold R0"), h.all());
        }
    }

    @Test
    void leftRowsOtherThanInsertsAreBadInputsAndNullKeysArePaddedOrDropped()
    {
        for (final JoinType type : new JoinType[] {JoinType.LEFT, JoinType.INNER})
        {
            try (VersionedTestHarness h = lookup(type))
            {
                h.right(0, null, "Rnull");
                h.right(0, 1, "R1");
                h.row(Side.LEFT, ChangeKind.DELETE, 0, 1, "L-D", ABSENT);
                final long nul = h.left(0, null, "Lnull");
                assertEquals(type == JoinType.LEFT ? List.of("+I Lnull null") : List.of(), h.at(nul));
                assertEquals(1, h.dead.size());
                assertEquals(DeadLetterReason.NOT_APPEND_ONLY, h.dead.get(0).reason());
                assertEquals(1, h.counters().liveRight());
            }
        }
    }

    @Test
    void filtersAndTheConditionDecideThePair()
    {
        final JoinSpec spec = VersionedTestHarness.spec(JoinKind.LOOKUP, JoinType.LEFT)
            .leftFilter("v", CompareOp.NE, Literal.of(9))
            .rightFilter("v", CompareOp.GE, Literal.of(0))
            .condition("v", CompareOp.LE, "v")
            .build();
        try (VersionedTestHarness h = new VersionedTestHarness(spec))
        {
            h.right(0, 1, "R5", 5);
            assertEquals(List.of("+I La R5"), h.at(h.left(0, 1, "La", 5)));
            assertEquals(List.of("+I Lb null"), h.at(h.left(0, 1, "Lb", 6)), "condition fails: padded");
            assertEquals(List.of("+I L9 null"), h.at(h.left(0, 1, "L9", 5 + 4)), "left filter fails: padded");
            h.right(0, 1, "Rneg", -1);                  // fails the right filter, yet it replaces R5
            assertEquals(List.of("+I Lc null"), h.at(h.left(0, 1, "Lc", 0)));
            assertEquals(1, h.counters().liveRight());
        }
    }

    @Test
    void keysThatDifferOnlyInTypeAreDifferentVersions()
    {
        try (VersionedTestHarness h = lookup(JoinType.LEFT))
        {
            h.right(0, 1, "Rnum");
            h.right(0, "1", "Rstr");
            assertEquals(List.of("+I Lnum Rnum"), h.at(h.left(0, 1, "Lnum")));
            assertEquals(List.of("+I Lstr Rstr"), h.at(h.left(0, "1", "Lstr")));
            assertEquals(2, h.counters().liveRight());
        }
    }
}
