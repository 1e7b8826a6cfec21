package io.junction.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import java.nio.file.Path;

/** The README's feature examples, run: each must print exactly what its section says it does. */
class FeatureExamplesTest
{
    /** @return the lines main printed, sorted (the partitions' results arrive in any order). */
    private static List<String> run(final Runnable main)
    {
        return runInOrder(main).stream().sorted().toList();
    }

    /** @return the lines main printed, in the order it printed them. */
    private static List<String> runInOrder(final Runnable main)
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
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void theTypedExampleJoinsThePaidOrderRefusesTheMistypedPaymentAndPadsTheUnpaidOrder()
    {
        final List<String> lines = runInOrder(() -> TypedQuickStart.main(new String[0]));
        assertEquals(List.of("mistyped order_id refused: true",
            "+I {order_id=1, method=\"card\", amount=9.5} {order_id=1, status=\"paid\"}",
            "+I {order_id=2, method=\"cash\", amount=20.0} null"), lines); // a double field reads as a double
        assertEquals(readmeOutputAfter("It prints, in this order"), lines, "the README shows the typed example's output, in order");
    }

    /** @return the lines of the README's first plain code block after the sentence that starts so. */
    private static List<String> readmeOutputAfter(final String sentence)
    {
        try
        {
            final List<String> readme = Files.readAllLines(Path.of(System.getProperty("junction.readme")), StandardCharsets.UTF_8);
            int line = 0;
            while (!readme.get(line).startsWith(sentence))
            {
                line++;
            }
            while (!readme.get(line).equals("```"))
            {
                line++;
            }
            final int end = readme.subList(line + 1, readme.size()).indexOf("```") + line + 1;
            return readme.subList(line + 1, end);
        }
        catch (final IOException | IndexOutOfBoundsException e)
        {
            throw new AssertionError("README.md holds \"" + sentence + "\" and a ``` block after it", e);
        }
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

    @Test
    void aClickInsideThePaddedDelayJoinsWithoutAPaddedRowFirst()
    {
        assertEquals(List.of("+I s1 c1", "+I s2 null", "-D s2 null", "+I s2 c2"), runInOrder(ChangelogShapeExample::paddedDelay));
    }

    @Test
    void upsertOutputIsOneUpsertOrDeletePerStepAndKey()
    {
        assertEquals(List.of(
            "0 upsert {log_id=1, show=\"s1\"} null",
            "1 upsert {log_id=1, show=\"s1\"} {log_id=1, click=\"c1\"}",
            "2 upsert {log_id=2, show=\"s2\"} null",
            "3 delete {log_id=2, show=\"s2\"}"), runInOrder(ChangelogShapeExample::upsert));
    }

    @Test
    void eachAdOfAShowMeetsItsOwnClickThroughLeftExpand()
    {
        assertEquals(List.of("0 +I ad1 null", "0 +I ad2 null", "1 +I ad2 c1", "1 -D ad2 null", "2 +I null null"),
            runInOrder(() -> ExpansionExample.main(new String[0])));
    }

    @Test
    void aMultiWayJoinReadsEachInputWithItsOwnSchema()
    {
        assertEquals(List.of("1 +I order 1 paid 100"), runInOrder(MultiJoinExample::perInputSchemas));
    }

    @Test
    void theReplaysSpecFileLoadedInJavaGivesTheReplaysResults()
    {
        final String file = Path.of(System.getProperty("junction.examples.dir"), "replay", "shows.join.json").toString();
        assertEquals(List.of("+I {log_id=\"1\", show=\"a\"} {log_id=\"1\", click=\"x\"}", "+I {log_id=\"2\", show=\"b\"} null"),
            runInOrder(() ->
            {
                try
                {
                    JsonSpecExample.main(new String[] {file});
                }
                catch (final IOException e)
                {
                    throw new AssertionError(e);
                }
            }));
    }
}
