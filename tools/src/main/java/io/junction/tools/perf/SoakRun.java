package io.junction.tools.perf;

import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.join.StateConfig;
import io.junction.metrics.CheckpointPausePart;
import io.junction.metrics.PartitionSnapshot;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Arrays;

/**
 * A long run at a fixed rate that shows whether anything grows that should not: W1's interval join
 * driven endlessly by replaying its tape in laps, each lap shifted forward in event time by more than
 * the tape's span plus the join interval, so rows of one lap close (and are padded and freed) before
 * the next lap's rows could reach them. Every report interval it prints one line: events/s achieved,
 * latency percentiles of that interval (from each event's intended send time: coordinated omission
 * corrected), live rows, state bytes, the process's resident set, collections so far, and the
 * partitions' longest pause of the interval for checkpoints when it runs durable with checkpoints. A healthy engine
 * shows every column flat once the first lap has filled the interval.
 */
public final class SoakRun
{
    /** What to run. Mutable holder filled by the command. */
    public static final class Options
    {
        public JoinType type = JoinType.LEFT;
        public int partitions = 1;
        public WaitStrategyKind waitStrategy = EngineConfig.WAIT_STRATEGY_DEFAULT;
        /** Offered events/s (required, > 0: a soak is open loop). */
        public long rate = 100_000;
        /** Total run time. */
        public long durationSeconds = 3600;
        /** Time between report lines. */
        public long reportSeconds = 60;
        /** Impressions (left rows) per lap, each with W1's clicks and watermarks (0 = W1's 2 million). */
        public int lapImpressions;
        /** Where report lines go. */
        public PrintStream out = System.out;
        /** A CSV of the report lines, or null. */
        public Path csv;
        /** An SVG plot of the report lines, or null. */
        public Path svg;
        /** Durable mode: the state root (emptied first), or null for state in memory. */
        public Path stateRoot;
        /** Durable mode: seconds between checkpoints (0 = none). */
        public long checkpointSeconds;
    }

    /** One report line. */
    public static final class Sample
    {
        public final double elapsedSeconds;
        public final double eventsPerSecond;
        public final long p50Nanos;
        public final long p99Nanos;
        public final long p999Nanos;
        public final long maxNanos;
        public final long liveRows;
        public final long stateBytes;
        public final long rssBytes;
        public final long gcCount;
        /** Checkpoints completed so far (durable mode), summed over the partitions. */
        public final long checkpoints;
        /** The longest partition-thread pause of the checkpoints taken in this interval, ns (0: none taken). */
        public final long checkpointPauseNanos;

        Sample(final double elapsedSeconds, final double eventsPerSecond, final Histogram interval, final long liveRows,
            final long stateBytes, final long rssBytes, final long gcCount, final long checkpoints, final long checkpointPauseNanos)
        {
            this.checkpoints = checkpoints;
            this.checkpointPauseNanos = checkpointPauseNanos;
            this.elapsedSeconds = elapsedSeconds;
            this.eventsPerSecond = eventsPerSecond;
            this.p50Nanos = interval.getValueAtPercentile(50);
            this.p99Nanos = interval.getValueAtPercentile(99);
            this.p999Nanos = interval.getValueAtPercentile(99.9);
            this.maxNanos = interval.getMaxValue();
            this.liveRows = liveRows;
            this.stateBytes = stateBytes;
            this.rssBytes = rssBytes;
            this.gcCount = gcCount;
        }
    }

    private SoakRun()
    {
    }

    /**
     * Runs the soak and returns its report lines.
     *
     * @param options what to run
     * @return the samples, one per report interval
     * @throws IOException when the CSV or SVG cannot be written
     */
    public static List<Sample> run(final Options options) throws IOException
    {
        if (options.rate <= 0 || options.durationSeconds <= 0 || options.reportSeconds <= 0 || options.partitions <= 0)
        {
            throw new IllegalArgumentException("rate, duration, report interval and partitions must be > 0");
        }
        final EventTape tape;
        if (options.lapImpressions > 0)
        {
            tape = new EventTape();
            Workloads.w1(options.lapImpressions, tape);
        }
        else
        {
            tape = EventTape.of(Workload.W1);
        }
        final long interval = Workloads.w1IntervalMillis(Workload.W1);
        long minTs = Long.MAX_VALUE;
        long maxTs = Long.MIN_VALUE;
        for (int i = 0; i < tape.size(); i++)
        {
            final byte type = tape.type(i);
            if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT || type == EventTape.TYPE_WATERMARK)
            {
                minTs = Math.min(minTs, tape.ts(i));
                maxTs = Math.max(maxTs, tape.ts(i));
            }
        }
        // Far enough that a lap's rows never meet the previous lap's, and its first watermark closes them all.
        final long lapShift = (maxTs - minTs) + 4 * interval + 2 * Workloads.W1_WATERMARK_LAG_MS;
        final JoinSpec spec = WorkloadJoin.spec(Workload.W1, options.type);
        EngineConfig config = EngineConfig.defaults()
            .withPartitions(options.partitions)
            .withWaitStrategy(options.waitStrategy)
            .withState(StateConfig.fromSystemProperties()
                .withMaxKeys(LoadRun.maxKeysPerPartition(Workload.W1, options.partitions))
                .withPreallocate(LoadRun.preallocatePerPartition(Workload.W1, options.partitions, tape.rows())));
        if (options.stateRoot != null)
        {
            LoadRun.emptyDirectory(options.stateRoot);
            config = config.withStateRoot(options.stateRoot);
            if (options.checkpointSeconds > 0)
            {
                config = config.withCheckpointInterval(0, Duration.ofSeconds(options.checkpointSeconds));
            }
        }
        final CheckpointPauses pauses = new CheckpointPauses();
        final long[] outputs = new long[options.partitions];
        final EncodedRows rows = EncodedRows.encode(tape);
        final List<Sample> samples = new ArrayList<>();
        final JoinEngine engine = JoinEngine.builder(spec).config(config)
            .resultHandlers(p -> (kind, left, right, ts, step) -> outputs[p]++)
            .start();
        final Publisher publisher = engine.publisher();
        final int n = tape.size();
        final double period = 1e9 / options.rate;
        final long start = System.nanoTime();
        final long end = start + options.durationSeconds * 1_000_000_000L;
        final long reportNanos = options.reportSeconds * 1_000_000_000L;
        long nextReport = start + reportNanos;
        long lastReport = start;
        long lastEvents = 0;
        long event = 0;
        long lap = 0;
        header(options.out);
        try
        {
            while (true)
            {
                final long shift = lap * lapShift;
                for (int i = 0; i < n; i++, event++)
                {
                    final long intended = start + (long)(event * period);
                    long now;
                    while ((now = System.nanoTime()) < intended)
                    {
                        Thread.onSpinWait();
                    }
                    if (now >= nextReport)
                    {
                        if (now >= end)
                        {
                            return finish(options, samples);
                        }
                        final Sample sample = sample(engine, (now - start) / 1e9, (event - lastEvents) / ((now - lastReport) / 1e9), pauses);
                        samples.add(sample);
                        print(options.out, sample);
                        lastReport = now;
                        lastEvents = event;
                        nextReport += reportNanos;
                    }
                    if ((event & 0x3FFF) == 0)
                    {
                        // the metrics list is garbage: sampled a dozen times a second, not per event
                        pauses.sample(engine);
                    }
                    // the tape's end of input is not sent: the next lap's first watermark closes this lap's rows
                    LoadRun.publishEvent(publisher, tape, rows, i, shift, event, intended);
                }
                lap++;
            }
        }
        finally
        {
            engine.close();
        }
    }

    private static List<Sample> finish(final Options options, final List<Sample> samples) throws IOException
    {
        if (options.csv != null)
        {
            final StringBuilder csv = new StringBuilder(
                "elapsed_s,events_per_s,p50_us,p99_us,p999_us,max_us,live_rows,state_bytes,rss_bytes,gc_count,checkpoints,checkpoint_pause_ms\n");
            for (final Sample s : samples)
            {
                csv.append(String.format(Locale.ROOT, "%.1f,%.0f,%.1f,%.1f,%.1f,%.1f,%d,%d,%d,%d,%d,%.1f%n", s.elapsedSeconds, s.eventsPerSecond,
                    s.p50Nanos / 1e3, s.p99Nanos / 1e3, s.p999Nanos / 1e3, s.maxNanos / 1e3, s.liveRows, s.stateBytes, s.rssBytes, s.gcCount,
                    s.checkpoints, s.checkpointPauseNanos / 1e6));
            }
            Files.writeString(options.csv, csv, StandardCharsets.UTF_8);
        }
        if (options.svg != null)
        {
            SoakPlot.write(options.svg, samples, String.format(Locale.ROOT, "soak: W1 %s, %,d events/s, %d partition(s)%s",
                options.type.name().toLowerCase(Locale.ROOT), options.rate, options.partitions,
                options.stateRoot == null ? ", state in memory" : ", durable, checkpoint every " + options.checkpointSeconds + " s"));
        }
        return samples;
    }

    private static Sample sample(final JoinEngine engine, final double elapsed, final double eventsPerSecond, final CheckpointPauses pauses)
    {
        pauses.sample(engine);
        final Histogram latency = engine.sampleLatency();
        long live = 0;
        long bytes = 0;
        for (final PartitionSnapshot snapshot : engine.metrics())
        {
            live += snapshot.liveLeft + snapshot.liveRight;
            bytes += snapshot.stateBytes;
        }
        long gc = 0;
        for (final GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans())
        {
            gc += Math.max(0, bean.getCollectionCount());
        }
        return new Sample(elapsed, eventsPerSecond, latency.getTotalCount() == 0 ? new Histogram(LatencyRecorder.HIGHEST_TRACKABLE_NANOS, 3) : latency,
            live, bytes, residentSetBytes(), gc, pauses.checkpoints, pauses.takeIntervalMax());
    }

    /**
     * The partition threads' checkpoint pauses as the metrics show them: each partition's pause of its
     * newest checkpoint, read often enough (every 16,384 events in the soak, 1,024 in loadgen's short runs) that a
     * checkpoint is seen before the next.
     */
    static final class CheckpointPauses
    {
        private static final CheckpointPausePart[] PAUSE_PARTS = CheckpointPausePart.values();

        long checkpoints;
        private long[] seen = new long[0];
        private long intervalMax;
        private long[] all = new long[16];
        private long[][] parts = new long[16][];
        private int count;

        void sample(final JoinEngine engine)
        {
            final List<PartitionSnapshot> snapshots = engine.metrics();
            if (seen.length != snapshots.size())
            {
                seen = new long[snapshots.size()];
            }
            long total = 0;
            for (int p = 0; p < snapshots.size(); p++)
            {
                final PartitionSnapshot snapshot = snapshots.get(p);
                if (snapshot.checkpoints != seen[p])
                {
                    seen[p] = snapshot.checkpoints;
                    intervalMax = Math.max(intervalMax, snapshot.lastCheckpointPauseNanos);
                    if (count == all.length)
                    {
                        all = Arrays.copyOf(all, count * 2);
                        parts = Arrays.copyOf(parts, count * 2);
                    }
                    final long[] byPart = new long[PAUSE_PARTS.length];
                    for (int i = 0; i < byPart.length; i++)
                    {
                        byPart[i] = snapshot.lastCheckpointPauseNanos(PAUSE_PARTS[i]);
                    }
                    parts[count] = byPart;
                    all[count++] = snapshot.lastCheckpointPauseNanos;
                }
                total += snapshot.checkpoints;
            }
            checkpoints = total;
        }

        /** @return every pause seen, ns. */
        long[] all()
        {
            return Arrays.copyOf(all, count);
        }

        /** @return every pause seen in parts, ns by {@link CheckpointPausePart} ordinal, in the order of {@link #all()}. */
        long[][] allParts()
        {
            return Arrays.copyOf(parts, count);
        }

        long takeIntervalMax()
        {
            final long max = intervalMax;
            intervalMax = 0;
            return max;
        }
    }

    /** @return this process's resident set from /proc (Linux), or -1 where there is none. */
    static long residentSetBytes()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII))
            {
                if (line.startsWith("VmRSS:"))
                {
                    final String[] parts = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            return -1;
        }
        return -1;
    }

    private static void header(final PrintStream out)
    {
        out.printf(Locale.ROOT, "%9s %12s %10s %10s %10s %10s %11s %11s %10s %6s %6s %9s%n",
            "elapsed", "events/s", "p50 us", "p99 us", "p99.9 us", "max us", "live rows", "state MiB", "RSS MiB", "GCs", "ckpts", "pause ms");
    }

    private static void print(final PrintStream out, final Sample s)
    {
        out.printf(Locale.ROOT, "%8.0fs %,12.0f %10.1f %10.1f %10.1f %10.1f %,11d %11.1f %10.1f %6d %6d %9.1f%n",
            s.elapsedSeconds, s.eventsPerSecond, s.p50Nanos / 1e3, s.p99Nanos / 1e3, s.p999Nanos / 1e3, s.maxNanos / 1e3,
            s.liveRows, s.stateBytes / 1048576.0, s.rssBytes / 1048576.0, s.gcCount, s.checkpoints, s.checkpointPauseNanos / 1e6);
        out.flush();
    }
}
