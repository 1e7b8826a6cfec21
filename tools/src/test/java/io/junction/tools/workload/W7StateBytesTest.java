package io.junction.tools.workload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The multi-way join work's state goal on W7 (WORKLOADS.md): the multi-way join's live state per live input row, counted as the
 * binary joins count theirs ({@code liveStateBytes}: off-heap records, row groups, buckets and two key-table
 * slots per key), is at most half the chain's, whose levels each store the previous level's result.
 */
class W7StateBytesTest
{

    @Test
    void theMultiWayJoinsStateIsAtMostHalfTheChains()
    {
        final W7Bench.Tape tape = W7Bench.tape(W7.DEFAULT_ORDERS);
        final W7Bench.Result multi = W7Bench.runMulti(tape, false);
        final W7Bench.Result chain = W7Bench.runChain(tape, false);
        final double multiPerRow = multi.offHeapBytes / (double) multi.liveInputRows;
        final double chainPerRow = chain.offHeapBytes / (double) chain.liveInputRows;
        assertTrue(multi.offHeapBytes == multi.stateBytes && multi.stateBytes > 0, multi.toString());
        assertTrue(multiPerRow <= chainPerRow / 2, "multi " + multiPerRow + " vs chain " + chainPerRow + " bytes per live row");
        // W7's rows are 46 bytes: a 64-byte record each, and a key's bucket and table slots shared by its rows.
        assertTrue(multiPerRow >= 64 && multiPerRow <= 116, "multi " + multiPerRow + " bytes per live row");
    }
}
