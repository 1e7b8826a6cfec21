package io.junction.internal.metrics;

import io.junction.metrics.HotKey;
import org.agrona.DirectBuffer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * The heavy hitters of one partition's keys: Space-Saving (Metwally, Agrawal, El Abbadi 2005) with
 * {@code k} counters over the 64-bit key hash, weighted by the rows a key costs: each row stored counts
 * 1 and each stored row a probe of the key visits counts 1. A key not tracked takes the slot of the
 * lightest tracked key and inherits its weight as its {@code error}, so:
 * <ul>
 *   <li>every key whose weight exceeds {@code W / k} ({@code W} the weight of every event so far) is
 *       tracked, and the error of any tracked key is at most {@code W / k};</li>
 *   <li>a tracked key's stored and visited counts are counted since it entered, so each true count lies
 *       in {@code [count, count + error]}.</li>
 * </ul>
 * Both measures are monotone over the run: rows leaving state are not subtracted (Space-Saving has no
 * sound decrement); the live rows of the tracked keys are read from their buckets when a report is
 * taken instead. Preallocated primitive arrays, no allocation per event. An update finds its key's slot in
 * an open-addressing index over the tracked hashes (a probe or two, not a scan of the {@code k} slots); a key
 * not tracked takes the lightest slot, the lowest-numbered of the least weight, found from a cursor: weights
 * only grow, so the slots before the cursor stay heavier than the least weight, and the {@code k} slots are
 * scanned again only once no slot at the cursor or after it has that weight (amortised O(1) per update, and
 * the same slot a full scan would pick, so the report is the one of a scan of every slot).
 *
 * <p>Not thread safe: owned by the partition thread, which also takes the {@link #report}.
 */
public final class HotKeySketch
{
    /** The most counters a sketch keeps: a report reads and sorts them all, and the sketch keeps a sample of each key. */
    public static final int MAX_CAPACITY = 256;

    private final int capacity;
    private final long[] hashes;
    private final long[] weights;
    private final long[] errors;
    private final long[] stored;
    private final long[] visited;
    /** Per slot: the key's row events counted, and the fan-out they add up to (the lines they joined). */
    private final long[] events;
    private final long[] fanOut;
    private final int[] keyLengths;
    private final byte[] samples;
    /** Open addressing over the tracked hashes: slot + 1, 0 for empty; a power of two, at least 4k entries. */
    private final int[] index;
    private final int indexMask;
    private int size;
    private long totalWeight;
    /** The least weight of a slot while the sketch is full, Long.MIN_VALUE until first needed. */
    private long leastWeight = Long.MIN_VALUE;
    /** Every slot below it weighs more than {@link #leastWeight}. */
    private int lightCursor;

    /**
     * @param capacity counters, in [0, {@link #MAX_CAPACITY}]; 0 makes {@link #record} do nothing.
     */
    public HotKeySketch(final int capacity)
    {
        if (capacity < 0 || capacity > MAX_CAPACITY)
        {
            throw new IllegalArgumentException("hot-key counters must be in [0, " + MAX_CAPACITY + "]: " + capacity);
        }
        this.capacity = capacity;
        this.hashes = new long[capacity];
        this.weights = new long[capacity];
        this.errors = new long[capacity];
        this.stored = new long[capacity];
        this.visited = new long[capacity];
        this.events = new long[capacity];
        this.fanOut = new long[capacity];
        this.keyLengths = new int[capacity];
        this.samples = new byte[capacity * HotKey.SAMPLE_LENGTH];
        int entries = 4;
        while (entries < capacity * 4)
        {
            entries <<= 1;
        }
        this.index = new int[entries];
        this.indexMask = entries - 1;
    }

    /** @return whether the sketch counts anything. */
    public boolean enabled()
    {
        return capacity > 0;
    }

    /** @return the counters the sketch keeps. */
    public int capacity()
    {
        return capacity;
    }

    /** @return the weight of every event recorded: rows stored plus rows visited. */
    public long totalWeight()
    {
        return totalWeight;
    }

    /**
     * Counts one event of a key: the rows it stored and the stored rows its probe visited.
     *
     * @param hash        the key's hash.
     * @param key         the key bytes, sampled when the key enters the sketch.
     * @param offset      where the key starts in {@code key}.
     * @param keyLength   the key's length.
     * @param storedRows  rows stored, &gt;= 0.
     * @param visitedRows rows visited, &gt;= 0.
     */
    public void record(
        final long hash, final DirectBuffer key, final int offset, final int keyLength, final int storedRows, final int visitedRows)
    {
        record(hash, key, offset, keyLength, storedRows, visitedRows, visitedRows);
    }

    /**
     * Counts one event of a key, as {@link #record(long, DirectBuffer, int, int, int, int)}, with the fan-out of
     * its row where that is not the rows it visited (a multi-way join's: the product of the other inputs' rows).
     *
     * @param hash        the key's hash.
     * @param key         the key bytes, sampled when the key enters the sketch.
     * @param offset      where the key starts in {@code key}.
     * @param keyLength   the key's length.
     * @param storedRows  rows stored, &gt;= 0.
     * @param visitedRows rows visited, &gt;= 0.
     * @param rowFanOut   the result lines the row joins, &gt;= 0 (docs/OPERATIONS.md "Hot keys": amplification).
     */
    public void record(
        final long hash, final DirectBuffer key, final int offset, final int keyLength, final int storedRows, final int visitedRows,
        final long rowFanOut)
    {
        final long weight = (long)storedRows + visitedRows;
        if (weight == 0 || capacity == 0)
        {
            return;
        }
        totalWeight += weight;
        int slot = find(hash);
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
                slot = lightest();
                // The newcomer may have had up to the displaced key's weight before: its error.
                errors[slot] = weights[slot];
                unindex(hashes[slot]);
            }
            hashes[slot] = hash;
            index(hash, slot);
            stored[slot] = 0;
            visited[slot] = 0;
            events[slot] = 0;
            fanOut[slot] = 0;
            keyLengths[slot] = keyLength;
            key.getBytes(offset, samples, slot * HotKey.SAMPLE_LENGTH, Math.min(keyLength, HotKey.SAMPLE_LENGTH));
        }
        weights[slot] += weight;
        stored[slot] += storedRows;
        visited[slot] += visitedRows;
        events[slot]++;
        final long sum = fanOut[slot] + rowFanOut;
        fanOut[slot] = sum < 0 ? Long.MAX_VALUE : sum;
    }

    /** @return the index's first entry for a hash (its high and low bits mixed). */
    private int home(final long hash)
    {
        final long h = hash * 0x9E3779B97F4A7C15L;
        return (int)(h ^ (h >>> 32)) & indexMask;
    }

    /** @return the slot tracking {@code hash}, or -1. */
    private int find(final long hash)
    {
        for (int i = home(hash); ; i = (i + 1) & indexMask)
        {
            final int entry = index[i];
            if (entry == 0)
            {
                return -1;
            }
            if (hashes[entry - 1] == hash)
            {
                return entry - 1;
            }
        }
    }

    private void index(final long hash, final int slot)
    {
        int i = home(hash);
        while (index[i] != 0)
        {
            i = (i + 1) & indexMask;
        }
        index[i] = slot + 1;
    }

    /** Takes a tracked hash out of the index, shifting back the entries after it that would be cut off from home. */
    private void unindex(final long hash)
    {
        int hole = home(hash);
        while (hashes[index[hole] - 1] != hash)
        {
            hole = (hole + 1) & indexMask;
        }
        for (int i = (hole + 1) & indexMask; index[i] != 0; i = (i + 1) & indexMask)
        {
            final int want = home(hashes[index[i] - 1]);
            // the entry at i may fill the hole unless its home lies cyclically in (hole, i]
            final boolean homeAfterHole = hole <= i ? (want > hole && want <= i) : (want > hole || want <= i);
            if (!homeAfterHole)
            {
                index[hole] = index[i];
                hole = i;
            }
        }
        index[hole] = 0;
    }

    /**
     * The sketch is full: the lowest-numbered slot of the least weight (what a scan of every slot finds), from
     * the cursor on while a slot there still has the least weight, else by a new scan.
     */
    private int lightest()
    {
        final long[] weights = this.weights;
        for (int i = lightCursor, n = size; i < n; i++)
        {
            if (weights[i] == leastWeight)
            {
                lightCursor = i;
                return i;
            }
        }
        int lightest = 0;
        long min = Long.MAX_VALUE;
        for (int i = 0, n = size; i < n; i++)
        {
            if (weights[i] < min)
            {
                min = weights[i];
                lightest = i;
            }
        }
        leastWeight = min;
        lightCursor = lightest;
        return lightest;
    }

    /**
     * @param liveRows the live rows of a key hash, -1 when unknown.
     * @return the tracked keys, most visited rows first (then most stored); allocates, so it is taken
     *         at a publication interval, never per event.
     */
    public List<HotKey> report(final LongUnaryOperator liveRows)
    {
        if (size == 0)
        {
            return Collections.emptyList();
        }
        final List<HotKey> keys = new ArrayList<>(size);
        for (int i = 0; i < size; i++)
        {
            final byte[] sample = new byte[Math.min(keyLengths[i], HotKey.SAMPLE_LENGTH)];
            System.arraycopy(samples, i * HotKey.SAMPLE_LENGTH, sample, 0, sample.length);
            keys.add(new HotKey(hashes[i], sample, keyLengths[i], stored[i], visited[i], liveRows.applyAsLong(hashes[i]), errors[i],
                events[i], fanOut[i]));
        }
        keys.sort((a, b) -> a.visitedRows != b.visitedRows ? Long.compare(b.visitedRows, a.visitedRows)
            : Long.compare(b.storedRows, a.storedRows));
        return Collections.unmodifiableList(keys);
    }
}
