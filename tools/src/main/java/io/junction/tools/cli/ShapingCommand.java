package io.junction.tools.cli;

import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.perf.ShapingFigures;
import io.junction.tools.perf.ShapingJoin;
import io.junction.tools.workload.Checksum;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code junction shaping}: the changelog-shaping work's figures (docs/PERFORMANCE.md "Changelog shaping"): W1's events as
 * W1-seed's regular left join (WORKLOADS.md W1-seed) with the retraction changelog, a padded-row
 * delay of 60 s, upsert output, both, and the interval left join; or W2's left join with the retraction
 * changelog and upsert output. Interleaved rounds in one JVM, medians, ratios to the retraction changelog,
 * output lines and bytes per input row; exits 1 when a count is not the counting model's.
 */
@Command(name = "shaping", mixinStandardHelpOptions = true,
    description = "Changelog shaping figures (SEMANTICS 4.5-4.7): W1-seed (W1's shows and clicks as a regular left join) as retraction, " +
        "padded-delay (60 s), upsert, padded-upsert and interval; or W2 left as retraction and upsert. Prints events/s (median of " +
        "interleaved rounds), the ratio to retraction, output lines and binary / JSON bytes per input row; checks the counts.")
public final class ShapingCommand implements Callable<Integer>
{
    @Option(names = "--workload", defaultValue = "W1", description = "W1 (run as W1-seed) or W2 (default ${DEFAULT-VALUE}).")
    String workload;

    @Option(names = "--configs", split = ",", description = "Configurations, comma-separated: retraction, padded-delay, upsert, " +
        "padded-upsert, interval (default: all for W1, retraction,upsert for W2).")
    String[] configs;

    @Option(names = "--events", defaultValue = "0", description = "Use only the first N events of the workload (0 = all).")
    int events;

    @Option(names = "--shows", defaultValue = "0", description = "W1: generate W1's rule at N shows (impressions) instead of 2,000,000, " +
        "as the peers' -Dw1.n does (0 = W1's size).")
    int shows;

    @Option(names = "--runs", defaultValue = "5", description = "Timed rounds (default ${DEFAULT-VALUE}); the median is reported.")
    int runs;

    @Option(names = "--warmup-rounds", defaultValue = "1", description = "Untimed rounds first (default ${DEFAULT-VALUE}).")
    int warmupRounds;

    @Option(names = "--direct", description = "Drive each join operator on this thread, no rings or partition threads (as loadgen --direct).")
    boolean direct;

    @Option(names = "--partitions", defaultValue = "1", description = "Partitions of the runtime runs (default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--wait-strategy", defaultValue = "sleeping", converter = WaitStrategyConverter.class,
        description = "blocking, sleeping, yielding or busy-spin (default ${DEFAULT-VALUE}).")
    WaitStrategyKind waitStrategy;

    @Option(names = "--state-ttl", defaultValue = "0", description = "W1-seed's regular joins: stateTtl in ms (default ${DEFAULT-VALUE}: none, " +
        "every show stays in state, so a click of any age joins).")
    long stateTtl;

    @Override
    public Integer call()
    {
        final Workload w;
        try
        {
            w = Workload.parse(workload);
        }
        catch (final IllegalArgumentException e)
        {
            System.err.println("junction shaping: " + e.getMessage());
            return 2;
        }
        final ShapingFigures.Options options = new ShapingFigures.Options();
        options.workload = w;
        try
        {
            if (configs == null)
            {
                for (final ShapingJoin.Config c : ShapingJoin.Config.values())
                {
                    if (ShapingJoin.supports(w, c))
                    {
                        options.configs.add(c);
                    }
                }
            }
            else
            {
                for (final String name : configs)
                {
                    options.configs.add(ShapingJoin.Config.parse(name));
                }
            }
            for (final ShapingJoin.Config c : options.configs)
            {
                ShapingJoin.spec(w, c, stateTtl);
            }
        }
        catch (final IllegalArgumentException e)
        {
            System.err.println("junction shaping: " + e.getMessage());
            return 2;
        }
        if (runs < 1 || warmupRounds < 0 || partitions < 1 || (direct && partitions != 1))
        {
            System.err.println("junction shaping: --runs >= 1, --warmup-rounds >= 0, --partitions >= 1 (1 with --direct)");
            return 2;
        }
        options.runs = runs;
        options.warmupRounds = warmupRounds;
        options.direct = direct;
        options.partitions = partitions;
        options.waitStrategy = waitStrategy == null ? EngineConfig.WAIT_STRATEGY_DEFAULT : waitStrategy;
        options.stateTtl = stateTtl;
        System.err.printf(Locale.ROOT, "generating %s ...%n", w.displayName());
        if (shows < 0 || (shows > 0 && w != Workload.W1))
        {
            System.err.println("junction shaping: --shows N (N >= 1) is for W1");
            return 2;
        }
        EventTape tape;
        if (shows > 0)
        {
            tape = new EventTape();
            Workloads.w1(shows, tape);
        }
        else
        {
            tape = EventTape.of(w);
        }
        if (events > 0 && events < tape.size())
        {
            final EventTape prefix = new EventTape(events);
            tape.replay(prefix, 0, events);
            prefix.end();
            tape = prefix;
        }
        final Checksum checksum = new Checksum();
        tape.replay(checksum);
        System.out.printf(Locale.ROOT, "%s: %,d events (%,d left / %,d right), checksum %s%n",
            ShapingJoin.workloadName(w), checksum.events(), checksum.left(), checksum.right(), checksum.hex());
        return ShapingFigures.run(tape, options, System.out);
    }
}
