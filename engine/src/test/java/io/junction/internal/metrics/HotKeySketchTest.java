package io.junction.internal.metrics;

import io.junction.api.FieldType;
import io.junction.internal.row.KeyHash;
import io.junction.metrics.HotKey;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import com.sun.management.ThreadMXBean;

/** The Space-Saving sketch against exact counts of a Zipf-distributed key stream. */
class HotKeySketchTest
{
    private static final int KEYS = 5_000;
    private static final int EVENTS = 200_000;

    private final UnsafeBuffer key = new UnsafeBuffer(new byte[16]);

    /** Encodes a LONG key as the key extractor does, returning its length. */
    private int longKey(final long value)
    {
        key.putByte(0, FieldType.LONG);
        key.putLong(1, value, ByteOrder.LITTLE_ENDIAN);
        return 9;
    }

    private long hashOf(final long value)
    {
        return KeyHash.hash(key, 0, longKey(value));
    }

    /** Zipf(s) over keys 1..n by inverse CDF. */
    private static final class Zipf
    {
        private final double[] cdf;
        private final SplittableRandom random;

        Zipf(final int n, final double s, final long seed)
        {
            cdf = new double[n];
            double sum = 0;
            for (int i = 0; i < n; i++)
            {
                sum += 1 / Math.pow(i + 1, s);
                cdf[i] = sum;
            }
            for (int i = 0; i < n; i++)
            {
                cdf[i] /= sum;
            }
            random = new SplittableRandom(seed);
        }

        int next()
        {
            final double u = random.nextDouble();
            int lo = 0;
            int hi = cdf.length - 1;
            while (lo < hi)
            {
                final int mid = (lo + hi) >>> 1;
                if (cdf[mid] < u)
                {
                    lo = mid + 1;
                }
                else
                {
                    hi = mid;
                }
            }
            return lo + 1;
        }
    }

    @Test
    void findsTheTrueHeavyHittersOfAZipfStreamWithinTheErrorBound()
    {
        final int k = 16;
        final HotKeySketch sketch = new HotKeySketch(k);
        final Zipf zipf = new Zipf(KEYS, 1.1, 42);
        final SplittableRandom visits = new SplittableRandom(7);
        final long[] stored = new long[KEYS + 1];
        final long[] visited = new long[KEYS + 1];
        long total = 0;
        for (int e = 0; e < EVENTS; e++)
        {
            final int k0 = zipf.next();
            final int storedRows = visits.nextInt(4) == 0 ? 0 : 1;
            // Probe work grows with the key's rows, as a join's does: a hot key's probes visit more.
            final int visitedRows = (int)Math.min(stored[k0], 1 + visits.nextInt(8));
            final int length = longKey(k0);
            sketch.record(KeyHash.hash(key, 0, length), key, 0, length, storedRows, visitedRows);
            stored[k0] += storedRows;
            visited[k0] += visitedRows;
            total += storedRows + visitedRows;
        }
        assertEquals(total, sketch.totalWeight());
        final List<HotKey> report = sketch.report(hash -> -1);
        assertEquals(k, report.size());
        final Map<Long, Integer> keyOfHash = new HashMap<>();
        for (int i = 1; i <= KEYS; i++)
        {
            keyOfHash.put(hashOf(i), i);
        }
        final long bound = total / k;
        final List<Integer> reported = new ArrayList<>();
        for (final HotKey hot : report)
        {
            final int id = keyOfHash.get(hot.keyHash);
            reported.add(id);
            assertEquals(Integer.toString(id), hot.keyText());
            assertTrue(hot.error <= bound, "error " + hot.error + " within W/k " + bound);
            assertTrue(hot.storedRows <= stored[id] && stored[id] <= hot.storedRows + hot.error,
                "key " + id + " stored " + stored[id] + " in [" + hot.storedRows + ", +" + hot.error + "]");
            assertTrue(hot.visitedRows <= visited[id] && visited[id] <= hot.visitedRows + hot.error,
                "key " + id + " visited " + visited[id] + " in [" + hot.visitedRows + ", +" + hot.error + "]");
            assertEquals(-1, hot.liveRows);
        }
        // Every key heavier than W/k is tracked; under Zipf(1.1) the first few are, and lead the report.
        for (int id = 1; id <= KEYS; id++)
        {
            if (stored[id] + visited[id] > bound)
            {
                assertTrue(reported.contains(id), "key " + id + " of weight " + (stored[id] + visited[id]) + " > " + bound + " is reported");
            }
        }
        assertEquals(List.of(1, 2, 3), reported.subList(0, 3), "the true top three lead, most visited first: " + reported);
        for (int i = 1; i < report.size(); i++)
        {
            assertTrue(report.get(i - 1).visitedRows >= report.get(i).visitedRows);
        }
        // The hottest keys entered early and were never displaced: counted exactly.
        assertEquals(0, report.get(0).error);
        assertEquals(visited[1], report.get(0).visitedRows);
    }

    @Test
    void aNewKeyTakesTheLightestSlotAndInheritsItsWeightAsError()
    {
        final HotKeySketch sketch = new HotKeySketch(2);
        int length = longKey(1);
        sketch.record(hashOf(1), key, 0, length, 1, 5);
        length = longKey(2);
        sketch.record(hashOf(2), key, 0, length, 1, 1);
        length = longKey(3);
        sketch.record(hashOf(3), key, 0, length, 1, 0);
        final List<HotKey> report = sketch.report(hash -> 4);
        assertEquals(2, report.size());
        assertEquals("1", report.get(0).keyText());
        assertEquals(6, report.get(0).storedRows + report.get(0).visitedRows);
        assertEquals(0, report.get(0).error);
        assertEquals("3", report.get(1).keyText());
        assertEquals(1, report.get(1).storedRows);
        assertEquals(2, report.get(1).error, "key 3 may have had key 2's weight before");
        assertEquals(4, report.get(1).liveRows);
    }

    @Test
    void offCountsNothingAndEventsOfNoWeightAreSkipped()
    {
        final HotKeySketch off = new HotKeySketch(0);
        final int length = longKey(1);
        off.record(hashOf(1), key, 0, length, 1, 1);
        assertEquals(List.of(), off.report(hash -> 0));
        final HotKeySketch on = new HotKeySketch(4);
        on.record(hashOf(1), key, 0, length, 0, 0);
        assertEquals(List.of(), on.report(hash -> 0));
        assertThrows(IllegalArgumentException.class, () -> new HotKeySketch(HotKeySketch.MAX_CAPACITY + 1));
        assertThrows(IllegalArgumentException.class, () -> new HotKeySketch(-1));
    }

    private void recordAll(final HotKeySketch sketch, final int[] keys, final long[] hashes)
    {
        for (final int k0 : keys)
        {
            sketch.record(hashes[k0], key, 0, 9, 1, 3);
        }
    }

    @Test
    void recordingAllocatesNothing()
    {
        final ThreadMXBean threads = (ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "this JVM does not measure the memory a thread allocates");
        final HotKeySketch sketch = new HotKeySketch(16);
        final Zipf zipf = new Zipf(KEYS, 1.1, 3);
        final int[] keys = new int[100_000];
        for (int i = 0; i < keys.length; i++)
        {
            keys[i] = zipf.next();
        }
        final long[] hashes = new long[KEYS + 1];
        for (int i = 1; i <= KEYS; i++)
        {
            hashes[i] = hashOf(i);
        }
        // The least of several passes is what the sketch allocates per pass: a pass that compiles or deoptimises
        // the loop allocates in the JVM's transitions (tens of KB once, more on a loaded host), not in the sketch,
        // while a sketch that allocated per event would allocate in every pass (a byte per event is 100 KB).
        long least = Long.MAX_VALUE;
        for (int pass = 0; pass < 6; pass++)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            // -1 means the JVM is not measuring, and the difference below would be meaningless.
            assertNotEquals(-1, before, "thread allocation measurement is off");
            recordAll(sketch, keys, hashes);
            least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
        }
        assertTrue(least < 16 * 1024, "allocated at least " + least + " bytes in each pass of " + keys.length + " events");
    }

    @Test
    void keyTextRendersTheKeyFormatAndMarksACut()
    {
        final byte[] composite = new byte[9 + 3 + 2 + 2];
        final UnsafeBuffer b = new UnsafeBuffer(composite);
        b.putByte(0, FieldType.LONG);
        b.putLong(1, -5, ByteOrder.LITTLE_ENDIAN);
        b.putByte(9, FieldType.STRING);
        b.putShort(10, (short)2, ByteOrder.LITTLE_ENDIAN);
        b.putByte(12, (byte)'a');
        b.putByte(13, (byte)'b');
        b.putByte(14, FieldType.BOOLEAN);
        b.putByte(15, (byte)1);
        assertEquals("-5|\"ab\"|true", new HotKey(1, composite, composite.length, 0, 0, -1, 0).keyText());
        final byte[] cut = new byte[HotKey.SAMPLE_LENGTH];
        final UnsafeBuffer c = new UnsafeBuffer(cut);
        c.putByte(0, FieldType.STRING);
        c.putShort(1, (short)100, ByteOrder.LITTLE_ENDIAN);
        for (int i = 3; i < cut.length; i++)
        {
            c.putByte(i, (byte)'x');
        }
        assertEquals("\"" + "x".repeat(29) + "...\"", new HotKey(1, cut, 103, 0, 0, -1, 0).keyText());
        assertEquals("0x0707", new HotKey(1, new byte[] {7, 7}, 2, 0, 0, -1, 0).keyText());
    }
}
