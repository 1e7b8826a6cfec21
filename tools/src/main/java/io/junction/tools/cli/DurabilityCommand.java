package io.junction.tools.cli;

import io.junction.api.JoinType;
import io.junction.tools.perf.DurabilityFigures;
import io.junction.tools.workload.Workload;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.File;
import java.util.concurrent.Callable;

/** {@code junction durability}: checkpoint size and time, clean reopen and restore times on a workload's state. */
@Command(name = "durability", mixinStandardHelpOptions = true,
    description = "Publish a workload into a durable engine up to a cut, then measure a full and an incremental checkpoint, " +
        "a clean close and reopen, and a restore from the checkpoint.")
public final class DurabilityCommand implements Callable<Integer>
{
    @Option(names = "--workload", defaultValue = "W1-big", description = "W1 or W1-big (default ${DEFAULT-VALUE}).")
    String workload;

    @Option(names = "--type", defaultValue = "left", description = "Join type (default ${DEFAULT-VALUE}).")
    String type;

    @Option(names = "--partitions", defaultValue = "1", description = "Partitions (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--cut", defaultValue = "0", description = "Events before the first checkpoint (default: half the workload).")
    int cut;

    @Option(names = "--take-over-only", description = "Only the take-over figure: 2 partitions with the default key index " +
        "taken over from a shared checkpoint root (seconds, not the workload's whole state).")
    boolean takeOverOnly;

    @Option(names = "--state", required = true, description = "State root: empty, or a former state root (emptied first).")
    File state;

    @Override
    public Integer call() throws Exception
    {
        final Workload w;
        try
        {
            w = Workload.parse(workload);
        }
        catch (final IllegalArgumentException e)
        {
            System.err.println(e.getMessage());
            return 2;
        }
        final JoinType t = JoinType.fromName(type);
        if ( (w != Workload.W1 && w != Workload.W1_BIG) || t == null || partitions <= 0 || cut < 0)
        {
            System.err.println("--workload W1 or W1-big, a join type, --partitions > 0, --cut >= 0");
            return 2;
        }
        if (takeOverOnly)
        {
            DurabilityFigures.takeOver(w, t, state.toPath(), System.out);
            return 0;
        }
        DurabilityFigures.run(w, t, partitions, cut, state.toPath(), System.out);
        return 0;
    }
}
