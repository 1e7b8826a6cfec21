package io.junction.tools.cli;

import io.junction.api.JoinType;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.perf.SoakRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code junction soak}: W1's interval join at a fixed rate for a long time (an hour by default), one
 * report line per interval, to show that latency, live rows, state bytes, RSS and collections stay flat.
 * Not part of CI: run it by hand.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
    description = "Run W1's interval join endlessly (its tape in laps shifted in event time) at a fixed rate and print, " +
        "every interval, events/s, latency percentiles, live rows, state bytes, RSS, collections and (durable) checkpoint pauses.")
public final class SoakCommand implements Callable<Integer>
{
    @Option(names = "--type", defaultValue = "left", description = "Join type (default ${DEFAULT-VALUE}).")
    String type;

    @Option(names = "--rate", defaultValue = "100000", description = "Offered events/s (default ${DEFAULT-VALUE}).")
    long rate;

    @Option(names = "--duration", defaultValue = "3600", description = "Seconds to run (default ${DEFAULT-VALUE}).")
    long durationSeconds;

    @Option(names = "--report-every", defaultValue = "60", description = "Seconds between report lines (default ${DEFAULT-VALUE}).")
    long reportSeconds;

    @Option(names = "--partitions", defaultValue = "1", description = "Partitions (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--wait-strategy", defaultValue = "sleeping", converter = WaitStrategyConverter.class,
        description = "blocking, sleeping, yielding or busy-spin (default ${DEFAULT-VALUE}).")
    WaitStrategyKind waitStrategy;

    @Option(names = "--lap-impressions", defaultValue = "0", description = "W1 impressions per lap, with their clicks (0 = W1's 2 million).")
    int lapImpressions;

    @Option(names = "--state", description = "Durable mode: keep the state in files under this directory (empty, or a former " +
        "state root, which is emptied first); default: in memory.")
    File state;

    @Option(names = "--checkpoint-seconds", defaultValue = "0", description = "Durable mode: a checkpoint every S seconds (default ${DEFAULT-VALUE}: none).")
    long checkpointSeconds;

    @Option(names = "--csv", description = "Also write the report lines to this CSV file.")
    File csv;

    @Option(names = "--svg", description = "Also plot the report lines to this SVG file.")
    File svg;

    @Override
    public Integer call() throws Exception
    {
        final JoinType joinType = JoinType.fromName(type);
        if (joinType == null)
        {
            System.err.println("unknown join type: " + type);
            return 2;
        }
        if (rate <= 0 || durationSeconds <= 0 || reportSeconds <= 0 || partitions <= 0 || lapImpressions < 0)
        {
            System.err.println("--rate, --duration, --report-every and --partitions must be > 0, --lap-impressions >= 0");
            return 2;
        }
        if (checkpointSeconds < 0 || (checkpointSeconds > 0 && state == null))
        {
            System.err.println("--checkpoint-seconds needs --state and a value >= 0");
            return 2;
        }
        final SoakRun.Options options = new SoakRun.Options();
        options.stateRoot = state == null ? null : state.toPath();
        options.checkpointSeconds = checkpointSeconds;
        options.type = joinType;
        options.rate = rate;
        options.durationSeconds = durationSeconds;
        options.reportSeconds = reportSeconds;
        options.partitions = partitions;
        options.waitStrategy = waitStrategy;
        options.lapImpressions = lapImpressions;
        options.csv = csv == null ? null : csv.toPath();
        options.svg = svg == null ? null : svg.toPath();
        final List<SoakRun.Sample> samples = SoakRun.run(options);
        if (samples.size() >= 2)
        {
            final SoakRun.Sample first = samples.get(0);
            final SoakRun.Sample last = samples.get(samples.size() - 1);
            System.out.printf(Locale.ROOT, "first -> last interval: p99.9 %.1f -> %.1f us, live rows %,d -> %,d, RSS %.1f -> %.1f MiB, GCs %d -> %d%n",
                first.p999Nanos / 1e3, last.p999Nanos / 1e3, first.liveRows, last.liveRows,
                first.rssBytes / 1048576.0, last.rssBytes / 1048576.0, first.gcCount, last.gcCount);
        }
        return 0;
    }
}
