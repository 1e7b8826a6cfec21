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
 * taken instead. Preallocated primitive arrays, no allocation per event; an update scans the {@code k}
 * slots (k is small: {@link #MAX_CAPACITY}).
 *
 * <p>Not thread safe: owned by the partition thread, which also takes the {@link #report}.
 */
public final class HotKeySketch
{
    /** The most counters a sketch keeps: updates scan them. */
    public static final int MAX_CAPACITY = 256;

    private final int capacity;
    private final long[] hashes;
    private final long[] weights;
    private final long[] errors;
    private final long[] stored;
    private final long[] visited;
    private final int[] keyLengths;
    private final byte[] samples;
    private int size;
    private long totalWeight;

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
        this.keyLengths = new int[capacity];
        this.samples = new byte[capacity * HotKey.SAMPLE_LENGTH];
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
        final long weight = (long)storedRows + visitedRows;
        if (weight == 0 || capacity == 0)
        {
            return;
        }
        totalWeight += weight;
        int slot = findOrLightest(hash);
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
                slot = -slot - 1;
                // The newcomer may have had up to the displaced key's weight before: its error.
                errors[slot] = weights[slot];
            }
            hashes[slot] = hash;
            stored[slot] = 0;
            visited[slot] = 0;
            keyLengths[slot] = keyLength;
            key.getBytes(offset, samples, slot * HotKey.SAMPLE_LENGTH, Math.min(keyLength, HotKey.SAMPLE_LENGTH));
        }
        weights[slot] += weight;
        stored[slot] += storedRows;
        visited[slot] += visitedRows;
    }

    /**
     * One pass over the slots, since most rows of a wide key space miss the sketch.
     *
     * @return the slot holding {@code hash}, or else {@code -(lightest slot) - 1} (-1 while none is used).
     */
    private int findOrLightest(final long hash)
    {
        final long[] hashes = this.hashes;
        final long[] weights = this.weights;
        int lightest = 0;
        long min = Long.MAX_VALUE;
        for (int i = 0, n = size; i < n; i++)
        {
            if (hashes[i] == hash)
            {
                return i;
            }
            if (weights[i] < min)
            {
                min = weights[i];
                lightest = i;
            }
        }
        return -lightest - 1;
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
            keys.add(new HotKey(hashes[i], sample, keyLengths[i], stored[i], visited[i], liveRows.applyAsLong(hashes[i]), errors[i]));
        }
        keys.sort((a, b) -> a.visitedRows != b.visitedRows ? Long.compare(b.visitedRows, a.visitedRows)
            : Long.compare(b.storedRows, a.storedRows));
        return Collections.unmodifiableList(keys);
    }
}
