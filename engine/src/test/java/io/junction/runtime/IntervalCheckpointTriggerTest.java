package io.junction.runtime;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A publisher's interval trigger on its own: no engine, no rings. The checkpoints it starts go to a recording
 * {@link IntervalCheckpoints}, whose futures the test completes when a case needs.
 */
class IntervalCheckpointTriggerTest
{
    private final List<Long> steps = new ArrayList<>();
    private final List<CompletableFuture<CompletedCheckpoint>> futures = new ArrayList<>();
    private final IntervalCheckpoints recording = step ->
    {
        steps.add(step);
        final CompletableFuture<CompletedCheckpoint> future = new CompletableFuture<>();
        futures.add(future);
        return future;
    };

    @Test
    void everyNRowsStartsACheckpointAtThatRowsStepButNotWhileThePreviousIsUnderWay()
    {
        final EngineConfig config = EngineConfig.defaults().withStateRoot(Path.of("unused-root"))
            .withCheckpointInterval(3, Duration.ZERO);
        final IntervalCheckpointTrigger trigger = IntervalCheckpointTrigger.of(config, recording);
        assertNotNull(trigger);
        for (long step = 1; step <= 7; step++)
        {
            trigger.afterRow(step);
        }
        // Due at row 3; at row 6 the first is still under way, so the next waits for a row after it is done.
        assertEquals(List.of(3L), steps);
        futures.get(0).complete(null);
        trigger.afterRow(8);
        assertEquals(List.of(3L, 8L), steps);
    }

    @Test
    void noStateRootOrNoIntervalMeansNoTrigger()
    {
        assertNull(IntervalCheckpointTrigger.of(EngineConfig.defaults(), recording));
        assertNull(IntervalCheckpointTrigger.of(EngineConfig.defaults().withStateRoot(Path.of("unused-root")), recording));
    }
}
