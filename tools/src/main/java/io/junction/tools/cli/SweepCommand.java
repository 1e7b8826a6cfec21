package io.junction.tools.cli;

import io.junction.api.JoinType;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.perf.HandOffFloor;
import io.junction.tools.perf.LatencyReport;
import io.junction.tools.perf.LoadResult;
import io.junction.tools.perf.LoadRun;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code junction sweep}: offered-rate steps × partition counts × wait strategies on one workload,
 * each next to the bare hand-off floor at the same rate and wait strategy, printing achieved rate
 * and p99/p99.9 per step and the saturation point (the highest offered rate still achieved within
 * 5% and with p99.9 under the budget).
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
    description = "Sweep offered rates, partition counts and wait strategies; print achieved rate, p99, p99.9 and the saturation point.")
public final class SweepCommand implements Callable<Integer>
{
    @Mixin
    WorkloadOptions load;

    @Option(names = "--rates", split = ",", defaultValue = "100000,200000,400000,800000",
        description = "Offered events/s, comma-separated (default ${DEFAULT-VALUE}).")
    List<Long> rates;

    @Option(names = "--partitions", split = ",", defaultValue = "1", description = "Partition counts, comma-separated (default ${DEFAULT-VALUE}).")
    List<Integer> partitions;

    @Option(names = "--wait-strategies", split = ",", defaultValue = "sleeping", converter = WaitStrategyConverter.class,
        description = "Wait strategies, comma-separated (default ${DEFAULT-VALUE}).")
    List<WaitStrategyKind> waitStrategies;

    @Option(names = "--p999-budget-us", defaultValue = "10000", description = "p99.9 above this counts as saturated (default ${DEFAULT-VALUE} us).")
    double budgetMicros;

    @Option(names = "--svg", description = "Write the percentile plot of every step to this file.")
    File svg;

    @Override
    public Integer call() throws Exception
    {
        for (final long rate : rates)
        {
            if (rate <= 0)
            {
                System.err.println("junction sweep: --rates are offered events/s, each > 0, not " + rate);
                return 2;
            }
        }
        for (final int p : partitions)
        {
            if (p < 1)
            {
                System.err.println("junction sweep: --partitions must each be >= 1, not " + p);
                return 2;
            }
        }
        if (load.events < 0)
        {
            System.err.println("junction sweep: --events must be >= 0 (0: the whole workload), not " + load.events);
            return 2;
        }
        final Workload w = load.workload();
        final JoinType joinType = load.joinType();
        final boolean uniqueKey = load.uniqueKey();
        final EventTape tape = load.tape();
        final List<LatencyReport.Series> plotted = new ArrayList<>();
        System.out.printf(Locale.ROOT, "%-10s %-10s %12s %14s %12s %12s %12s %12s %10s%n",
            "wait", "partitions", "offered/s", "achieved/s", "p99 us", "p99.9 us", "floor p99", "floor p99.9", "saturated");
        for (final WaitStrategyKind wait : waitStrategies)
        {
            for (final int p : partitions)
            {
                long saturation = -1;
                for (final long rate : rates)
                {
                    final LoadRun.Options options = new LoadRun.Options();
                    options.workload = w;
                    options.type = joinType;
                    options.uniqueKey = uniqueKey;
                    options.partitions = p;
                    options.waitStrategy = wait;
                    options.rate = rate;
                    options.warmupEvents = tape.size() / 10;
                    final LoadResult result = LoadRun.run(tape, options);
                    final Histogram floor = HandOffFloor.run(tape.size(), rate, options.warmupEvents, options.ringSize, wait);
                    final double p99 = result.latency.getValueAtPercentile(99) / 1e3;
                    final double p999 = result.latency.getValueAtPercentile(99.9) / 1e3;
                    final boolean saturated = result.achievedRate() < 0.95 * rate || p999 > budgetMicros;
                    if (!saturated)
                    {
                        saturation = rate;
                    }
                    System.out.printf(Locale.ROOT, "%-10s %-10d %,12d %,14.0f %,12.1f %,12.1f %,12.1f %,12.1f %10s%n",
                        wait.name().toLowerCase(Locale.ROOT), p, rate, result.achievedRate(), p99, p999,
                        floor.getValueAtPercentile(99) / 1e3, floor.getValueAtPercentile(99.9) / 1e3, saturated ? "yes" : "no");
                    plotted.add(new LatencyReport.Series(result.label, result.latency, result.achievedRate()));
                }
                System.out.printf(Locale.ROOT, "saturation point (%s, %d partitions): %s%n", wait.name().toLowerCase(Locale.ROOT), p,
                    saturation < 0 ? "below the lowest offered rate" : String.format(Locale.ROOT, "%,d events/s offered", saturation));
            }
        }
        if (svg != null)
        {
            LatencyReport.writeSvg(svg.toPath(), plotted, "Junction sweep, " + w.displayName() + " " + load.type);
            System.out.println("plot: " + svg);
        }
        return 0;
    }
}
