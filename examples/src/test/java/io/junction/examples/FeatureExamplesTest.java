package io.junction.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import java.nio.file.Path;

/** The README's feature examples, run: each must print exactly what its section says it does. */
class FeatureExamplesTest
{
    /** @return the lines main printed, sorted (the partitions' results arrive in any order). */
    private static List<String> run(final Runnable main)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final PrintStream original = System.out;
        try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8))
        {
            System.setOut(capture);
            main.run();
        }
        finally
        {
            System.setOut(original);
        }
        return bytes.toString(StandardCharsets.UTF_8).lines().sorted().toList();
    }

    @Test
    void theTypedExampleJoinsThePaidOrderRefusesTheMistypedPaymentAndPadsTheUnpaidOrder()
    {
        final List<String> lines = run(() -> TypedQuickStart.main(new String[0]));
        assertEquals(3, lines.size(), lines.toString());
        assertEquals("+I {order_id=1, method=\"card\", amount=9.5} {order_id=1, status=\"paid\"}", lines.get(0));
        assertEquals("+I {order_id=2, method=\"cash\", amount=20.0} null", lines.get(1)); // a double field reads as a double
        assertEquals("mistyped order_id refused: true", lines.get(2));
    }

    @Test
    void ordersJoinTheRateValidAtTheirTimeAndTheLateOrderIsDeadLettered()
    {
        assertEquals(List.of("late 1", "order 1 rate 114", "order 2 rate 115"), run(() -> TemporalJoinExample.main(new String[0])));
    }

    @Test
    void aSecondEngineReopensTheStateTheFirstClosedCleanly(@org.junit.jupiter.api.io.TempDir final Path dir)
    {
        assertEquals(List.of("results 1", "resume after step 1"), run(() ->
        {
            try
            {
                DurableExample.main(new String[] {dir.resolve("root").toString()});
            }
            catch (final Exception e)
            {
                throw new AssertionError(e);
            }
        }));
    }

    @Test
    void viewsAndClicksAreCountedPerUserAndMinute()
    {
        // bob clicked without a view: a left coGroup does not call his group
        assertEquals(List.of("{user=\"ann\", views=2, clicks=1} in [0, 60000)"), run(() -> CoGroupExample.main(new String[0])));
    }
}
