package io.junction.tools;

import io.junction.join.DurableStateException;
import io.junction.runtime.CheckpointException;
import io.junction.tools.cli.CliError;
import io.junction.tools.cli.CliLogFormat;
import io.junction.tools.cli.DemoCommand;
import io.junction.tools.cli.DurabilityCommand;
import io.junction.tools.cli.ExplainCommand;
import io.junction.tools.cli.InspectCommand;
import io.junction.tools.cli.KafkaCommand;
import io.junction.tools.cli.MultiBenchCommand;
import io.junction.tools.cli.LoadgenCommand;
import io.junction.tools.cli.NexmarkCommand;
import io.junction.tools.cli.ReplayCommand;
import io.junction.tools.cli.ReportCommand;
import io.junction.tools.cli.ShapingCommand;
import io.junction.tools.cli.SoakCommand;
import io.junction.tools.cli.SweepCommand;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code junction} command line ({@code tools/bin/junction}): {@code replay} runs a replay scenario (docs/SEMANTICS.md section 1)
 * through the engine, {@code demo} runs the W1 show-click join at full speed; {@code loadgen},
 * {@code sweep} and {@code report} are the latency harness, {@code nexmark} the Nexmark join
 * queries, {@code soak} a long fixed-rate run, {@code durability} the costs of durable state, {@code kafka} a
 * Kafka consumer-group member and its producer and bench, {@code multibench} the multi-way join's W7
 * figures, {@code shaping} the changelog-shaping figures (docs/PERFORMANCE.md). Errors are one line each: an option error
 * prints its message and "try --help", a failed command its message without exception names. The only place in the tools that calls {@link System#exit}, so that every command stays
 * usable in-process from tests via {@link #commandLine()}.
 */
@Command(
    name = "junction",
    mixinStandardHelpOptions = true,
    version = "junction 0.1.0-SNAPSHOT",
    description = "Junction, a low-latency stream-stream join engine: tools.",
    subcommands = {
        ReplayCommand.class, DemoCommand.class, LoadgenCommand.class, SweepCommand.class, ReportCommand.class,
        NexmarkCommand.class, SoakCommand.class, DurabilityCommand.class, KafkaCommand.class, MultiBenchCommand.class,
        ShapingCommand.class, ExplainCommand.class, InspectCommand.class, CommandLine.HelpCommand.class})
public final class JunctionCli implements Runnable
{
    /** Exit status of a durable state (--state) the engine refused: locked, of another layout, not writable. */
    public static final int EXIT_STATE = 4;
    /** Set to true to get the stack trace of a failed command. */
    public static final String DEBUG_PROP_NAME = "junction.debug";
    private static final String SLF4J_PROVIDER_PROP_NAME = "slf4j.provider";
    private static final String SLF4J_VERBOSITY_PROP_NAME = "slf4j.internal.verbosity";

    @Spec
    private CommandSpec spec;

    /** @return a configured command line, for {@link #main} and for tests */
    public static CommandLine commandLine()
    {
        return new CommandLine(new JunctionCli()).setCaseInsensitiveEnumValuesAllowed(true)
            .setParameterExceptionHandler(JunctionCli::optionError)
            .setExecutionExceptionHandler(JunctionCli::failure);
    }

    /**
     * An option error: the message and where help is, not the whole usage (which would bury the message).
     *
     * @return the command's exit status for invalid input (2)
     */
    static int optionError(final ParameterException e, final String[] args)
    {
        final CommandLine command = e.getCommandLine();
        final PrintWriter err = command.getErr();
        err.println(command.getCommandSpec().qualifiedName() + ": " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("try '" + command.getCommandSpec().qualifiedName() + " --help'");
        err.flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    /**
     * A command that failed: one line for the user, without exception class names or a stack trace
     * (set {@code -Djunction.debug=true}, in {@code JAVA_OPTS}, for the trace).
     *
     * @return the error's exit status ({@link CliError}) or 1
     */
    static int failure(final Exception e, final CommandLine command, final CommandLine.ParseResult parsed)
    {
        final PrintWriter err = command.getErr();
        err.println(command.getCommandSpec().qualifiedName() + ": " + describe(e));
        final boolean state = isStateRefusal(e);
        if (Boolean.getBoolean(DEBUG_PROP_NAME))
        {
            e.printStackTrace(err);
        }
        else if (!(e instanceof CliError) && !(e instanceof IOException) && !state)
        {
            err.println("(an unexpected error: -D" + DEBUG_PROP_NAME + "=true in JAVA_OPTS prints its stack trace)");
        }
        err.flush();
        return e instanceof CliError ? ((CliError) e).exitCode() : state ? EXIT_STATE : 1;
    }

    /**
     * Whether the engine refused its durable state (a locked state root, a state of another layout, a
     * checkpoint it could not write): an expected refusal with its message naming the file, exit 4 in
     * every command as in {@code replay} (docs/CLI.md), never an "unexpected error".
     */
    private static boolean isStateRefusal(final Throwable e)
    {
        return e instanceof CheckpointException || e instanceof DurableStateException;
    }

    /**
     * @param e an exception
     * @return a sentence for the user, naming the file of a file error
     */
    public static String describe(final Throwable e)
    {
        if (e instanceof NoSuchFileException)
        {
            return "no such file: " + ((NoSuchFileException) e).getFile();
        }
        if (e instanceof AccessDeniedException)
        {
            return "permission denied: " + ((AccessDeniedException) e).getFile();
        }
        if (e instanceof FileSystemException)
        {
            final FileSystemException f = (FileSystemException) e;
            return f.getFile() + ": " + (f.getReason() != null ? f.getReason() : "cannot be read or written");
        }
        final String message = e.getMessage();
        if (message == null || message.isBlank())
        {
            return e.getCause() != null ? describe(e.getCause()) : "internal error";
        }
        return message;
    }

    /**
     * Runs the command line and exits with its exit code.
     *
     * @param args the arguments
     */
    public static void main(final String[] args)
    {
        if (System.getProperty(SLF4J_PROVIDER_PROP_NAME) == null)
        {
            // Chronicle logs through SLF4J and the jar ships no binding: without these, SLF4J prints a
            // three-line warning on every run and then drops the logs anyway
            System.setProperty(SLF4J_PROVIDER_PROP_NAME, "org.slf4j.helpers.NOP_FallbackServiceProvider");
            System.setProperty(SLF4J_VERBOSITY_PROP_NAME, "WARN");
        }
        System.exit(execute(args));
    }

    /**
     * What {@link #main} runs, without the exit: installs the one log format ({@link CliLogFormat}) and runs
     * the command line.
     *
     * @param args the arguments
     * @return the exit status
     */
    public static int execute(final String[] args)
    {
        CliLogFormat.install();
        return commandLine().execute(args);
    }

    @Override
    public void run()
    {
        throw new ParameterException(spec.commandLine(), "a subcommand is required (" + subcommandList() + ")");
    }

    /** @return the registered subcommands' names, in their order, as "a, b, ... or help" */
    public static String subcommandList()
    {
        final List<String> names = new ArrayList<>(commandLine().getSubcommands().keySet());
        final String last = names.remove(names.size() - 1);
        return String.join(", ", names) + " or " + last;
    }
}
