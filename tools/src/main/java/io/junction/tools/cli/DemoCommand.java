package io.junction.tools.cli;

import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.demo.ShowClickDemo;
import io.junction.tools.workload.Workloads;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code junction demo}: the W1 show-click interval left join, throughput at full speed then latency at
 * a fixed rate beside the hand-off floor ({@link ShowClickDemo}).
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
        "Runs the W1 show-click join (WORKLOADS.md) through the engine.",
        "Impressions (left) are joined with clicks (right) on key,",
        "right.ts in [left.ts - 30000, left.ts + 30000], LEFT join.",
        "Phase 1: every event at maximum rate: throughput, state size and the count check.",
        "Phase 2: W1 at a fixed offered rate (half of phase 1): ingest-to-emit latency, coordinated",
        "omission corrected, beside the bare Disruptor hand-off floor at the same rate.",
        "Writes latency.hlog, floor.hlog and the plot latency.svg to the output folder."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
        "0:the count check passed",
        "1:the count check failed, partitions reported errors or the files could not be written"})
public final class DemoCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--impressions", paramLabel = "N", description = "W1 impressions (default: ${DEFAULT-VALUE})")
    private int impressions = Workloads.W1_N_DEFAULT;

    @Option(names = "--partitions", paramLabel = "N", description = "engine partitions (default: ${DEFAULT-VALUE})")
    private int partitions = EngineConfig.defaultPartitions();

    @Option(names = "--wait-strategy", paramLabel = "KIND", converter = WaitStrategyConverter.class,
        description = "blocking, sleeping, yielding or busy-spin (default: sleeping)")
    private WaitStrategyKind waitStrategy = EngineConfig.WAIT_STRATEGY_DEFAULT;

    @Option(names = "--join", paramLabel = "KIND",
        description = "interval (the W1 join) or regular (the same data as a regular left join); default: ${DEFAULT-VALUE}")
    private ShowClickDemo.JoinMode join = ShowClickDemo.JoinMode.INTERVAL;

    @Option(names = "--out", paramLabel = "DIR",
        description = "folder for the .hlog files and the plot (default: out/demo-<yyyyMMdd-HHmmss> in the current directory)")
    private Path out;

    @Option(names = "--latency-seconds", paramLabel = "S",
        description = "about how long the fixed-rate phase runs, and its floor as long again (default: ${DEFAULT-VALUE})")
    private double latencySeconds = ShowClickDemo.LATENCY_SECONDS_DEFAULT;

    @Option(names = "--rate", paramLabel = "N", description = "offered events/s of the latency phase (default: half of phase 1's rate)")
    private long rate;

    @Override
    public Integer call()
    {
        final ShowClickDemo demo;
        try
        {
            EngineConfig.defaults().withPartitions(partitions); // validates the count with the engine's own message
            demo = new ShowClickDemo(impressions, partitions, waitStrategy, join, out, latencySeconds, rate);
        }
        catch (final IllegalArgumentException e)
        {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        return demo.run(spec.commandLine().getOut()).ok() ? 0 : 1;
    }
}
