package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A replay never returns with output missing and no error: the end of input makes one
 * tumbling window of 600 x 600 rows of one key emit 360,000 pairs, far longer than a close timeout of 20 ms;
 * the engine's close waits while the partition makes progress, so every line is there. (20 ms, not 1: a close
 * timeout is a window without progress, and on a loaded 2-core host the partition thread can be descheduled for
 * more than a millisecond, which made a 1 ms window give up with the partition still working.)
 */
class ReplayCloseTest
{
    private static final int ROWS = 600;

    @Test
    @Timeout(120)
    void aHeavyEmissionAtTheEndOfInputOutlastsTheCloseTimeoutWithNothingMissing()
    {
        final String spec = "{\"join\":\"window\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"tumbling\",\"size\":1000}}";
        final List<String> lines = new ArrayList<>();
        for (int i = 0; i < ROWS; i++)
        {
            lines.add("{\"side\":\"left\",\"ts\":" + i + ",\"row\":{\"k\":1,\"id\":" + i + "}}");
            lines.add("{\"side\":\"right\",\"ts\":" + i + ",\"row\":{\"k\":1,\"id\":" + i + "}}");
        }
        final ReplayResult result = new Replay(Replay.config(1).withCloseTimeoutMillis(20)).run(spec, String.join("\n", lines));
        assertEquals(0, result.errorCount(), () -> result.errors().toString());
        assertEquals(ROWS * ROWS, result.resultLines().size(), "every pair of the window");
    }
}
