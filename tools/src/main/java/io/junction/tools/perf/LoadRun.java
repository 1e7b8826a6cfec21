package io.junction.tools.perf;

import io.junction.tools.JunctionCli;
import io.junction.tools.cli.CliError;
import io.junction.metrics.HotKey;
import io.junction.metrics.PartitionSnapshot;

import io.junction.api.ChangeKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.internal.metrics.LatencyRecorder;
import io.junction.internal.metrics.PartitionMetrics;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

import java.io.FileNotFoundException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import io.junction.internal.durable.DirectoryLock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * Drives a pre-generated workload through a {@link JoinEngine} and measures it: open loop at a fixed
 * offered rate (each event has an intended send time; latency is measured from it, so a stalled
 * producer cannot hide queueing: coordinated omission corrected) or at the maximum rate (latency from
 * the actual send time). A warm-up prefix of the events is excluded from the latency histogram.
 * Ingest-to-emit latency is recorded per result by the partition threads.
 */
public final class LoadRun
{
    /** What to run. Mutable holder filled by the commands. */
    public static final class Options
    {
        public Workload workload = Workload.W1;
        public JoinType type = JoinType.LEFT;
        public int partitions = 1;
        public WaitStrategyKind waitStrategy = EngineConfig.WAIT_STRATEGY_DEFAULT;
        /** Offered events/s; 0 = as fast as the engine takes them. */
        public long rate;
        public long warmupEvents;
        public int ringSize = EngineConfig.RING_SIZE_DEFAULT;
        /** Where a live progress line goes every second, or null. */
        public PrintStream progress;
        /** Where interval histograms go, or null. */
        public HistogramLogWriter hlog;
        public String label;
        /** The join to run; null = the workload's ({@link WorkloadJoin#spec}). */
        public JoinSpec spec;
        /** Whether the workload's join declares f1 as both sides' unique key (when {@link #spec} is null). */
        public boolean uniqueKey;
        /** Key index capacity per partition; 0 = what the workload needs ({@link #maxKeysPerPartition}). */
        public long maxKeysPerPartition;
        /** Arena bytes per partition taken before timing starts; 0 = the workload's ({@link #preallocatePerPartition}). */
        public long preallocatePerPartition;
        /** Durable mode: the state root (a former one is emptied first), or null for state in memory. */
        public Path stateRoot;
        /** Durable mode: seconds between the publisher's checkpoints (0 = none). */
        public long checkpointSeconds;

        public String label()
        {
            if (label != null)
            {
                return label;
            }
            return "junction " + workload.displayName() + " " + type.name().toLowerCase(Locale.ROOT) + (uniqueKey ? " uk" : "") + " p=" + partitions +
                " " + waitStrategy.name().toLowerCase(Locale.ROOT).replace('_', '-') +
                (rate > 0 ? " @" + rate + "/s" : " max-rate");
        }
    }

    private LoadRun()
    {
    }

    /** @return the key capacity per partition that a workload needs, with headroom for uneven hashing. */
    static long maxKeysPerPartition(final Workload workload, final int partitions)
    {
        final long live;
        switch (workload)
        {
            case W1:
                live = 100_000;
                break;
            case W1_BIG:
                live = 10_000_000;
                break;
            case W8:
            case W8_FLAT:
                // about 35 s of shows live, 4.5 ads each, every ad its own key
                live = 400_000;
                break;
            case W2:
                live = Long.getLong("w2.keys", 200_000);
                break;
            case W4:
                // at most one key per id of either side
                live = Math.min(Workloads.W4_M_DEFAULT, 2L * Long.getLong(Workloads.W4_N_PROP_NAME, Workloads.W4_N_DEFAULT));
                break;
            default:
                live = 50_000;
        }
        return Math.max(1024, live * 5 / 4 / partitions + 1024);
    }

    /**
     * @return arena bytes per partition taken and touched before timing starts (like a JVM heap's
     *         {@code -Xms} with pre-touch), so a growing state does not pay page faults on the clock;
     *         {@code -Djunction.state.preallocate} overrides it.
     */
    static long preallocatePerPartition(final Workload workload, final int partitions, final long tapeRows)
    {
        final String configured = System.getProperty(StateConfig.PREALLOCATE_PROP_NAME);
        if (configured != null)
        {
            return Long.parseLong(configured);
        }
        final long bytes;
        switch (workload)
        {
            case W1:
                bytes = 32L << 20;
                break;
            case W1_BIG:
                bytes = 1536L << 20;
                break;
            case W2:
                bytes = Long.getLong("w2.n", 1_000_000) * 2 * 200 + (16L << 20);
                break;
            case W4:
                // room for every version, as if no retracted record's space were reused
                bytes = tapeRows * 200 + (16L << 20);
                break;
            default:
                bytes = 64L << 20;
        }
        return bytes / partitions;
    }

    /**
     * Runs the tape through a new engine, writing its interval histograms to an HdrHistogram log when
     * {@code hlogPath} is not null; closes the engine and the log before returning.
     */
    public static LoadResult run(final EventTape tape, final Options options, final Path hlogPath) throws FileNotFoundException
    {
        if (hlogPath == null)
        {
            return run(tape, options);
        }
        final HistogramLogWriter writer = new HistogramLogWriter(hlogPath.toFile());
        try
        {
            writer.outputLogFormatVersion();
            final long now = System.currentTimeMillis();
            writer.outputStartTime(now);
            writer.setBaseTime(now);
            writer.outputComment("[" + options.label() + "]");
            writer.outputLegend();
            options.hlog = writer;
            return run(tape, options);
        }
        finally
        {
            options.hlog = null;
            writer.close();
        }
    }

    /** Runs the tape through a new engine; closes it before returning. */
    public static LoadResult run(final EventTape tape, final Options options)
    {
        final int partitions = options.partitions;
        final long[] outputs = new long[partitions];
        final long[] padded = new long[partitions];
        EngineConfig config = EngineConfig.defaults()
            .withPartitions(partitions)
            .withWaitStrategy(options.waitStrategy)
            .withRingSize(options.ringSize)
            .withReadAhead(Boolean.parseBoolean(System.getProperty(EngineConfig.READ_AHEAD_PROP_NAME, String.valueOf(EngineConfig.READ_AHEAD_DEFAULT))))
            .withRecordLatency(Boolean.parseBoolean(System.getProperty(EngineConfig.RECORD_LATENCY_PROP_NAME, "true")))
            .withWatermarkSlice(Integer.getInteger(EngineConfig.WATERMARK_SLICE_PROP_NAME, EngineConfig.WATERMARK_SLICE_DEFAULT))
            .withState(StateConfig.fromSystemProperties()
                .withMaxKeys(options.maxKeysPerPartition > 0 ? options.maxKeysPerPartition : maxKeysPerPartition(options.workload, partitions))
                .withPreallocate(options.preallocatePerPartition > 0 ? options.preallocatePerPartition
                    : preallocatePerPartition(options.workload, partitions, tape.rows())));
        if (options.stateRoot != null)
        {
            emptyDirectory(options.stateRoot);
            config = config.withStateRoot(options.stateRoot);
            if (options.checkpointSeconds > 0)
            {
                config = config.withCheckpointInterval(0, Duration.ofSeconds(options.checkpointSeconds));
            }
        }
        final SoakRun.CheckpointPauses pauses = new SoakRun.CheckpointPauses();
        final JoinEngine engine = JoinEngine.builder(options.spec != null ? options.spec : WorkloadJoin.spec(options.workload, options.type, options.uniqueKey))
            .config(config)
            .resultHandlers(p -> (kind, left, right, ts, step) ->
            {
                outputs[p]++;
                if (left == null || right == null)
                {
                    padded[p]++;
                }
            })
            .start();
        final Histogram total = new Histogram(LatencyRecorder.HIGHEST_TRACKABLE_NANOS, 3);
        // Of total's values, those of results watermark work emitted (sampled at the warm-up's end and the end of input).
        final Histogram byWatermarks = new Histogram(LatencyRecorder.HIGHEST_TRACKABLE_NANOS, 3);
        // Rows are encoded before the clock starts, as WORKLOADS.md asks of every peer: the timed loop
        // only hands bytes to the publisher.
        final EncodedRows rows = EncodedRows.encode(tape, options.workload);
        final Publisher publisher = engine.publisher();
        final int n = tape.size();
        final long warmup = Math.min(options.warmupEvents, n);
        final double period = options.rate > 0 ? 1e9 / options.rate : 0;
        final long[] gcBefore = gcCountAndMillis();
        final long start = System.nanoTime();
        long lastProgress = start;
        long lastProgressEvents = 0;
        long published = 0;
        long broadcasts = 0;
        final Footprint footprint = new Footprint();
        boolean endOfInputPublished = false;
        try
        {
            for (int i = 0; i < n; i++)
            {
                final long ingest;
                if (period > 0)
                {
                    final long intended = start + (long)(i * period);
                    while (System.nanoTime() < intended)
                    {
                        Thread.onSpinWait();
                    }
                    ingest = intended;
                }
                else
                {
                    ingest = System.nanoTime();
                }
                final byte type = publishEvent(publisher, tape, rows, i, 0, i, ingest);
                switch (type)
                {
                    case EventTape.TYPE_LEFT:
                    case EventTape.TYPE_RIGHT:
                        published++;
                        break;
                    case EventTape.TYPE_WATERMARK:
                        broadcasts++;
                        break;
                    default:
                        // The end of input closes every row still live at once (W1: ~35k padded rows in
                        // one burst). Its latency is reported on its own so that it neither hides in nor
                        // dominates the steady state: wait until everything before it is processed.
                        // A row expanded before the join (W8) is as many ring events as the rows it made.
                        awaitProcessed(engine, published - engine.expansions().inputs() + engine.expansions().rows()
                            + broadcasts * partitions);
                        footprint.sample(engine);
                        if (i >= warmup)
                        {
                            total.add(sample(engine, lastProgress, System.nanoTime(), options.hlog));
                            byWatermarks.add(engine.sampleWatermarkLatency());
                        }
                        publisher.endOfInput(i);
                        endOfInputPublished = true;
                }
                if (i + 1 == warmup)
                {
                    engine.sampleLatency();
                    engine.sampleWatermarkLatency();
                    lastProgress = System.nanoTime();
                    lastProgressEvents = i + 1;
                }
                if ((i & 0x3FFF) == 0)
                {
                    footprint.sample(engine);
                }
                if (options.stateRoot != null && (i & 0x3FF) == 0)
                {
                    pauses.sample(engine);
                }
                if ((i & 0x3FFF) == 0 && options.progress != null)
                {
                    final long now = System.nanoTime();
                    if (now - lastProgress >= 1_000_000_000L)
                    {
                        final Histogram interval = sample(engine, lastProgress, now, options.hlog);
                        if (i >= warmup)
                        {
                            total.add(interval);
                        }
                        progress(options.progress, engine, i + 1, n, (i + 1 - lastProgressEvents) / ((now - lastProgress) / 1e9),
                            interval, i < warmup);
                        lastProgress = now;
                        lastProgressEvents = i + 1;
                    }
                }
            }
        }
        finally
        {
            engine.close();
        }
        final long end = System.nanoTime();
        final long[] gcAfter = gcCountAndMillis();
        pauses.sample(engine);
        final Histogram last = sample(engine, lastProgress, end, null);
        final Histogram flush;
        if (endOfInputPublished)
        {
            flush = last;
        }
        else
        {
            total.add(last);
            byWatermarks.add(engine.sampleWatermarkLatency());
            flush = new Histogram(LatencyRecorder.HIGHEST_TRACKABLE_NANOS, 3);
        }
        long outputSum = 0;
        long paddedSum = 0;
        for (int p = 0; p < partitions; p++)
        {
            outputSum += outputs[p];
            paddedSum += padded[p];
        }
        long live = 0;
        long bytes = 0;
        long late = 0;
        long bad = 0;
        long sideWaits = 0;
        for (final PartitionSnapshot snapshot : engine.metrics())
        {
            sideWaits += snapshot.checkpointSideWaits;
            live += snapshot.liveLeft + snapshot.liveRight;
            bytes += snapshot.stateBytes;
            late += snapshot.lateRows;
            bad += snapshot.badInputs;
        }
        // Throughput over the whole run (end of input and drain included): after the warm-up a fixed-rate
        // producer that fell behind catches up faster than the offered rate, which would flatter it.
        final List<List<HotKey>> hotKeys = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++)
        {
            hotKeys.add(engine.hotKeys(p));
        }
        return new LoadResult(options.label(), options.rate, n, n, (end - start) / 1e9, outputSum,
            paddedSum, total, flush, live, bytes, late, bad, gcAfter[0] - gcBefore[0], gcAfter[1] - gcBefore[1],
            footprint.peakLiveRows, footprint.peakLiveStateBytes, hotKeys, pauses.all(), pauses.allParts(), sideWaits)
            .withWatermarkLatency(byWatermarks);
    }

    /**
     * The live rows' footprint where they peaked among the samples (every 16,384 events and just before the
     * end of input): the engine's own {@code liveStateBytes / liveRows}, what a row of state costs.
     */
    private static final class Footprint
    {
        long peakLiveRows;
        long peakLiveStateBytes;

        void sample(final JoinEngine engine)
        {
            long live = 0;
            long bytes = 0;
            for (final PartitionSnapshot snapshot : engine.metrics())
            {
                live += snapshot.liveLeft + snapshot.liveRight;
                bytes += snapshot.liveStateBytes;
            }
            if (live > peakLiveRows)
            {
                peakLiveRows = live;
                peakLiveStateBytes = bytes;
            }
        }
    }

    /**
     * Publishes event {@code i} of the tape, a row or a watermark, its time shifted by {@code tsShift}; the
     * end of input is left to the caller (each driver treats it its own way).
     *
     * @return the event's type ({@link EventTape#TYPE_LEFT}, ...)
     */
    static byte publishEvent(
        final Publisher publisher, final EventTape tape, final EncodedRows rows, final int i, final long tsShift,
        final long step, final long ingestNanos)
    {
        final byte type = tape.type(i);
        if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT)
        {
            // W4's -U/+U keep their kind; the tape's kinds are ChangeKind's ordinals
            publisher.publish(type == EventTape.TYPE_LEFT ? Side.LEFT : Side.RIGHT, ChangeKind.fromOrdinal(tape.kind(i)),
                rows.buffer(i), rows.offset(i), rows.length(i), tape.ts(i) + tsShift, step, ingestNanos);
        }
        else if (type == EventTape.TYPE_WATERMARK)
        {
            publisher.watermark(tape.ts(i) + tsShift, step);
        }
        return type;
    }

    /**
     * Empties a directory for a durable run: one that does not exist or is empty, or a former state root
     * (it holds the engine's {@code ENGINE} file) that no engine or tool holds (its {@code LOCK}). Anything
     * else is refused, so a mistyped path never loses a user's files and a live engine never loses its state.
     *
     * @throws CliError exit status 4 (the state refused, docs/CLI.md), naming the directory or its LOCK file
     */
    static void emptyDirectory(final Path dir)
    {
        try
        {
            if (!Files.exists(dir))
            {
                return;
            }
            try (Stream<Path> entries = Files.list(dir))
            {
                if (entries.findAny().isEmpty())
                {
                    return;
                }
            }
            if (!Files.exists(dir.resolve("ENGINE")))
            {
                throw new CliError(JunctionCli.EXIT_STATE, "--state " + dir + " is neither empty nor a Junction state root: not emptied");
            }
            // A root a running engine holds is never emptied under it: the engine's own lock is taken first
            // (refused, naming the LOCK file, while another engine or tool holds it), and its file goes last.
            final DirectoryLock lock;
            try
            {
                lock = DirectoryLock.acquire(dir, "the state root");
            }
            catch (final IOException e)
            {
                throw new CliError(JunctionCli.EXIT_STATE, e.getMessage() + " (not emptied)");
            }
            try (lock; Stream<Path> walk = Files.walk(dir))
            {
                final List<Path> paths = new ArrayList<>(walk.toList());
                Collections.reverse(paths);
                final Path lockFile = dir.resolve(DirectoryLock.FILE_NAME);
                for (final Path path : paths)
                {
                    if (!path.equals(dir) && !path.equals(lockFile))
                    {
                        Files.delete(path);
                    }
                }
                Files.deleteIfExists(lockFile);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot empty " + dir, e);
        }
    }

    /** @return collections and milliseconds spent in them so far, over every collector of this JVM. */
    private static long[] gcCountAndMillis()
    {
        long count = 0;
        long millis = 0;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
        {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {count, millis};
    }

    /** Waits until the partitions have processed {@code expected} events in total. */
    private static void awaitProcessed(final JoinEngine engine, final long expected)
    {
        while (true)
        {
            long processed = 0;
            for (final PartitionSnapshot snapshot : engine.metrics())
            {
                processed += snapshot.events;
            }
            if (processed >= expected)
            {
                return;
            }
            LockSupport.parkNanos(50_000);
        }
    }

    private static Histogram sample(final JoinEngine engine, final long fromNanos, final long toNanos, final HistogramLogWriter hlog)
    {
        final Histogram interval = engine.sampleLatency();
        final long nowMillis = System.currentTimeMillis();
        interval.setStartTimeStamp(nowMillis - (toNanos - fromNanos) / 1_000_000);
        interval.setEndTimeStamp(nowMillis);
        if (hlog != null)
        {
            hlog.outputIntervalHistogram(interval);
        }
        return interval;
    }

    private static void progress(
        final PrintStream out, final JoinEngine engine, final long done, final long total, final double rate,
        final Histogram interval, final boolean warmingUp)
    {
        long live = 0;
        long bytes = 0;
        long ring = 0;
        for (final PartitionSnapshot snapshot : engine.metrics())
        {
            live += snapshot.liveLeft + snapshot.liveRight;
            bytes += snapshot.stateBytes;
            ring += snapshot.ringOccupancy;
        }
        out.printf(Locale.ROOT, "%s %5.1f%%  %,12.0f ev/s  p99 %,10.1f us  p99.9 %,10.1f us  live rows %,11d  state %,8.1f MiB  ring %,d%n",
            warmingUp ? "warm-up" : "measure", 100.0 * done / total, rate,
            interval.getValueAtPercentile(99) / 1e3, interval.getValueAtPercentile(99.9) / 1e3, live, bytes / 1048576.0, ring);
    }
}
