package io.junction.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.CompareOp;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.workload.NexmarkGenerator;
import io.junction.tools.workload.NexmarkSink;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import java.util.ArrayList;
import java.util.List;

/** Nexmark q3 through the engine, its {@code state IN (OR, ID, CA)} filter inside the join, against a count by brute force. */
class NexmarkRunTest
{

    private static final long EVENTS = 100_000;
    private static final long SEED = 42;
    private static final Pattern RESULTS = Pattern.compile("([\\d,]+) results");

    /** q3 by hand: category-10 auctions whose seller is a person of OR, ID or CA (person ids are unique). */
    private static long q3ByHand()
    {
        final Set<Long> persons = new HashSet<>();
        final long[] pairs = new long[1];
        final Set<Long> sellersOfCategory10 = new HashSet<>();
        final List<Long> auctions = new ArrayList<>();
        new NexmarkGenerator(SEED).generate(EVENTS, new NexmarkSink()
        {
            @Override
            public void person(final long id, final CharSequence name, final CharSequence emailAddress,
                final CharSequence creditCard, final CharSequence city, final CharSequence state, final long dateTime,
                final CharSequence extra)
            {
                final String s = state.toString();
                if (s.equals("OR") || s.equals("ID") || s.equals("CA"))
                {
                    persons.add(id);
                }
            }

            @Override
            public void auction(final long id, final CharSequence itemName, final CharSequence description,
                final long initialBid, final long reserve, final long dateTime, final long expires, final long seller,
                final long category, final CharSequence extra)
            {
                if (category == 10)
                {
                    auctions.add(seller);
                    sellersOfCategory10.add(seller);
                }
            }

            @Override
            public void bid(final long auction, final long bidder, final long price, final CharSequence channel,
                final CharSequence url, final long dateTime, final CharSequence extra)
            {
            }

            @Override
            public void watermark(final long watermark)
            {
            }
        });
        for (final long seller : auctions)
        {
            pairs[0] += persons.contains(seller) ? 1 : 0;
        }
        assertTrue(!sellersOfCategory10.isEmpty() && !persons.isEmpty(), "the prefix has both sides");
        return pairs[0];
    }

    @Test
    void q3FiltersPersonsInsideTheEngineWithTheSameResults()
    {
        assertEquals(CompareOp.IN, NexmarkRun.spec(NexmarkRun.Query.Q3).rightFilter().get(0).op(),
            "the state filter is the join's, not the source's");
        final long expected = q3ByHand();
        assertTrue(expected > 0, "a prefix with results");
        for (final int partitions : new int[] {1, 2})
        {
            final RowTape tape = NexmarkRun.generate(NexmarkRun.Query.Q3, EVENTS, SEED);
            final String summary = NexmarkRun.run(NexmarkRun.Query.Q3, tape, EVENTS, partitions, WaitStrategyKind.BLOCKING);
            final Matcher m = RESULTS.matcher(summary);
            assertTrue(m.find(), summary);
            assertEquals(expected, Long.parseLong(m.group(1).replace(",", "")), summary);
        }
    }
}
