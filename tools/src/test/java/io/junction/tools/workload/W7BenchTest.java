package io.junction.tools.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** W7's benchmark paths (WORKLOADS.md): the multi-way join and the chain of binary joins on tiny W7s against the brute force. */
class W7BenchTest
{

    @Test
    void theMultiWayJoinAndTheChainOfBinaryJoinsMaterializeTheSameResult()
    {
        for (final int n : new int[] {1, 7, 300})
        {
            final TreeMap<String, Long> expected = W7Bench.bruteForce(W7.generate(n, (input, kind, key, ts, f1) -> { }));
            final W7Bench.Result multi = W7Bench.runMulti(n, true);
            final W7Bench.Result chain = W7Bench.runChain(n, true);
            assertEquals(expected, multi.materialized, "multi, n = " + n);
            assertEquals(expected, chain.materialized, "chain, n = " + n);
            assertEquals(multi.events, chain.events);
            assertEquals(multi.liveInputRows, chain.liveInputRows);
            assertTrue(multi.outputLines <= chain.allLines, "the chain's levels emit at least the multi-way join's lines");
            assertTrue(multi.stateBytes > 0 && chain.stateBytes > 0, multi + " / " + chain);
        }
    }

    @Test
    void w7sLineCountsAreThoseOfWorkloadsMd()
    {
        final W7Bench.Result multi = W7Bench.runMulti(W7.DEFAULT_ORDERS, false);
        final W7Bench.Result chain = W7Bench.runChain(W7.DEFAULT_ORDERS, false);
        assertEquals(242_048, multi.events);
        assertEquals(318_102, multi.outputLines);
        assertEquals(318_102, chain.outputLines, "the chain's last level");
        assertEquals(748_756, chain.allLines, "the chain's three levels");
        assertEquals(22_924, multi.liveInputRows);
        assertEquals(0, multi.deadLetters + chain.deadLetters);
    }
}
