package io.junction.internal.metrics;

import io.junction.metrics.HotKey;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link HotKeySketch}'s index and lightest-slot cursor against the scan of every slot they replaced (the
 * reference below, Space-Saving as before): over random streams (wide and narrow key spaces, colliding index
 * homes, weights 0 to 3, capacities 1 to {@link HotKeySketch#MAX_CAPACITY}) both report the same keys, counts
 * and errors in the same order after every few hundred updates.
 */
class HotKeySketchIndexTest
{
    /** The sketch as it was: a scan of every slot per update. */
    private static final class ScanSketch
    {
        private final int capacity;
        private final long[] hashes;
        private final long[] weights;
        private final long[] errors;
        private final long[] stored;
        private final long[] visited;
        private final long[] events;
        private final long[] fanOut;
        private final int[] keyLengths;
        private final byte[] samples;
        private int size;

        ScanSketch(final int capacity)
        {
            this.capacity = capacity;
            hashes = new long[capacity];
            weights = new long[capacity];
            errors = new long[capacity];
            stored = new long[capacity];
            visited = new long[capacity];
            events = new long[capacity];
            fanOut = new long[capacity];
            keyLengths = new int[capacity];
            samples = new byte[capacity * HotKey.SAMPLE_LENGTH];
        }

        void record(final long hash, final DirectBuffer key, final int keyLength, final int storedRows, final int visitedRows)
        {
            final long weight = (long)storedRows + visitedRows;
            if (weight == 0 || capacity == 0)
            {
                return;
            }
            int slot = -1;
            int lightest = 0;
            long min = Long.MAX_VALUE;
            for (int i = 0; i < size; i++)
            {
                if (hashes[i] == hash)
                {
                    slot = i;
                    break;
                }
                if (weights[i] < min)
                {
                    min = weights[i];
                    lightest = i;
                }
            }
            if (slot < 0)
            {
                if (size < capacity)
                {
                    slot = size++;
                    weights[slot] = 0;
                    errors[slot] = 0;
                }
                else
                {
                    slot = lightest;
                    errors[slot] = weights[slot];
                }
                hashes[slot] = hash;
                stored[slot] = 0;
                visited[slot] = 0;
                events[slot] = 0;
                fanOut[slot] = 0;
                keyLengths[slot] = keyLength;
                key.getBytes(0, samples, slot * HotKey.SAMPLE_LENGTH, Math.min(keyLength, HotKey.SAMPLE_LENGTH));
            }
            weights[slot] += weight;
            stored[slot] += storedRows;
            visited[slot] += visitedRows;
            // the six-argument record counts the rows visited as the row's fan-out
            events[slot]++;
            fanOut[slot] += visitedRows;
        }

        List<HotKey> report()
        {
            final List<HotKey> keys = new ArrayList<>(size);
            for (int i = 0; i < size; i++)
            {
                final byte[] sample = new byte[Math.min(keyLengths[i], HotKey.SAMPLE_LENGTH)];
                System.arraycopy(samples, i * HotKey.SAMPLE_LENGTH, sample, 0, sample.length);
                keys.add(new HotKey(hashes[i], sample, keyLengths[i], stored[i], visited[i], -1, errors[i], events[i], fanOut[i]));
            }
            keys.sort((a, b) -> a.visitedRows != b.visitedRows ? Long.compare(b.visitedRows, a.visitedRows)
                : Long.compare(b.storedRows, a.storedRows));
            return Collections.unmodifiableList(keys);
        }
    }

    private static String text(final List<HotKey> keys)
    {
        final StringBuilder b = new StringBuilder();
        for (final HotKey k : keys)
        {
            b.append(k).append(" e=").append(k.error).append('\n');
        }
        return b.toString();
    }

    @Test
    void reportsWhatTheScanOfEverySlotReports()
    {
        final int[] capacities = {1, 2, 3, 16, 64, HotKeySketch.MAX_CAPACITY};
        final UnsafeBuffer key = new UnsafeBuffer(new byte[8]);
        for (int seed = 0; seed < 60; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed);
            final int capacity = capacities[seed % capacities.length];
            // narrow (hits), wide (misses), or keys whose hashes share low bits (colliding index homes)
            final int shape = seed / capacities.length % 3;
            final int keys = shape == 0 ? Math.max(2, capacity * 2) : 100_000;
            final HotKeySketch sketch = new HotKeySketch(capacity);
            final ScanSketch reference = new ScanSketch(capacity);
            for (int event = 0; event < 4_000; event++)
            {
                final long k = random.nextInt(2) == 0 ? random.nextInt(Math.max(1, capacity / 2 + 1)) : random.nextInt(keys);
                final long hash = shape == 2 ? k << 40 : k * 0x9E3779B97F4A7C15L + seed;
                key.putLong(0, k);
                final int storedRows = random.nextInt(2);
                final int visitedRows = random.nextInt(3);
                sketch.record(hash, key, 0, 8, storedRows, visitedRows);
                reference.record(hash, key, 8, storedRows, visitedRows);
                if (event % 397 == 0 || event == 3_999)
                {
                    assertEquals(text(reference.report()), text(sketch.report(h -> -1)),
                        "seed " + seed + " capacity " + capacity + " event " + event);
                }
            }
        }
    }
}
