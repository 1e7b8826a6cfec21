package io.junction.tools.cli;

import io.junction.api.JoinType;
import io.junction.tools.perf.WorkloadJoin;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options every load command shares: which WORKLOADS.md workload, which join type, whether the
 * sides declare their unique key, and optionally only a prefix of its events; and the pre-generated
 * tape they describe.
 */
public final class WorkloadOptions
{
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    @Option(names = "--workload", defaultValue = "W1", description = "W1, W1-big, W2, W3, W4, W5 or W6 (default ${DEFAULT-VALUE}).")
    String workload;

    @Option(names = "--type", defaultValue = "left", description = "Join type: inner, left, right, full, semi or anti (default ${DEFAULT-VALUE}).")
    String type;

    @Option(names = "--events", defaultValue = "0", description = "Use only the first N events of the workload (0 = all).")
    int events;

    @Option(names = "--unique-key", negatable = true,
        description = "Declare f1 (the row's id) as both sides' unique key (regular joins: W2, W3, W4; default: on for W4, off otherwise).")
    Boolean uniqueKey;

    /** @return the workload named. */
    Workload workload()
    {
        try
        {
            return Workload.parse(workload);
        }
        catch (final IllegalArgumentException e)
        {
            throw new ParameterException(command.commandLine(), e.getMessage());
        }
    }

    /** @return the join type named. */
    JoinType joinType()
    {
        final JoinType joinType = JoinType.fromName(type);
        if (joinType == null)
        {
            throw new ParameterException(command.commandLine(),
                "unknown --type " + type + ": expected inner, left, right, full, semi or anti");
        }
        return joinType;
    }

    /** @return whether the join declares f1 as both sides' unique key: --unique-key, by default only for W4. */
    boolean uniqueKey()
    {
        final Workload w = workload();
        if (uniqueKey == null)
        {
            return w == Workload.W4;
        }
        if (uniqueKey && !WorkloadJoin.isRegular(w))
        {
            throw new ParameterException(command.commandLine(),
                "--unique-key is for the regular joins (W2, W3, W4); " + w.displayName() + (w == Workload.W5 ? " is a temporal join" : w == Workload.W6 ? " is an ASOF join" : " is an interval join"));
        }
        return uniqueKey;
    }

    /** @return the workload's events, generated before anything is timed (a prefix when --events is set). */
    EventTape tape()
    {
        final EventTape tape = EventTape.of(workload());
        if (events <= 0 || events >= tape.size())
        {
            return tape;
        }
        final EventTape prefix = new EventTape(events);
        tape.replay(prefix, 0, events);
        prefix.end();
        return prefix;
    }
}
