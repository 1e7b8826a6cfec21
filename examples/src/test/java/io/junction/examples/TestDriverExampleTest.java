package io.junction.examples;

import io.junction.api.CollectingResultHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.testing.JoinTestDriver;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A user's unit test of a join, as docs/JAVA_API.md ("Testing a join") shows it: the lines between the
 * {@code README:begin testdriver} and {@code README:end testdriver} markers are that section's block, which
 * {@code ReadmeSnippetTest} keeps equal to them; the build runs it.
 */
class TestDriverExampleTest
{
    // README:begin testdriver
    @Test
    void aShowJoinsItsClickAndAnUnclickedShowIsPaddedOnceItsIntervalHasClosed()
    {
        Schema shows = Schema.of("log_id", "ts", "show");
        Schema clicks = Schema.of("log_id", "ts", "click");
        JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(shows, clicks)
            .leftKey("log_id").rightKey("log_id").interval(IntervalBounds.inclusive(0, 60_000)).build();
        try (JoinTestDriver driver = JoinTestDriver.create(spec))                // one thread, no rings: deterministic
        {
            driver.insert(Side.LEFT, Row.of("log_id", 1, "ts", 1_000, "show", "home"), 1_000);   // step 0
            driver.insert(Side.RIGHT, Row.of("log_id", 1, "ts", 4_000, "click", "buy"), 4_000);  // step 1: joins show 1
            driver.insert(Side.LEFT, Row.of("log_id", 2, "ts", 2_000, "show", "cart"), 2_000);   // step 2: never clicked
            assertEquals(1, driver.readResults().size());                        // the pair, at once
            driver.watermark(70_000);                                            // step 3: show 2's interval closes
            List<CollectingResultHandler.Result> padded = driver.readResults();  // what came since the last read
            assertEquals(1, padded.size());
            assertEquals(Row.of("log_id", 2, "ts", 2_000, "show", "cart"), padded.get(0).left());
            assertNull(padded.get(0).right());                                   // the padded side
            assertEquals(3, padded.get(0).step());                               // caused by the watermark
            driver.insert(Side.LEFT, Row.of("log_id", 3, "ts", 5_000, "show", "home"), 5_000);   // step 4: below it
            assertEquals(DeadLetterReason.LATE, driver.deadLetters().get(0).reason());
        }
    }
    // README:end testdriver
}
