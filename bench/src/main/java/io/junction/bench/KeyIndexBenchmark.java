package io.junction.bench;

import io.junction.internal.row.KeyHash;
import io.junction.internal.state.KeyIndex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The partition's join-key index ({@link KeyIndex}: Chronicle Map from key hash to bucket address)
 * on its own, holding {@code liveKeys} keys (default 2^20, about a million) in an index sized for
 * {@code maxKeys}. Key hashes are {@code KeyHash.mix(i)}, as {@code KeyHash.hash} gives for
 * distinct keys.
 * <ul>
 *   <li>{@link #findHit}: one operation = one {@link KeyIndex#find} of a live key, picked in a
 *       scattered order (every lookup hits; the probe path of every event of a joined key).</li>
 *   <li>{@link #findOrCreateAndRemove}: one operation = one {@link KeyIndex#findOrCreate} of a new key
 *       plus one {@link KeyIndex#remove} of the oldest live key, so the index stays at
 *       {@code liveKeys} (the churn of W1, where every impression brings a new key and every closed
 *       one takes its key away).</li>
 * </ul>
 * Run with {@code -prof gc}: {@code gc.alloc.rate.norm} should be ~0 B/op once warm.
 * <p>
 * Not thread safe: one benchmark thread per state ({@link Scope#Thread}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
public class KeyIndexBenchmark
{
    /** Live keys; a power of two (the ring of bucket addresses is indexed by mask). */
    @Param({"1048576"})
    public int liveKeys;

    /** Capacity the index is built for (Chronicle Map entries); headroom over {@link #liveKeys}. */
    @Param({"2097152"})
    public long maxKeys;

    private KeyIndex index;
    /** Bucket of key {@code i} at {@code i & mask}, for the live window of keys. */
    private long[] buckets;
    private int mask;
    /** Oldest live key number (churn). */
    private long oldest;
    /** Lookup counter (find). */
    private long lookups;

    @Setup(Level.Trial)
    public void setUp()
    {
        if (Integer.bitCount(liveKeys) != 1 || liveKeys > maxKeys)
        {
            throw new IllegalArgumentException(
                "liveKeys must be a power of two and <= maxKeys: liveKeys=" + liveKeys + ", maxKeys=" + maxKeys);
        }
        index = KeyIndex.create(KeyIndex.Kind.CHRONICLE, maxKeys);
        buckets = new long[liveKeys];
        mask = liveKeys - 1;
        for (int i = 0; i < liveKeys; i++)
        {
            final long bucket = index.findOrCreate(KeyHash.mix(i));
            if (bucket == KeyIndex.FULL)
            {
                throw new IllegalStateException("index full after " + i + " keys; raise maxKeys=" + maxKeys);
            }
            buckets[i] = bucket;
        }
        oldest = 0;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        index.close();
    }

    @Benchmark
    public long findHit()
    {
        // a scattered walk over the live window [oldest, oldest + liveKeys)
        final long n = lookups++;
        final long i = oldest + ((n * 0x9E3779B97F4A7C15L) >>> 1) % liveKeys;
        return index.find(KeyHash.mix(i));
    }

    @Benchmark
    public long findOrCreateAndRemove()
    {
        final long old = oldest++;
        final int at = (int)old & mask;
        index.remove(buckets[at]);
        final long bucket = index.findOrCreate(KeyHash.mix(old + liveKeys));
        if (bucket == KeyIndex.FULL)
        {
            throw new IllegalStateException("index full at " + index.size() + " keys; raise maxKeys=" + maxKeys);
        }
        buckets[at] = bucket;
        return bucket;
    }
}
