package io.junction.tools.cli;

import io.junction.tools.workload.W7;
import io.junction.tools.workload.W7Bench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code junction multibench}: W7 (docs/WORKLOADS.md) through one multi-way join and through the chain of three
 * binary regular joins it equals, on the calling thread; prints events/s, output lines per input event and
 * state bytes per live input row of each, and their ratios (medians of the runs).
 */
@Command(name = "multibench", mixinStandardHelpOptions = true,
    description = {"W7 (orders, payments, shipments, refunds) through the multi-way join and the chain of three binary " +
        "regular joins: events/s, output lines per input event, state bytes per live input row (medians of --runs)."})
public final class MultiBenchCommand implements Callable<Integer>
{
    @Option(names = "--orders", defaultValue = "20000", paramLabel = "N",
        description = "W7 order ids (default ${DEFAULT-VALUE}, the WORKLOADS.md size)")
    int orders;

    @Option(names = "--runs", defaultValue = "3", paramLabel = "N", description = "runs of each path (default ${DEFAULT-VALUE})")
    int runs;

    @Override
    public Integer call()
    {
        if (orders < 1 || runs < 1)
        {
            System.err.println("junction multibench: --orders and --runs must be >= 1");
            return 2;
        }
        final W7.Checksum checksum = new W7.Checksum();
        W7.generate(orders, checksum);
        System.out.println("W7: " + checksum.events() + " changes, checksum " + checksum.hex());
        for (final String line : W7Bench.run(orders, runs))
        {
            System.out.println(line);
        }
        return 0;
    }
}
