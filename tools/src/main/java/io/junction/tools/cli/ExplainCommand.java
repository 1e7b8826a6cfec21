package io.junction.tools.cli;

import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import io.junction.runtime.EngineConfig;
import io.junction.tools.JunctionCli;
import io.junction.tools.explain.Explainer;
import io.junction.tools.replay.Replay;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code junction explain SPEC EVENTS --step N [--with M]}: why the row of one log line did or did not match
 * ({@link Explainer}): a JSON line per row it was or could have been paired with, then its fate line, on stdout.
 * The reason codes are listed in docs/SEMANTICS.md ("Explaining a join").
 */
@Command(
    name = "explain",
    mixinStandardHelpOptions = true,
    description = {
        "Explains why the row of one event-log line did or did not match (docs/SEMANTICS.md, \"Explaining a join\").",
        "Runs the log as replay does, then prints one JSON line per row of another input it was or could have been "
            + "paired with (equal key, a key differing only in JSON type, or --with), each with a code and a detail, "
            + "then the row's fate line. A row of an expanded input (leftExpand, rightExpand, an input's expand) is "
            + "explained through the rows it made (\"made\" on each line); a standalone expand join's row pairs with "
            + "its own made rows."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
        "0:the row was explained",
        "1:a file could not be read",
        "2:an option or the join spec was rejected, or --step/--with names a line beyond the log, a watermark or "
            + "a line that is not a row",
        "3:the replay's partition threads reported errors; the explanation may be incomplete"})
public final class ExplainCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SPEC.join.json", description = "the join spec")
    private Path specFile;

    @Parameters(index = "1", paramLabel = "EVENTS.events.jsonl", description = "the event log")
    private Path eventsFile;

    @Option(names = "--step", required = true, paramLabel = "N", description = "the step (0-based non-blank line) of the row to explain")
    private long step;

    @Option(names = "--with", paramLabel = "M", description = "also explain the pair with the row of this step, whatever its key")
    private Long with;

    @Option(names = "--partitions", paramLabel = "P",
        description = "engine partitions, 1 to " + ReplayCommand.MAX_PARTITIONS + " (default: ${DEFAULT-VALUE}); the answer is the same for any")
    private int partitions = EngineConfig.defaultPartitions();

    @Override
    public Integer call()
    {
        final PrintWriter err = spec.commandLine().getErr();
        if (partitions < 1 || partitions > ReplayCommand.MAX_PARTITIONS)
        {
            throw new ParameterException(spec.commandLine(),
                "--partitions must be in [1, " + ReplayCommand.MAX_PARTITIONS + "], got " + partitions);
        }
        if (with != null && with < 0)
        {
            throw new ParameterException(spec.commandLine(), "--with must be a step >= 0, got " + with);
        }
        final JoinSpecJson.Parsed joinSpec;
        try
        {
            joinSpec = JoinSpecJson.read(specFile);
        }
        catch (final JoinSpecException e)
        {
            if (ReplayCommand.looksLikeEventLog(specFile))
            {
                throw new ParameterException(spec.commandLine(), specFile + " is an event log, not a join spec: " +
                    "give the spec first (junction explain SPEC.join.json EVENTS.events.jsonl --step N)");
            }
            return specError(err, e);
        }
        catch (final IOException e)
        {
            return ioError(err, "cannot read join spec " + specFile, e);
        }
        if (ReplayCommand.looksLikeJoinSpec(eventsFile))
        {
            throw new ParameterException(spec.commandLine(), eventsFile + " is a join spec, not an event log: " +
                "give the events second (junction explain SPEC.join.json EVENTS.events.jsonl --step N)");
        }
        final Explainer explainer = new Explainer(joinSpec, Replay.config(partitions));
        final List<String> lines;
        try
        {
            lines = explainer.explain(eventsFile, step, with == null ? -1 : with);
        }
        catch (final Explainer.ExplainArgumentException e)
        {
            err.println("junction explain: " + e.getMessage());
            err.flush();
            return ReplayCommand.EXIT_SPEC;
        }
        catch (final JoinSpecException e)
        {
            return specError(err, e);
        }
        catch (final UnsupportedOperationException e)
        {
            err.println("junction explain: cannot run join spec " + specFile + ": " + e.getMessage());
            err.flush();
            return ReplayCommand.EXIT_SPEC;
        }
        catch (final IllegalArgumentException e)
        {
            // the engine refused its configuration at start, as replay reports it
            err.println("junction explain: refused to start: " + e.getMessage());
            err.flush();
            return ReplayCommand.EXIT_SPEC;
        }
        catch (final IOException e)
        {
            return ioError(err, "cannot read event log " + eventsFile, e);
        }
        final PrintWriter out = spec.commandLine().getOut();
        for (final String line : lines)
        {
            out.println(line);
        }
        out.flush();
        if (explainer.partitionErrorCount() > 0)
        {
            err.println("junction explain: " + explainer.partitionErrorCount() +
                " error(s) in partition threads, the replay's output and so the explanation may be incomplete:");
            for (final String error : explainer.partitionErrors())
            {
                err.println("  " + error);
            }
            err.flush();
            return ReplayCommand.EXIT_ENGINE_ERRORS;
        }
        return ReplayCommand.EXIT_OK;
    }

    private int specError(final PrintWriter err, final JoinSpecException e)
    {
        err.println("junction explain: rejected join spec " + specFile + ": " + e.getMessage());
        err.flush();
        return ReplayCommand.EXIT_SPEC;
    }

    private static int ioError(final PrintWriter err, final String what, final IOException e)
    {
        err.println("junction explain: " + what + ": " + JunctionCli.describe(e));
        err.flush();
        return ReplayCommand.EXIT_IO;
    }
}
