package io.junction.tools;

import io.junction.tools.cli.DemoCommand;
import io.junction.tools.cli.DurabilityCommand;
import io.junction.tools.cli.KafkaCommand;
import io.junction.tools.cli.MultiBenchCommand;
import io.junction.tools.cli.LoadgenCommand;
import io.junction.tools.cli.NexmarkCommand;
import io.junction.tools.cli.ReplayCommand;
import io.junction.tools.cli.ReportCommand;
import io.junction.tools.cli.SoakCommand;
import io.junction.tools.cli.SweepCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code junction} command line ({@code tools/bin/junction}): {@code replay} runs a SPEC scenario
 * through the engine, {@code demo} runs the W1 show-click join at full speed; {@code loadgen},
 * {@code sweep} and {@code report} are the latency harness, {@code nexmark} the Nexmark join
 * queries, {@code soak} a long fixed-rate run, {@code durability} the costs of durable state. The only place in the tools that calls {@link System#exit}, so that every command stays
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
        CommandLine.HelpCommand.class})
public final class JunctionCli implements Runnable {
    private static final String SLF4J_PROVIDER_PROP_NAME = "slf4j.provider";
    private static final String SLF4J_VERBOSITY_PROP_NAME = "slf4j.internal.verbosity";

    @Spec
    private CommandSpec spec;

    /** @return a configured command line, for {@link #main} and for tests */
    public static CommandLine commandLine() {
        return new CommandLine(new JunctionCli()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /**
     * Runs the command line and exits with its exit code.
     *
     * @param args the arguments
     */
    public static void main(final String[] args) {
        if (System.getProperty(SLF4J_PROVIDER_PROP_NAME) == null) {
            // Chronicle logs through SLF4J and the jar ships no binding: without these, SLF4J prints a
            // three-line warning on every run and then drops the logs anyway
            System.setProperty(SLF4J_PROVIDER_PROP_NAME, "org.slf4j.helpers.NOP_FallbackServiceProvider");
            System.setProperty(SLF4J_VERBOSITY_PROP_NAME, "WARN");
        }
        System.exit(commandLine().execute(args));
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(),
            "a subcommand is required (replay, demo, loadgen, sweep, report, nexmark, soak, durability or help)");
    }
}
