package io.junction.tools.demo;

import io.junction.metrics.PartitionSnapshot;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.IndexKind;
import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.runtime.WaitStrategyKind;
import io.junction.json.RowJson;
import io.junction.tools.perf.HandOffFloor;
import io.junction.tools.perf.LatencyReport;
import io.junction.tools.perf.LoadResult;
import io.junction.tools.perf.LoadRun;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;

/**
 * The show-click demo: workload W1 (WORKLOADS.md) as an interval LEFT join of impressions (left) and
 * clicks (right) on {@code key} with {@code right.ts ∈ [left.ts - 30000, left.ts + 30000]}, run
 * through the real {@link JoinEngine} in two phases.
 * <ol>
 * <li>Throughput: every event at maximum rate. The events are generated into an {@link EventTape}
 * and their rows encoded before the clock starts (as every peer of WORKLOADS.md does), so the timed
 * section is exactly: publish every event, the end of input, and {@link JoinEngine#close()} (which
 * drains the partitions). It prints events/s, state size and the W1 count check "every impression
 * exactly once". Its latency is not shown: at maximum rate the rings are full, so it would be
 * queueing time, not the engine's.</li>
 * <li>Latency: a W1 run at a fixed offered rate (half of what phase 1 measured, unless given),
 * open loop with each event's intended send time as its ingest time (coordinated omission
 * corrected), through {@link LoadRun} as {@code junction loadgen} does, next to the bare Disruptor
 * hand-off floor ({@link HandOffFloor}) at the same rate, ring size and wait strategy. These are the
 * headline percentiles; the interval histograms ({@code .hlog}) and the percentile plot (SVG, with
 * the floor) are written to the output folder.</li>
 * </ol>
 * Start-up is measured too. The first engine of a JVM pays one-time costs (class loading, and the
 * Chronicle Map key index generating and compiling its classes), so a throwaway engine is started in
 * the background while the events are generated, and both costs are reported; the engine the demo
 * measures then starts as a service's second engine would.
 * <p>
 * {@link JoinMode#REGULAR} runs the same data as a regular (unbounded, changelog) left join. It is
 * useful on its own (the cost of unbounded state on the same events) and it exercises the demo's
 * machinery with the regular operator. Its count check is made on net counts: a {@code -D} of a
 * padded row cancels its {@code +I}.
 * <p>
 * Not thread safe: one run at a time.
 */
public final class ShowClickDemo
{
    /** The join to run the W1 data through. */
    public enum JoinMode
    {
        /** The W1 join: interval left join, append-only output. */
        INTERVAL,
        /** A regular left join on the same key: unbounded state, changelog output. */
        REGULAR
    }

    /** Default length of the fixed-rate latency phase, seconds (and as long again for the floor). */
    public static final double LATENCY_SECONDS_DEFAULT = 10;
    /** File names in the output folder. */
    public static final String HLOG = "latency.hlog";
    public static final String FLOOR_HLOG = "floor.hlog";
    public static final String SVG = "latency.svg";

    /** How many sample rows of each kind (matched, padded) to keep. */
    private static final int SAMPLES_PER_KIND = 2;
    /** Metrics are sampled for the peak-state figure every this many events (a power of two). */
    private static final int METRICS_EVERY = 1 << 16;

    private final int impressions;
    private final int partitions;
    private final WaitStrategyKind waitStrategy;
    private final JoinMode mode;
    private final Path outDir;
    private final double latencySeconds;
    private final long fixedRate;

    /**
     * @param impressions    number of W1 impressions (left rows); 2,000,000 is W1
     * @param partitions     engine partitions
     * @param waitStrategy   how idle partition threads wait
     * @param mode           which join to run
     * @param outDir         folder for the .hlog files and the plot; null = {@link #defaultOutDir()}
     * @param latencySeconds about how long the fixed-rate phase runs (its floor run as long again)
     * @param fixedRate      offered events/s of the latency phase; 0 = half of the measured maximum
     */
    public ShowClickDemo(final int impressions, final int partitions, final WaitStrategyKind waitStrategy, final JoinMode mode,
        final Path outDir, final double latencySeconds, final long fixedRate)
    {
        if (impressions < 1)
        {
            throw new IllegalArgumentException("impressions must be >= 1: " + impressions);
        }
        if (!(latencySeconds > 0))
        {
            throw new IllegalArgumentException("latency seconds must be > 0: " + latencySeconds);
        }
        if (fixedRate < 0)
        {
            throw new IllegalArgumentException("rate must be >= 0: " + fixedRate);
        }
        this.impressions = impressions;
        this.partitions = partitions;
        this.waitStrategy = waitStrategy;
        this.mode = mode;
        this.outDir = outDir != null ? outDir : defaultOutDir();
        this.latencySeconds = latencySeconds;
        this.fixedRate = fixedRate;
    }

    /** @return {@code out/demo-<yyyyMMdd-HHmmss>} under the current directory */
    public static Path defaultOutDir()
    {
        return Path.of("out", "demo-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
    }

    /** The outcome of a run. */
    public record Report(
        long events, long clicks, double seconds, long outputRows, long matched, long padded, long expectedImpressions,
        long liveLeft, long liveRight, long stateBytes, long peakLiveRows, long peakStateBytes,
        long errors, String firstError, List<String> samples, double engineStartSeconds,
        long offeredRate, LoadResult fixedRate, Histogram floor, Path outDir, String fileError)
    {

        /** @return true when every impression came out exactly once (net) and every click matched */
        public boolean countsOk()
        {
            return matched + padded == expectedImpressions && matched == clicks;
        }

        /** @return events/s of the max-rate phase */
        public double eventsPerSecond()
        {
            return events / seconds;
        }

        /** @return true when the counts check passed, no partition reported an error and the files were written */
        public boolean ok()
        {
            return countsOk() && errors == 0 && fileError == null;
        }
    }

    /** One-time costs of a JVM's first engine, measured on a throwaway engine in the background. */
    private final class WarmUp extends Thread
    {
        private final JoinSpec spec;
        private final IndexKind index;
        private volatile double engineSeconds;
        private volatile double indexSeconds;
        private volatile Throwable failure;

        WarmUp(final JoinSpec spec, final IndexKind index)
        {
            super("junction-demo-warm-up");
            setDaemon(true);
            this.spec = spec;
            this.index = index;
        }

        @Override
        public void run()
        {
            try
            {
                // the engine's own classes, Disruptor and HdrHistogram, with the key index that loads least
                engineSeconds = startAndClose(IndexKind.HASH);
                if (index != IndexKind.HASH)
                {
                    indexSeconds = startAndClose(index);
                }
            }
            catch (final RuntimeException | Error e)
            {
                failure = e;
            }
        }

        private double startAndClose(final IndexKind kind)
        {
            final EngineConfig tiny = EngineConfig.defaults().withPartitions(1).withRingSize(64)
                .withState(StateConfig.defaults().withMaxKeys(1024).withIndex(kind));
            final long t0 = System.nanoTime();
            final JoinEngine engine = JoinEngine.builder(spec).name("demo-warm-up-" + kind.name().toLowerCase(Locale.ROOT))
                .config(tiny).resultHandler((k, l, r, ts, step) -> { }).start();
            final double seconds = (System.nanoTime() - t0) / 1e9;
            engine.close();
            return seconds;
        }
    }

    /**
     * Generates, runs both phases and reports.
     *
     * @param out where progress and the report are printed
     * @return the report
     */
    public Report run(final PrintWriter out)
    {
        final long jvmUpMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        final Schema schema = EncodedRows.schema();
        final JoinSpec spec = spec(schema);
        final EngineConfig config = config();
        out.printf(Locale.ROOT, "junction demo: W1 show-click %s, %,d impressions%n", describe(spec), impressions);
        out.flush();

        final WarmUp warmUp = new WarmUp(spec, config.state().indexKind());
        warmUp.start();
        final long g0 = System.nanoTime();
        final EventTape tape = new EventTape();
        Workloads.w1(impressions, tape);
        final long g1 = System.nanoTime();
        final EncodedRows rows = EncodedRows.encode(tape);
        final long g2 = System.nanoTime();
        final long clicks = tape.rows() - impressions;
        out.printf(Locale.ROOT, "  prepared (not timed): %,d events generated in %.2f s, %,d rows encoded (%,d bytes each) in %.2f s%n",
            tape.size(), (g1 - g0) / 1e9, tape.rows(), rows.rowLength(), (g2 - g1) / 1e9);
        final long w0 = System.nanoTime();
        joinQuietly(warmUp);
        final double waited = (System.nanoTime() - w0) / 1e9;
        printWarmUp(out, warmUp, jvmUpMillis, waited);

        out.printf(Locale.ROOT, "  engine: %d partition(s), wait strategy %s, ring %d slots, state %s%n",
            config.partitions(), config.waitStrategy().name().toLowerCase(Locale.ROOT), config.ringSize(), config.state());
        out.flush();

        final Collector[] collectors = new Collector[config.partitions()];
        for (int p = 0; p < collectors.length; p++)
        {
            collectors[p] = new Collector(schema);
        }
        final AtomicLong errors = new AtomicLong();
        final AtomicReference<String> firstError = new AtomicReference<>();
        long peakLive = 0;
        long peakBytes = 0;
        final long t0;
        final long t1;
        final long s0 = System.nanoTime();
        final JoinEngine engine = JoinEngine.builder(spec)
            .name("demo-max-rate")
            .config(config)
            .resultHandlers(p -> collectors[p])
            .errorHandler(t ->
            {
                errors.incrementAndGet();
                firstError.compareAndSet(null, Thread.currentThread().getName() + ": " + t);
            })
            .start();
        final double engineStartSeconds = (System.nanoTime() - s0) / 1e9;
        out.printf(Locale.ROOT, "  engine ready in %.3f s (not timed)%n", engineStartSeconds);
        out.printf(Locale.ROOT, "phase 1, throughput: every event at maximum rate%n");
        out.flush();
        try
        {
            final Publisher publisher = engine.publisher();
            final int size = tape.size();
            final int rowLength = rows.rowLength();
            t0 = System.nanoTime();
            for (int i = 0; i < size; i++)
            {
                final byte type = tape.type(i);
                if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT)
                {
                    publisher.publish(type == EventTape.TYPE_LEFT ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT,
                        rows.buffer(i), rows.offset(i), rowLength, tape.ts(i), i, System.nanoTime());
                }
                else if (type == EventTape.TYPE_WATERMARK)
                {
                    publisher.watermark(tape.ts(i), i);
                }
                else
                {
                    publisher.endOfInput(i);
                }
                if ((i & (METRICS_EVERY - 1)) == 0)
                {
                    long live = 0;
                    long bytes = 0;
                    for (final PartitionSnapshot s : engine.metrics())
                    {
                        live += s.liveLeft + s.liveRight;
                        bytes += s.stateBytes;
                    }
                    peakLive = Math.max(peakLive, live);
                    peakBytes = Math.max(peakBytes, bytes);
                }
            }
        }
        finally
        {
            engine.close();
        }
        t1 = System.nanoTime();

        long liveLeft = 0;
        long liveRight = 0;
        long stateBytes = 0;
        for (final PartitionSnapshot s : engine.metrics())
        {
            liveLeft += s.liveLeft;
            liveRight += s.liveRight;
            stateBytes += s.stateBytes;
        }
        long outputRows = 0;
        long matched = 0;
        long padded = 0;
        final List<String> matchedSamples = new ArrayList<>();
        final List<String> paddedSamples = new ArrayList<>();
        for (final Collector c : collectors)
        {
            outputRows += c.rows;
            matched += c.matched;
            padded += c.padded;
            matchedSamples.addAll(c.matchedSamples);
            paddedSamples.addAll(c.paddedSamples);
        }
        final List<String> samples = new ArrayList<>();
        samples.addAll(matchedSamples.subList(0, Math.min(SAMPLES_PER_KIND, matchedSamples.size())));
        samples.addAll(paddedSamples.subList(0, Math.min(SAMPLES_PER_KIND, paddedSamples.size())));
        final double seconds = (t1 - t0) / 1e9;
        printThroughput(out, tape.rows(), clicks, seconds, outputRows, liveLeft, liveRight, stateBytes,
            Math.max(peakLive, liveLeft + liveRight), Math.max(peakBytes, stateBytes), matched, padded, errors.get(),
            firstError.get(), samples);

        final long rate = fixedRate > 0 ? fixedRate : halfOf(tape.rows() / seconds);
        final LatencyPhase latency = latencyPhase(out, spec, config, tape, rate);
        final Report report = new Report(tape.rows(), clicks, seconds, outputRows, matched, padded, impressions,
            liveLeft, liveRight, stateBytes, Math.max(peakLive, liveLeft + liveRight),
            Math.max(peakBytes, stateBytes), errors.get(), firstError.get(), samples, engineStartSeconds,
            rate, latency.result, latency.floor, outDir, latency.fileError);
        printSummary(out, report);
        return report;
    }

    /** @return half a measured rate, rounded down to a readable figure */
    static long halfOf(final double eventsPerSecond)
    {
        final long half = (long) (eventsPerSecond / 2);
        if (half >= 10_000)
        {
            return half / 1000 * 1000;
        }
        return Math.max(1, half);
    }

    private record LatencyPhase(LoadResult result, Histogram floor, String fileError)
    {
    }

    private LatencyPhase latencyPhase(final PrintWriter out, final JoinSpec spec, final EngineConfig config, final EventTape full,
        final long rate)
    {
        // about latencySeconds of W1 at the offered rate: the same generator, fewer impressions
        final double eventsPerImpression = (double) full.size() / impressions;
        final int n = (int) Math.max(1, Math.min(impressions, rate * latencySeconds / eventsPerImpression));
        final EventTape tape;
        if (n == impressions)
        {
            tape = full;
        }
        else
        {
            tape = new EventTape();
            Workloads.w1(n, tape);
        }
        final long warmup = tape.size() / 4;
        out.printf(Locale.ROOT, "phase 2, latency: %,d events offered at a fixed %,d events/s (%s), about %.0f s,%n" +
                "  then the bare Disruptor hand-off at the same rate, ring size and wait strategy (the floor)%n",
            tape.size(), rate, fixedRate > 0 ? "--rate" : "half of phase 1", tape.size() / (double) rate);
        out.flush();
        String fileError = null;
        try
        {
            Files.createDirectories(outDir);
        }
        catch (final IOException e)
        {
            fileError = "cannot create " + outDir + ": " + e;
        }
        final LoadRun.Options options = new LoadRun.Options();
        options.workload = Workload.W1;
        options.type = JoinType.LEFT;
        options.spec = spec;
        options.maxKeysPerPartition = config.state().maxKeys();
        options.partitions = config.partitions();
        options.waitStrategy = config.waitStrategy();
        options.ringSize = config.ringSize();
        options.rate = rate;
        options.warmupEvents = warmup;
        options.label = String.format(Locale.ROOT, "junction %s @ %,d ev/s", mode == JoinMode.INTERVAL ? "W1 interval left" : "W1 regular left", rate);
        LoadResult result;
        try
        {
            result = LoadRun.run(tape, options, fileError == null ? outDir.resolve(HLOG) : null);
        }
        catch (final IOException e)
        {
            fileError = "cannot write " + outDir.resolve(HLOG) + ": " + e;
            result = LoadRun.run(tape, options);
        }
        final Histogram floor;
        try
        {
            floor = HandOffFloor.run(tape.size(), rate, warmup, config.ringSize(), config.waitStrategy());
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while measuring the hand-off floor", e);
        }
        final String floorLabel = String.format(Locale.ROOT, "floor: bare Disruptor hand-off @ %,d ev/s", rate);
        if (fileError == null)
        {
            try
            {
                writeFloorLog(outDir.resolve(FLOOR_HLOG), floor, floorLabel);
                LatencyReport.writeSvg(outDir.resolve(SVG),
                    List.of(new LatencyReport.Series(result.label, result.latency, result.achievedRate()),
                        new LatencyReport.Series(floorLabel, floor, 0)),
                    "Junction ingest-to-emit latency, W1 show-click at a fixed " + String.format(Locale.ROOT, "%,d", rate) + " events/s");
            }
            catch (final IOException e)
            {
                fileError = "cannot write to " + outDir + ": " + e;
            }
        }
        printLatency(out, result, floor, warmup);
        return new LatencyPhase(result, floor, fileError);
    }

    private static void writeFloorLog(final Path file, final Histogram floor, final String label) throws IOException
    {
        final HistogramLogWriter writer = new HistogramLogWriter(file.toFile());
        try
        {
            writer.outputLogFormatVersion();
            final long now = System.currentTimeMillis();
            writer.outputStartTime(now);
            writer.setBaseTime(now);
            writer.outputComment("[" + label + "]");
            writer.outputLegend();
            floor.setStartTimeStamp(now);
            floor.setEndTimeStamp(now);
            writer.outputIntervalHistogram(floor);
        }
        finally
        {
            writer.close();
        }
    }

    private static void joinQuietly(final Thread thread)
    {
        try
        {
            thread.join();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while warming up", e);
        }
    }

    private JoinSpec spec(final Schema schema)
    {
        final JoinSpec.Builder builder = JoinSpec.builder(mode == JoinMode.INTERVAL ? JoinKind.INTERVAL : JoinKind.REGULAR, JoinType.LEFT)
            .schemas(schema, schema)
            .leftKey("key")
            .rightKey("key");
        if (mode == JoinMode.INTERVAL)
        {
            builder.interval(IntervalBounds.inclusive(-Workloads.W1_INTERVAL_MS, Workloads.W1_INTERVAL_MS));
        }
        return builder.build();
    }

    private EngineConfig config()
    {
        // the state from -Djunction.state.* (defaults otherwise), so the demo can show e.g. the hash index
        EngineConfig config = EngineConfig.defaults().withPartitions(partitions).withWaitStrategy(waitStrategy)
            .withState(StateConfig.fromSystemProperties());
        if (mode == JoinMode.REGULAR)
        {
            // unbounded state: every impression key stays; size the key index for the keys each partition gets
            final long perPartition = (long) (impressions * 1.25 / partitions) + 4096;
            config = config.withState(config.state().withMaxKeys(Math.max(StateConfig.MAX_KEYS_DEFAULT, perPartition)));
        }
        else
        {
            // W1 keeps ~35 s of rows live (~42k keys): a key index sized for 4x that starts in milliseconds
            config = config.withState(config.state().withMaxKeys(Math.max(4096, (1L << 18) / partitions)));
        }
        return config;
    }

    private static String describe(final JoinSpec spec)
    {
        if (spec.kind() == JoinKind.INTERVAL)
        {
            return "interval left join on key, right.ts in [left.ts - 30000, left.ts + 30000]";
        }
        return "regular left join on key (changelog output, unbounded state)";
    }

    private static void printWarmUp(final PrintWriter out, final WarmUp warmUp, final long jvmUpMillis, final double waited)
    {
        if (warmUp.failure != null)
        {
            out.printf(Locale.ROOT, "  warm-up engine failed (the measured engine pays the one-time costs instead): %s%n", warmUp.failure);
            return;
        }
        out.printf(Locale.ROOT, "  start-up: JVM up in %.2f s; in the background meanwhile, this JVM's first engine took %.2f s to start%n",
            jvmUpMillis / 1e3, warmUp.engineSeconds + warmUp.indexSeconds);
        out.printf(Locale.ROOT, "            (%.2f s loading the engine's classes", warmUp.engineSeconds);
        if (warmUp.indexSeconds > 0)
        {
            out.printf(Locale.ROOT, ", %.2f s Chronicle Map generating and compiling its key-index classes:%n" +
                "            once per JVM; -Djunction.state.index=hash skips it", warmUp.indexSeconds);
        }
        out.printf(Locale.ROOT, ")%s%n", waited >= 0.01 ? String.format(Locale.ROOT, "; waited %.2f s for it", waited) : "");
    }

    private void printThroughput(final PrintWriter out, final long events, final long clicks, final double seconds, final long outputRows,
        final long liveLeft, final long liveRight, final long stateBytes, final long peakLive, final long peakBytes,
        final long matched, final long padded, final long errors, final String firstError, final List<String> samples)
    {
        out.printf(Locale.ROOT, "  events:      %,d (%,d impressions + %,d clicks)%n", events, impressions, clicks);
        out.printf(Locale.ROOT, "  seconds:     %.3f (first publish to close(), end of input included)%n", seconds);
        out.printf(Locale.ROOT, "  events/s:    %,.0f%n", events / seconds);
        out.printf(Locale.ROOT, "  output rows: %,d%n", outputRows);
        out.printf(Locale.ROOT, "  live state at end: liveLeft %,d  liveRight %,d  stateBytes %,d  (peak sampled: %,d rows, %,d bytes)%n",
            liveLeft, liveRight, stateBytes, peakLive, peakBytes);
        final String net = mode == JoinMode.REGULAR ? "net " : "";
        final boolean ok = matched + padded == impressions && matched == clicks;
        out.printf(Locale.ROOT, "  every impression exactly once: %smatched %,d + %spadded %,d = %,d (%s)%n",
            net, matched, net, padded, matched + padded,
            ok ? "OK" : "FAIL: expected " + String.format(Locale.ROOT, "%,d", impressions) +
                " with matched = clicks = " + String.format(Locale.ROOT, "%,d", clicks));
        if (errors > 0)
        {
            out.printf(Locale.ROOT, "  ENGINE ERRORS: %,d, first: %s%n", errors, firstError);
        }
        out.println("  sample results:");
        for (final String sample : samples)
        {
            out.println("    " + sample);
        }
        out.println("  (latency at maximum rate is time spent queueing in full rings, so it is measured in phase 2)");
        out.flush();
    }

    private static void printLatency(final PrintWriter out, final LoadResult r, final Histogram floor, final long warmup)
    {
        out.printf(Locale.ROOT, "  %,d events in %.2f s: %,.0f events/s achieved; latency over the %,d results after %,d warm-up events;%n" +
                "  GC during the run: %d collections, %d ms%n",
            r.events, r.measuredSeconds, r.achievedRate(), r.latency.getTotalCount(), warmup, r.gcCount, r.gcMillis);
        out.printf(Locale.ROOT, "  %-46s %9s %9s %9s %9s %9s%n", "ingest-to-emit latency, us (CO corrected)", "p50", "p90", "p99", "p99.9", "max");
        latencyRow(out, "engine (publish to result handler)", r.latency);
        latencyRow(out, "floor (bare Disruptor hand-off)", floor);
        if (r.endOfInputLatency.getTotalCount() > 0)
        {
            out.printf(Locale.ROOT, "  (not in these figures: the end of input released %,d results at once, p50 %.1f us, max %.1f us)%n",
                r.endOfInputLatency.getTotalCount(), us(r.endOfInputLatency.getValueAtPercentile(50)), us(r.endOfInputLatency.getMaxValue()));
        }
        out.flush();
    }

    private static void latencyRow(final PrintWriter out, final String label, final Histogram h)
    {
        out.printf(Locale.ROOT, "  %-46s %9.1f %9.1f %9.1f %9.1f %9.1f%n", label, us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(90)),
            us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()));
    }

    private static void printSummary(final PrintWriter out, final Report r)
    {
        if (r.fileError() != null)
        {
            out.printf(Locale.ROOT, "  FILES NOT WRITTEN: %s%n", r.fileError());
        }
        else
        {
            out.printf(Locale.ROOT, "files in %s: %s (engine, HdrHistogram interval log), %s (floor), %s (percentile plot, open in a browser)%n",
                r.outDir(), HLOG, FLOOR_HLOG, SVG);
        }
        final Histogram h = r.fixedRate().latency;
        final Histogram f = r.floor();
        out.printf(Locale.ROOT, "summary: %,.0f events/s at max rate, counts %s; at a fixed %,d events/s p50 %s, p99 %s, p99.9 %s " +
                "(hand-off floor %s / %s / %s); engine ready in %.2f s%s%n",
            r.eventsPerSecond(), r.countsOk() ? "OK" : "FAIL", r.offeredRate(),
            duration(h.getValueAtPercentile(50)), duration(h.getValueAtPercentile(99)), duration(h.getValueAtPercentile(99.9)),
            duration(f.getValueAtPercentile(50)), duration(f.getValueAtPercentile(99)), duration(f.getValueAtPercentile(99.9)),
            r.engineStartSeconds(), r.fileError() == null ? "; plot " + r.outDir().resolve(SVG) : "");
        out.flush();
    }

    /** @return a latency in the unit that reads best: microseconds below a millisecond, else milliseconds */
    static String duration(final long nanos)
    {
        return nanos < 1_000_000 ? String.format(Locale.ROOT, "%.1f us", nanos / 1e3) : String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    private static double us(final long nanos)
    {
        return nanos / 1000.0;
    }

    /**
     * Counts one partition's results; keeps a few as JSON. Called by its partition thread only, read
     * after {@link JoinEngine#close()} returned (which waits for the thread).
     */
    private static final class Collector implements ResultHandler
    {
        private final Schema schema;
        private final List<String> matchedSamples = new ArrayList<>();
        private final List<String> paddedSamples = new ArrayList<>();
        private long rows;
        private long matched;
        private long padded;

        Collector(final Schema schema)
        {
            this.schema = schema;
        }

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp, final long step)
        {
            rows++;
            final int sign = kind.isAccumulate() ? 1 : -1;
            if (right == null)
            {
                padded += sign;
                if (paddedSamples.size() < SAMPLES_PER_KIND && sign > 0)
                {
                    paddedSamples.add(sample(kind, left, null, step));
                }
            }
            else
            {
                matched += sign;
                if (matchedSamples.size() < SAMPLES_PER_KIND && sign > 0)
                {
                    matchedSamples.add(sample(kind, left, right, step));
                }
            }
        }

        private String sample(final ChangeKind kind, final RowView left, final RowView right, final long step)
        {
            final StringBuilder sb = new StringBuilder(256);
            sb.append("{\"step\":").append(step).append(",\"op\":\"").append(kind.shortString()).append("\",\"left\":");
            if (left == null)
            {
                sb.append("null");
            }
            else
            {
                RowJson.appendJson(schema, left, sb);
            }
            sb.append(",\"right\":");
            if (right == null)
            {
                sb.append("null");
            }
            else
            {
                RowJson.appendJson(schema, right, sb);
            }
            return sb.append('}').toString();
        }
    }
}
