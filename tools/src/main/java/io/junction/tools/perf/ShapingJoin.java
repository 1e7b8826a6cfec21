package io.junction.tools.perf;

import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.RegularJoinCounts;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;

import java.util.Locale;
import io.junction.join.StateConfig;

/**
 * The joins of the changelog-shaping work's measurements (docs/WORKLOADS.md "W1-seed", docs/PERFORMANCE.md "Changelog
 * shaping"; docs/SEMANTICS.md 4.5-4.6): W1-seed's show/click scenario as a
 * <b>regular</b> left join over W1's events (shows = impressions, 20% clicked, every click within 30 s
 * of its show, so within the scenario's 60 s), in each of its {@link Config configurations}, and W2's
 * regular left join with the retraction changelog or upsert output; with a counting model of each
 * configuration's output lines ({@link #expectedLines}) that every run is checked against.
 */
public final class ShapingJoin
{
    /** "Clicks within 60 s": the padded-row delay, and the interval join's upper bound, ms. */
    public static final long SEED_WITHIN_MS = 60_000;

    /** The name of the seed workload in reports and docs. */
    public static final String SEED_NAME = "W1-seed";

    /** One way to run the join. */
    public enum Config
    {
        /** Plain regular left join, the retraction changelog (SEMANTICS 4): the baseline. */
        RETRACTION("retraction"),
        /** Regular left join with {@code paddedDelay} = 60 s (SEMANTICS 4.5-4.7). */
        PADDED_DELAY("padded-delay"),
        /** Regular left join with upsert output keyed by the show (both sides' unique key {@code key}). */
        UPSERT("upsert"),
        /** Both: upsert output and {@code paddedDelay} = 60 s. */
        PADDED_UPSERT("padded-upsert"),
        /** The interval left join {@code right.ts in [left.ts, left.ts + 60 s]}: what the article switched to. */
        INTERVAL("interval");

        private final String cliName;

        Config(final String cliName)
        {
            this.cliName = cliName;
        }

        /** @return the name on command lines and in reports */
        public String cliName()
        {
            return cliName;
        }

        /**
         * @param name a configuration's {@link #cliName()}, case-insensitively
         * @return the configuration
         * @throws IllegalArgumentException naming the valid ones
         */
        public static Config parse(final String name)
        {
            for (final Config c : values())
            {
                if (c.cliName.equalsIgnoreCase(name.trim()))
                {
                    return c;
                }
            }
            throw new IllegalArgumentException("unknown shaping configuration '" + name +
                "': expected retraction, padded-delay, upsert, padded-upsert or interval");
        }

        @Override
        public String toString()
        {
            return cliName;
        }
    }

    private ShapingJoin()
    {
    }

    /** @return whether the workload runs this configuration: W1 all of them, W2 retraction and upsert. */
    public static boolean supports(final Workload workload, final Config config)
    {
        if (workload == Workload.W1)
        {
            return true;
        }
        return workload == Workload.W2 && (config == Config.RETRACTION || config == Config.UPSERT);
    }

    /**
     * @param workload W1 (the seed join, W1-seed) or W2
     * @param config   the configuration ({@link #supports})
     * @param stateTtl W1-seed's regular joins: {@code stateTtl} in ms, 0 = none (unbounded state, Flink SQL's
     *                 default); the interval join ignores it; W2: must be 0
     * @return the join spec
     * @throws IllegalArgumentException for a workload or configuration not supported
     */
    public static JoinSpec spec(final Workload workload, final Config config, final long stateTtl)
    {
        if (!supports(workload, config))
        {
            throw new IllegalArgumentException("the shaping figures run W1 (as " + SEED_NAME + ": retraction, padded-delay, upsert, " +
                "padded-upsert, interval) and W2 (retraction, upsert), not " + workload.displayName() + " " + config);
        }
        if (stateTtl < 0 || (stateTtl > 0 && workload != Workload.W1))
        {
            throw new IllegalArgumentException("a state TTL is for " + SEED_NAME + "'s regular joins, >= 0 ms");
        }
        if (workload == Workload.W2)
        {
            final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT)
                .schemas(WorkloadJoin.SCHEMA, WorkloadJoin.SCHEMA).leftKey("key").rightKey("key");
            if (config == Config.UPSERT)
            {
                // W2's right side has ~5 rows per key: only both ids together key the result (SEMANTICS 4.5-4.7)
                b.leftUniqueKey(Workloads.W4_UNIQUE_KEY_FIELD).rightUniqueKey(Workloads.W4_UNIQUE_KEY_FIELD).output(OutputMode.UPSERT);
            }
            return b.build();
        }
        if (config == Config.INTERVAL)
        {
            // its state is bounded by the interval: a state TTL does not apply
            return JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(WorkloadJoin.SCHEMA, WorkloadJoin.SCHEMA)
                .leftKey("key").rightKey("key").interval(IntervalBounds.inclusive(0, SEED_WITHIN_MS)).build();
        }
        final JoinSpec.Builder b = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT)
            .schemas(WorkloadJoin.SCHEMA, WorkloadJoin.SCHEMA).leftKey("key").rightKey("key");
        if (stateTtl > 0)
        {
            b.stateTtl(stateTtl);
        }
        if (config == Config.PADDED_DELAY || config == Config.PADDED_UPSERT)
        {
            b.paddedDelay(SEED_WITHIN_MS);
        }
        if (config == Config.UPSERT || config == Config.PADDED_UPSERT)
        {
            // One show and at most one click per key: the join key is each side's unique key, and the
            // result is keyed by the show (the right unique key lies in the right join key).
            b.leftUniqueKey("key").rightUniqueKey("key").output(OutputMode.UPSERT);
        }
        return b.build();
    }

    /** @return the report's name of a workload's join: "W1-seed" or "W2" */
    public static String workloadName(final Workload workload)
    {
        return workload == Workload.W1 ? SEED_NAME : workload.displayName();
    }

    /** @return the key index capacity per partition a configuration needs on a tape (regular joins keep every key) */
    public static long maxKeysPerPartition(final Workload workload, final Config config, final EventTape tape, final int partitions)
    {
        if (workload == Workload.W1 && config != Config.INTERVAL)
        {
            return Math.max(1024, tape.rows() * 5 / 4 / partitions + 1024);
        }
        return LoadRun.maxKeysPerPartition(workload, partitions);
    }

    /** @return arena bytes per partition to take before timing starts, for the regular seed joins (all rows stay) */
    public static long preallocatePerPartition(final Workload workload, final Config config, final EventTape tape, final int partitions)
    {
        if (System.getProperty(StateConfig.PREALLOCATE_PROP_NAME) != null || workload != Workload.W1 || config == Config.INTERVAL)
        {
            return 0;
        }
        return (tape.rows() * 160 + (16L << 20)) / partitions;
    }

    /**
     * What the counting model says a configuration emits: {@link #lines} output lines, and the joined
     * (show, click) pairs the output leaves at the end ({@link #joinedPairs}).
     */
    public static final class Expected
    {
        public final long lines;
        public final long joinedPairs;

        Expected(final long lines, final long joinedPairs)
        {
            this.lines = lines;
            this.joinedPairs = joinedPairs;
        }

        @Override
        public String toString()
        {
            return String.format(Locale.ROOT, "%d lines, %d joined pairs", lines, joinedPairs);
        }
    }

    /**
     * The counting model of a configuration's output. W2: the regular left join's changelog
     * ({@link RegularJoinCounts}); upsert output has as many lines, since both ids key the result and no
     * step holds two lines of one result key ({@code -(l, null)} and {@code +(l, r)} differ in key).
     * W1-seed (any tape where every key has one show and at most one click, not before it, the shape W1
     * has): with {@code S} shows, {@code M} clicks that find their show in state (always, without a TTL;
     * with one, unless the show expired: {@code show.ts < watermark - stateTtl}) and {@code P} of those
     * while the show is still inside its delay (the join watermark not yet above {@code show.ts + 60 s}):
     * <ul>
     *   <li>retraction: {@code S + 2M} ({@code +(s, null)}; {@code -(s, null)}, {@code +(s, c)})</li>
     *   <li>padded-delay: {@code S + 2(M - P)} (a click inside the delay replaces the padded row)</li>
     *   <li>upsert: {@code S + M} (the pair folds into one upsert)</li>
     *   <li>padded-upsert: {@code S + (M - P)}</li>
     *   <li>interval: {@code S}, each show once, joined or padded (the interval join never retracts)</li>
     * </ul>
     * Joined pairs at the end: {@code M} for the regular joins, the clicks within 60 s of their show for
     * the interval join.
     *
     * @throws IllegalArgumentException when a W1 tape is not of that shape
     */
    public static Expected expectedLines(final Workload workload, final Config config, final EventTape tape, final long stateTtl)
    {
        if (workload == Workload.W2)
        {
            final RegularJoinCounts counts = RegularJoinCounts.of(tape);
            return new Expected(counts.leftChangelog(), counts.inner());
        }
        final SeedCounts c = SeedCounts.of(tape, stateTtl);
        switch (config)
        {
            case RETRACTION:
                return new Expected(c.shows + 2 * c.matched, c.matched);
            case PADDED_DELAY:
                return new Expected(c.shows + 2 * (c.matched - c.matchedInDelay), c.matched);
            case UPSERT:
                return new Expected(c.shows + c.matched, c.matched);
            case PADDED_UPSERT:
                return new Expected(c.shows + c.matched - c.matchedInDelay, c.matched);
            default:
                return new Expected(c.shows, c.withinInterval);
        }
    }

    /** One pass over a W1-shaped tape: shows, clicks that match, and those inside the delay. */
    static final class SeedCounts
    {
        long shows;
        long matched;
        long matchedInDelay;
        long withinInterval;

        static SeedCounts of(final EventTape tape, final long stateTtl)
        {
            final SeedCounts c = new SeedCounts();
            int capacity = 16;
            while (capacity < tape.rows() * 2)
            {
                capacity <<= 1;
            }
            final long[] keys = new long[capacity];
            final long[] showTs = new long[capacity];
            // 0: empty slot, 1: a show without its click yet, 2: its click came
            final byte[] state = new byte[capacity];
            final int mask = capacity - 1;
            long watermark = Long.MIN_VALUE;
            for (int i = 0, n = tape.size(); i < n; i++)
            {
                final byte type = tape.type(i);
                if (type == EventTape.TYPE_WATERMARK)
                {
                    watermark = Math.max(watermark, tape.ts(i));
                    continue;
                }
                if (type != EventTape.TYPE_LEFT && type != EventTape.TYPE_RIGHT)
                {
                    continue;
                }
                final long key = tape.key(i);
                int slot = (int)(mix(key) & mask);
                while (state[slot] != 0 && keys[slot] != key)
                {
                    slot = (slot + 1) & mask;
                }
                final long ts = tape.ts(i);
                if (type == EventTape.TYPE_LEFT)
                {
                    if (state[slot] != 0)
                    {
                        throw new IllegalArgumentException("two shows with key " + key + ": not the W1 shape the model counts");
                    }
                    keys[slot] = key;
                    showTs[slot] = ts;
                    state[slot] = 1;
                    c.shows++;
                    continue;
                }
                if (state[slot] != 1)
                {
                    throw new IllegalArgumentException("a click with key " + key + (state[slot] == 0 ? " before its show" : " clicked twice") +
                        ": not the W1 shape the model counts");
                }
                state[slot] = 2;
                final long show = showTs[slot];
                if (ts >= show && ts - show <= SEED_WITHIN_MS && !(watermark != Long.MIN_VALUE && ts < watermark))
                {
                    c.withinInterval++;
                }
                final boolean expired = stateTtl > 0 && watermark != Long.MIN_VALUE && show < watermark - stateTtl;
                if (!expired)
                {
                    c.matched++;
                    if (watermark == Long.MIN_VALUE || watermark <= show + SEED_WITHIN_MS)
                    {
                        c.matchedInDelay++;
                    }
                }
            }
            return c;
        }

        private static long mix(final long key)
        {
            long z = key * 0x9E3779B97F4A7C15L;
            return z ^ (z >>> 29);
        }
    }
}
