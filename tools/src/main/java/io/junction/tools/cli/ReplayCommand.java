package io.junction.tools.cli;

import io.junction.api.JoinSpec;
import io.junction.api.Schema;
import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.replay.Replay;
import io.junction.tools.replay.ReplayResult;
import io.junction.tools.spec.JoinSpecException;
import io.junction.tools.spec.JoinSpecJson;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code junction replay SPEC EVENTS}: runs a SPEC 1 scenario through the engine ({@link Replay}) and
 * writes the output lines (stdout or {@code --out}) and dead-letter lines (stderr or
 * {@code --dead-letter}), each merged in step order.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
        "Runs a scenario (a join spec and an event log, SPEC.md section 1) through the engine.",
        "Output lines go to stdout (or --out), dead letters to stderr (or --dead-letter), in step order."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
        "0:the run completed",
        "1:a file could not be read or written",
        "2:the join spec was rejected (or its join kind is not implemented); nothing ran",
        "3:the run completed but partition threads reported errors; the output may be incomplete"})
public final class ReplayCommand implements Callable<Integer> {
    /** Exit code of a completed run. */
    public static final int EXIT_OK = 0;
    /** Exit code of an I/O error. */
    public static final int EXIT_IO = 1;
    /** Exit code of a rejected spec. */
    public static final int EXIT_SPEC = 2;
    /** Exit code of a run during which partitions reported errors. */
    public static final int EXIT_ENGINE_ERRORS = 3;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SPEC.join.json", description = "the join spec")
    private Path specFile;

    @Parameters(index = "1", paramLabel = "EVENTS.events.jsonl", description = "the event log")
    private Path eventsFile;

    @Option(names = "--partitions", paramLabel = "N", description = "engine partitions (default: ${DEFAULT-VALUE})")
    private int partitions = EngineConfig.defaultPartitions();

    @Option(names = "--out", paramLabel = "FILE", description = "write output lines here instead of stdout")
    private Path out;

    @Option(names = "--dead-letter", paramLabel = "FILE", description = "write dead-letter lines here instead of stderr")
    private Path deadLetter;

    @Option(names = "--wait-strategy", paramLabel = "KIND", converter = WaitStrategyConverter.class,
        description = "blocking, sleeping, yielding or busy-spin (default: sleeping)")
    private WaitStrategyKind waitStrategy = EngineConfig.WAIT_STRATEGY_DEFAULT;

    @Option(names = "--slot-capacity", paramLabel = "BYTES",
        description = "bytes of row a ring slot holds; larger rows are dead letters (default: ${DEFAULT-VALUE})")
    private int slotCapacity = EngineConfig.SLOT_CAPACITY_DEFAULT;

    @Option(names = "--max-keys", paramLabel = "N",
        description = "live join keys per partition the state is sized for (default: ${DEFAULT-VALUE})")
    private long maxKeys = Replay.MAX_KEYS_DEFAULT;

    @Override
    public Integer call() {
        final PrintWriter err = spec.commandLine().getErr();
        final EngineConfig config;
        try {
            config = Replay.config(partitions)
                .withWaitStrategy(waitStrategy)
                .withSlotCapacity(slotCapacity)
                .withState(StateConfig.defaults().withMaxKeys(maxKeys));
        } catch (final IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }

        final Schema schema = new Schema();
        final JoinSpec joinSpec;
        try {
            joinSpec = JoinSpecJson.read(specFile, schema);
        } catch (final JoinSpecException e) {
            err.println("junction replay: rejected join spec " + specFile + ": " + e.getMessage());
            err.flush();
            return EXIT_SPEC;
        } catch (final IOException e) {
            return ioError(err, "cannot read join spec " + specFile, e);
        }

        final ReplayResult result;
        try (BufferedReader events = Files.newBufferedReader(eventsFile, StandardCharsets.UTF_8)) {
            result = new Replay(config).run(joinSpec, schema, events);
        } catch (final UnsupportedOperationException e) {
            err.println("junction replay: cannot run join spec " + specFile + ": " + e.getMessage());
            err.flush();
            return EXIT_SPEC;
        } catch (final IOException e) {
            return ioError(err, "cannot read event log " + eventsFile, e);
        }

        try {
            write(result, true, out, spec.commandLine().getOut());
            write(result, false, deadLetter, err);
        } catch (final IOException e) {
            return ioError(err, "cannot write output", e);
        }
        if (result.errorCount() > 0) {
            err.println("junction replay: " + result.errorCount() + " error(s) in partition threads, output may be incomplete:");
            for (final String error : result.errors()) {
                err.println("  " + error);
            }
            err.flush();
            return EXIT_ENGINE_ERRORS;
        }
        return EXIT_OK;
    }

    private static void write(final ReplayResult result, final boolean results, final Path file, final PrintWriter console)
        throws IOException {
        if (file == null) {
            writeTo(result, results, console);
            return;
        }
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            writeTo(result, results, writer);
        }
    }

    private static void writeTo(final ReplayResult result, final boolean results, final Writer writer) throws IOException {
        if (results) {
            result.writeResults(writer);
        } else {
            result.writeDeadLetters(writer);
        }
    }

    private static int ioError(final PrintWriter err, final String what, final IOException e) {
        err.println("junction replay: " + what + ": " + e);
        err.flush();
        return EXIT_IO;
    }
}
