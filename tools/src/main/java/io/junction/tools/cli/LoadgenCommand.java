package io.junction.tools.cli;

import io.junction.api.AsofSpec;
import io.junction.api.JoinType;
import io.junction.json.RowJson;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.perf.DirectRun;
import io.junction.tools.perf.HandOffFloor;
import io.junction.tools.perf.HotKeyReport;
import io.junction.tools.perf.LatencyReport;
import io.junction.tools.perf.LoadResult;
import io.junction.tools.perf.LoadRun;
import io.junction.tools.perf.PauseParts;
import io.junction.tools.perf.WorkloadJoin;
import io.junction.tools.workload.Checksum;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import io.junction.tools.perf.ShapingJoin;
import java.util.Arrays;

/**
 * {@code junction loadgen}: drives a WORKLOADS.md workload through the engine, open loop at a fixed
 * rate (latency from each event's intended send time: coordinated omission corrected) or at max
 * rate, and reports throughput and ingest-to-emit percentiles next to a bare Disruptor hand-off
 * floor measured in the same run, optionally as an {@code .hlog} interval log and an SVG plot.
 * For inner and left joins it checks the output row count against the workload's (counted from
 * the events before the run, {@link WorkloadJoin#expectedOutputRows}) and exits with 1 on a mismatch.
 */
@Command(name = "loadgen", mixinStandardHelpOptions = true,
    description = "Drive a workload (W1, W1-big, W2, W3, W4, W5, W6, W8, W8-flat) through the engine and report throughput and latency percentiles; " +
        "check the output row count (inner, left) against the workload's.")
public final class LoadgenCommand implements Callable<Integer>
{
    @Mixin
    WorkloadOptions load;

    @Option(names = "--rate", defaultValue = "0", description = "Offered events/s; 0 = max rate (default ${DEFAULT-VALUE}).")
    long rate;

    @Option(names = "--partitions", defaultValue = "1", description = "Partitions (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--wait-strategy", defaultValue = "sleeping", converter = WaitStrategyConverter.class,
        description = "blocking, sleeping, yielding or busy-spin (default ${DEFAULT-VALUE}).")
    WaitStrategyKind waitStrategy;

    @Option(names = "--warmup", defaultValue = "-1", description = "Events excluded from the latency histogram (default: a quarter of the workload, so the JIT has settled).")
    long warmup;

    @Option(names = "--ring-size", defaultValue = "" + EngineConfig.RING_SIZE_DEFAULT, description = "Slots per ring (default ${DEFAULT-VALUE}).")
    int ringSize;

    @Option(names = "--floor", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Also measure the bare hand-off floor at the same rate (default ${DEFAULT-VALUE}).")
    boolean floor;

    @Option(names = "--hlog", description = "Write interval histograms (HdrHistogram log format) to this file.")
    File hlog;

    @Option(names = "--hgrm", description = "Write the latency's percentile distribution (HdrHistogram's .hgrm text, "
        + "microseconds; the floor's too, as a second block) to this file.")
    File hgrm;

    @Option(names = "--json", description = "Write the run's result as JSON to this file: events, events/s, output rows, "
        + "late and bad rows, state, GC, and the latency's count and percentiles in microseconds (the floor's too).")
    File json;

    @Option(names = "--svg", description = "Write the percentile-distribution plot to this file.")
    File svg;

    @Option(names = "--quiet", description = "No progress line.")
    boolean quiet;

    @Option(names = "--direct", description = "Drive the join operator on this thread, without rings or partition threads " +
        "(one untimed pass, then one timed): the join's own per-core cost, as the peers profile drives Flink's operators. Max rate only.")
    boolean direct;

    @Option(names = "--state", description = "Durable mode: keep the state in files under this directory (empty, or a former state root, " +
        "which is emptied first); default: in memory.")
    File state;

    @Option(names = "--checkpoint-seconds", defaultValue = "0", description = "Durable mode: a checkpoint every S seconds, " +
        "taken by the publisher; each one's partition-thread pause is reported (default ${DEFAULT-VALUE}: none).")
    long checkpointSeconds;

    @Option(names = "--hot-keys", description = "At the end, print each partition's hot keys (by rows visited by probes and by live rows; " +
        "the sketch's size is the system property junction.metrics.hotKeys, default 16, 0 = off).")
    boolean hotKeys;

    @Option(names = "--asof-emit", defaultValue = "final",
        description = "W6 (an ASOF join): the emission mode, final or eager (default ${DEFAULT-VALUE}).")
    String asofEmit;

    @Option(names = "--shaping", paramLabel = "CONFIG", description = "Changelog shaping (SEMANTICS 4.5-4.7): W1 as W1-seed, W1-seed's regular left join " +
        "(retraction, padded-delay, upsert, padded-upsert or interval), or W2 left (retraction or upsert); the count is checked against " +
        "its counting model (junction shaping runs them all interleaved).")
    String shaping;

    @Option(names = "--state-ttl", defaultValue = "0", description = "With --shaping on W1: the regular joins' stateTtl, ms (default ${DEFAULT-VALUE}: none).")
    long stateTtl;

    @Override
    public Integer call() throws Exception
    {
        final String nonsense = nonsenseNumber();
        if (nonsense != null)
        {
            System.err.println("junction loadgen: " + nonsense);
            return 2;
        }
        final Workload w = load.workload();
        final JoinType joinType = load.joinType();
        final boolean uniqueKey = load.uniqueKey();
        final AsofSpec.Emit emit = AsofSpec.Emit.fromName(asofEmit);
        if (emit == null)
        {
            System.err.println("unknown --asof-emit " + asofEmit + ": expected final or eager");
            return 2;
        }
        ShapingJoin.Config shapingConfig = null;
        if (shaping != null)
        {
            try
            {
                shapingConfig = ShapingJoin.Config.parse(shaping);
                if (joinType != JoinType.LEFT || load.uniqueKey != null)
                {
                    throw new IllegalArgumentException("--shaping runs its own left join: leave out --type and --unique-key");
                }
                ShapingJoin.spec(w, shapingConfig, stateTtl);
            }
            catch (final IllegalArgumentException e)
            {
                System.err.println(e.getMessage());
                return 2;
            }
        }
        System.err.printf(Locale.ROOT, "generating %s ...%n", w.displayName());
        final EventTape tape = load.tape();
        final Checksum checksum = new Checksum();
        tape.replay(checksum);
        System.err.printf(Locale.ROOT, "%s: %,d events (%,d left / %,d right), checksum %s%n",
            w.displayName(), checksum.events(), checksum.left(), checksum.right(), checksum.hex());

        long expectedRows = w == Workload.W6 ? WorkloadJoin.w6ExpectedOutputRows(joinType, emit, tape)
            : WorkloadJoin.expectedOutputRows(w, joinType, tape);
        if (shapingConfig != null)
        {
            expectedRows = ShapingJoin.expectedLines(w, shapingConfig, tape, stateTtl).lines;
        }

        final LoadRun.Options options = new LoadRun.Options();
        options.workload = w;
        options.type = joinType;
        options.uniqueKey = uniqueKey;
        if (w == Workload.W6)
        {
            options.spec = WorkloadJoin.w6Spec(joinType, emit);
            options.label = "junction W6 " + joinType.name().toLowerCase(Locale.ROOT) + " " + emit.jsonName() +
                (direct ? " direct" : " p=" + partitions + " " + waitStrategy.name().toLowerCase(Locale.ROOT).replace('_', '-') +
                    (rate > 0 ? " @" + rate + "/s" : " max-rate"));
        }
        options.rate = rate;
        options.partitions = partitions;
        options.waitStrategy = waitStrategy;
        options.ringSize = ringSize;
        options.warmupEvents = warmup >= 0 ? warmup : tape.size() / 4;
        options.progress = quiet ? null : System.err;
        if (shapingConfig != null)
        {
            options.spec = ShapingJoin.spec(w, shapingConfig, stateTtl);
            options.label = "junction " + ShapingJoin.workloadName(w) + " " + shapingConfig + (direct ? " direct" : " p=" + partitions);
            options.maxKeysPerPartition = ShapingJoin.maxKeysPerPartition(w, shapingConfig, tape, direct ? 1 : partitions);
            options.preallocatePerPartition = ShapingJoin.preallocatePerPartition(w, shapingConfig, tape, direct ? 1 : partitions);
        }
        if (checkpointSeconds < 0 || (checkpointSeconds > 0 && state == null))
        {
            System.err.println("--checkpoint-seconds needs --state and a value >= 0");
            return 2;
        }
        options.stateRoot = state == null ? null : state.toPath();
        options.checkpointSeconds = checkpointSeconds;
        if (direct && state != null)
        {
            System.err.println("--direct runs the operator in memory: leave out --state");
            return 2;
        }
        if (direct)
        {
            if (rate > 0 || partitions != 1)
            {
                System.err.println("--direct runs one operator at max rate: leave out --rate and --partitions");
                return 2;
            }
            final LoadResult direct = DirectRun.run(tape, options);
            printSummary(direct, 0);
            writeResultFiles(direct, null, expectedRows);
            printHotKeys(direct);
            return checkOutputRows(direct, expectedRows);
        }
        final LoadResult result = run(tape, options, hlog == null ? null : hlog.toPath());
        final List<LatencyReport.Series> series = new ArrayList<>();
        series.add(new LatencyReport.Series(result.label, result.latency, result.achievedRate()));
        if (result.watermarkLatency().getTotalCount() > 0)
        {
            // Where the tail comes from: the results emitted at their own row's arrival, and those watermark work
            // emitted (a watermark, idleness, or a later slice of a watermark's work closed their rows).
            series.add(new LatencyReport.Series("  of which at their own row", result.ownEventLatency(), 0));
            series.add(new LatencyReport.Series("  of which by watermark work", result.watermarkLatency(), 0));
        }
        LatencyReport.Series floorSeries = null;
        if (floor)
        {
            final Histogram floorHistogram = HandOffFloor.run(tape.size(), rate, options.warmupEvents, ringSize, waitStrategy);
            floorSeries = new LatencyReport.Series("floor: bare hand-off " + waitStrategy.name().toLowerCase(Locale.ROOT) +
                (rate > 0 ? " @" + rate + "/s" : " max-rate"), floorHistogram, 0);
        }
        printSummary(result, options.warmupEvents);
        System.out.print(LatencyReport.table(series, floorSeries));
        if (result.endOfInputLatency.getTotalCount() > 0)
        {
            System.out.printf(Locale.ROOT, "end of input: %,d results released at once, latency p50 %.1f us, max %.1f us (not in the table)%n",
                result.endOfInputLatency.getTotalCount(), result.endOfInputLatency.getValueAtPercentile(50) / 1e3,
                result.endOfInputLatency.getMaxValue() / 1e3);
        }
        if (svg != null)
        {
            final List<LatencyReport.Series> plotted = new ArrayList<>(series);
            if (floorSeries != null)
            {
                plotted.add(floorSeries);
            }
            LatencyReport.writeSvg(svg.toPath(), plotted, "Junction ingest-to-emit latency, " + w.displayName() + " " + load.type);
            System.out.println("plot: " + svg);
        }
        writeResultFiles(result, floorSeries, expectedRows);
        printHotKeys(result);
        return checkOutputRows(result, expectedRows);
    }

    /**
     * @return the first numeric option that makes no sense (a negative rate, no partitions, ...), named with its
     *     value, or null; checked before the workload is generated, so a typo costs nothing
     */
    private String nonsenseNumber()
    {
        if (rate < 0)
        {
            return "--rate must be >= 0 (0: max rate), not " + rate;
        }
        if (partitions < 1)
        {
            return "--partitions must be >= 1, not " + partitions;
        }
        if (load.events < 0)
        {
            return "--events must be >= 0 (0: the whole workload), not " + load.events;
        }
        if (warmup < -1)
        {
            return "--warmup must be >= 0 events, not " + warmup;
        }
        if (ringSize < 2 || Integer.bitCount(ringSize) != 1)
        {
            return "--ring-size must be a power of two >= 2, not " + ringSize;
        }
        if (stateTtl < 0)
        {
            return "--state-ttl must be >= 0 ms (0: none), not " + stateTtl;
        }
        return null;
    }

    /** {@code --hgrm} and {@code --json}, when given. */
    private void writeResultFiles(final LoadResult result, final LatencyReport.Series floorSeries, final long expectedRows)
        throws IOException
    {
        final LatencyReport.Series series = new LatencyReport.Series(result.label, result.latency, result.achievedRate());
        if (hgrm != null)
        {
            final List<LatencyReport.Series> all = new ArrayList<>();
            all.add(series);
            if (floorSeries != null)
            {
                all.add(floorSeries);
            }
            ReportCommand.writeHgrm(hgrm, all);
            System.out.println("percentile distribution: " + hgrm);
        }
        if (json != null)
        {
            Files.writeString(json.toPath(), json(result, series, floorSeries, expectedRows, load.workload().displayName(),
                load.type), StandardCharsets.UTF_8);
            System.out.println("json: " + json);
        }
    }

    /**
     * @return the run as one JSON object: {@code {"workload":..,"type":..,"label":..,"events":N,"measuredEvents":M,
     *     "seconds":S,"eventsPerSecond":R,"offeredRate":O,"outputRows":..,"expectedOutputRows":..|null,"paddedRows":..,
     *     "lateRows":..,"badInputs":..,"liveRows":..,"stateBytes":..,"gcCount":..,"gcMillis":..,"unit":"us",
     *     "latency":{series},"floor":{series}|null}} (series as {@link ReportCommand#appendSeries})
     */
    static String json(final LoadResult r, final LatencyReport.Series series, final LatencyReport.Series floorSeries,
        final long expectedRows, final String workload, final String type)
    {
        final StringBuilder sb = new StringBuilder(512).append("{\"workload\":");
        RowJson.appendString(sb, workload).append(",\"type\":");
        RowJson.appendString(sb, type).append(",\"label\":");
        RowJson.appendString(sb, r.label);
        sb.append(",\"events\":").append(r.events)
            .append(",\"measuredEvents\":").append(r.measuredEvents)
            .append(",\"seconds\":").append(String.format(Locale.ROOT, "%.3f", r.measuredSeconds))
            .append(",\"eventsPerSecond\":").append(String.format(Locale.ROOT, "%.0f", r.achievedRate()))
            .append(",\"offeredRate\":").append(r.offeredRate)
            .append(",\"outputRows\":").append(r.outputs)
            .append(",\"expectedOutputRows\":").append(expectedRows >= 0 ? Long.toString(expectedRows) : "null")
            .append(",\"paddedRows\":").append(r.padded)
            .append(",\"lateRows\":").append(r.lateRows)
            .append(",\"badInputs\":").append(r.badInputs)
            .append(",\"liveRows\":").append(r.liveRows)
            .append(",\"stateBytes\":").append(r.stateBytes)
            .append(",\"gcCount\":").append(r.gcCount)
            .append(",\"gcMillis\":").append(r.gcMillis)
            .append(",\"unit\":\"us\",\"latency\":");
        ReportCommand.appendSeries(sb, series).append(",\"floor\":");
        if (floorSeries == null)
        {
            sb.append("null");
        }
        else
        {
            ReportCommand.appendSeries(sb, floorSeries);
        }
        return sb.append("}\n").toString();
    }

    private void printHotKeys(final LoadResult result)
    {
        if (hotKeys)
        {
            System.out.print(HotKeyReport.format(result.hotKeys, HotKeyReport.TOP));
        }
    }

    /** @return 0 when the run emitted the workload's expected output rows (or none are known), else 1. */
    private static int checkOutputRows(final LoadResult result, final long expectedRows)
    {
        if (expectedRows >= 0)
        {
            final boolean ok = result.outputs == expectedRows;
            System.out.printf(Locale.ROOT, "output rows %,d, expected %,d: %s%n", result.outputs, expectedRows, ok ? "OK" : "MISMATCH");
            return ok ? 0 : 1;
        }
        return 0;
    }

    static LoadResult run(final EventTape tape, final LoadRun.Options options, final Path hlogPath) throws FileNotFoundException
    {
        return LoadRun.run(tape, options, hlogPath);
    }

    static void printSummary(final LoadResult r, final long warmupEvents)
    {
        System.out.printf(Locale.ROOT, "%s: %,d events in %.2f s (latency measured after %,d warm-up events): %,.0f events/s; %,d output rows (%,d padded); " +
                "live rows at end %,d, state %.1f MiB; late %d, bad %d; GC during the run: %d collections, %d ms; " +
                "state per live row %.1f B (at the sampled peak of %,d live rows)%n",
            r.label, r.events, r.measuredSeconds, warmupEvents, r.achievedRate(), r.outputs, r.padded, r.liveRows,
            r.stateBytes / 1048576.0, r.lateRows, r.badInputs, r.gcCount, r.gcMillis, r.bytesPerLiveRow(), r.peakLiveRows);
        if (r.checkpointPauseNanos.length > 0)
        {
            final long[] pauses = r.checkpointPauseNanos.clone();
            Arrays.sort(pauses);
            System.out.printf(Locale.ROOT, "checkpoints: %d partition pauses, p50 %.1f ms, max %.1f ms; %d writes waited for the writer's capture%n",
                pauses.length, pauses[pauses.length / 2] / 1e6, pauses[pauses.length - 1] / 1e6, r.checkpointSideWaits);
            int longest = 0;
            for (int i = 1; i < r.checkpointPauseNanos.length; i++)
            {
                longest = r.checkpointPauseNanos[i] > r.checkpointPauseNanos[longest] ? i : longest;
            }
            System.out.printf(Locale.ROOT, "checkpoint pause parts, median of each: %s%n",
                PauseParts.describe(PauseParts.medians(r.checkpointPauseParts)));
            if (longest < r.checkpointPauseParts.length)
            {
                System.out.printf(Locale.ROOT, "checkpoint pause parts, the longest (%.1f ms): %s%n",
                    r.checkpointPauseNanos[longest] / 1e6, PauseParts.describe(r.checkpointPauseParts[longest]));
            }
        }
    }
}
