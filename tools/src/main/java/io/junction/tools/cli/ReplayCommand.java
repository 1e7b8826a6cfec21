package io.junction.tools.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.junction.api.Field;
import io.junction.api.JoinKind;
import io.junction.api.Schema;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import io.junction.runtime.CheckpointException;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.WaitStrategyKind;
import io.junction.tools.perf.HotKeyReport;
import io.junction.tools.replay.Replay;
import io.junction.tools.replay.ReplayResult;
import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import io.junction.join.DurableStateException;
import io.junction.tools.JunctionCli;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code junction replay SPEC EVENTS}: runs a SEMANTICS 1 scenario through the engine ({@link Replay}) and
 * writes the output lines (stdout or {@code --out}) and dead-letter lines (stderr or
 * {@code --dead-letter}), each merged in step order, then a one-line summary to stderr (events, outputs,
 * dead letters by code). A spec field that no row of the log carried ends the run with a warning and
 * exit status 5 ({@code --strict}: refused before the run); {@code --fields} declares the rows instead.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
        "Runs a scenario (a join spec and an event log, docs/SEMANTICS.md section 1) through the engine.",
        "Output lines go to stdout (or --out), dead letters to stderr (or --dead-letter), in step order."},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {
        "0:the run completed",
        "1:a file could not be read or written",
        "2:an option or the join spec was rejected (or its join kind is not implemented); nothing ran",
        "3:the run completed but partition threads reported errors; the output may be incomplete",
        "4:--state: the durable state could not be recovered or checkpointed, or --resume was refused (a damaged, "
            + "truncated or missing spool, another event log or options); the message names the file or option",
        "5:a spec field (key, filter or condition) that no row of the log carried: a misspelt name? (a warning "
            + "names it; with --strict nothing ran)"})
public final class ReplayCommand implements Callable<Integer>
{
    /** Exit code of a completed run. */
    public static final int EXIT_OK = 0;
    /** Exit code of an I/O error. */
    public static final int EXIT_IO = 1;
    /** Exit code of a rejected spec. */
    public static final int EXIT_SPEC = 2;
    /** Exit code of a run during which partitions reported errors. */
    public static final int EXIT_ENGINE_ERRORS = 3;
    /** Exit code of a durable replay whose state could not be recovered or checkpointed. */
    public static final int EXIT_STATE = 4;
    /** Exit code of a run (or, with {@code --strict}, a refused run) in which no row carried some spec field. */
    public static final int EXIT_FIELDS_NOT_CARRIED = 5;
    /** Default {@code --checkpoint-every}. */
    public static final long CHECKPOINT_EVERY_DEFAULT = 10_000;
    /** The largest {@code --partitions} a replay takes. */
    public static final int MAX_PARTITIONS = 64;
    /**
     * The largest {@code --max-keys} a replay takes, and the most keys of all partitions together:
     * state is sized up front, so the bound is checked before anything is allocated.
     */
    public static final long MAX_KEYS_LIMIT = 1L << 24;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SPEC.join.json", description = "the join spec")
    private Path specFile;

    @Parameters(index = "1", paramLabel = "EVENTS.events.jsonl", description = "the event log")
    private Path eventsFile;

    @Option(names = "--partitions", paramLabel = "N",
        description = "engine partitions, 1 to " + MAX_PARTITIONS + " (default: ${DEFAULT-VALUE})")
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
        description = "live join keys per partition the state is sized for, 1 to 16777216 and at most 16777216 "
            + "for all partitions together (default: ${DEFAULT-VALUE})")
    private long maxKeys = Replay.MAX_KEYS_DEFAULT;

    @Option(names = "--state", paramLabel = "DIR",
        description = "durable mode: keep the engine's state, its checkpoints and the output spooled so far in DIR "
            + "(which must be empty or new unless --resume)")
    private Path stateDir;

    @Option(names = "--checkpoint-every", paramLabel = "N",
        description = "with --state: checkpoint every N steps, at the position of the last step applied (default: "
            + "${DEFAULT-VALUE})")
    private long checkpointEvery = CHECKPOINT_EVERY_DEFAULT;

    @Option(names = "--resume", description = "with --state: restore the newest checkpoint (or a clean close) in DIR "
        + "and replay the log from the step after its position; the output is that of an uninterrupted run")
    private boolean resume;

    @Option(names = "--progress", description = "with --state: print a line to stderr before each checkpoint and before the close")
    private boolean progress;

    @Option(names = "--expired", paramLabel = "FILE", description = "write the rows a regular join drops by stateTtl or "
        + "expire-oldest eviction here, one JSON line each: step, side, reason, ts, row (docs/SEMANTICS.md 4.7)")
    private Path expired;
    @Option(names = "--fields", paramLabel = "NAME[:TYPE][!],...", split = ",",
        description = "declare the rows' fields instead of learning them from the log; TYPE is long, double, boolean "
            + "or string, ! makes a field required. A spec field not declared rejects the spec (exit 2); a row "
            + "that does not fit is a schema_mismatch dead letter")
    private List<String> fields;

    @Option(names = "--strict", description = "without --fields: refuse to run (exit 5) when no row of the log "
        + "carries one of the spec's fields, instead of running and warning")
    private boolean strict;

    @Option(names = "--stats", description = "after the run, print each partition's counters and hot keys to stderr")
    private boolean stats;

    @Override
    public Integer call()
    {
        final PrintWriter err = spec.commandLine().getErr();
        final EngineConfig config;
        try
        {
            propertiesForOptionsNotGiven();
            checkOptions();
            config = withSystemProperties(Replay.config(partitions)
                .withWaitStrategy(waitStrategy)
                .withSlotCapacity(slotCapacity), maxKeys);
            config.checkRingMemory();
        }
        catch (final IllegalArgumentException e)
        {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }

        final JoinSpecJson.Parsed joinSpec;
        try
        {
            joinSpec = JoinSpecJson.read(specFile);
        }
        catch (final JoinSpecException e)
        {
            if (looksLikeEventLog(specFile))
            {
                throw new ParameterException(spec.commandLine(), specFile + " is an event log, not a join spec: " +
                    "give the spec first (junction replay SPEC.join.json EVENTS.events.jsonl)");
            }
            err.println("junction replay: rejected join spec " + specFile + ": " + e.getMessage());
            err.flush();
            return EXIT_SPEC;
        }
        catch (final IOException e)
        {
            return ioError(err, "cannot read join spec " + specFile, e);
        }
        if (looksLikeJoinSpec(eventsFile))
        {
            throw new ParameterException(spec.commandLine(), eventsFile + " is a join spec, not an event log: " +
                "give the events second (junction replay SPEC.join.json EVENTS.events.jsonl)");
        }
        if (expired != null && joinSpec.kind() != JoinKind.REGULAR)
        {
            // Only a regular join drops rows by stateTtl or expire-oldest eviction (docs/SEMANTICS.md 4.7): for any
            // other kind the file would always be empty, which reads as "nothing expired".
            throw new ParameterException(spec.commandLine(), "--expired: a " +
                joinSpec.kind().name().toLowerCase(Locale.ROOT) + " join expires no rows; only a regular join " +
                "(stateTtl or expire-oldest eviction) writes expired rows");
        }

        final Schema declared = declaredFields();
        if (joinSpec.schema() != null && (declared != null || strict))
        {
            throw new ParameterException(spec.commandLine(), (declared != null ? "--fields" : "--strict")
                + ": the spec's \"schema\" declares the rows already");
        }
        final ReplayResult result;
        try
        {
            result = new Replay(config, stateDir == null ? null : new Replay.Durability(stateDir, checkpointEvery, resume,
                progress ? err : null)).fields(declared).strict(strict).run(joinSpec, Replay.events(eventsFile));
        }
        catch (final Replay.SpecFieldsNotCarriedException e)
        {
            err.println("junction replay: refused (--strict): " + e.getMessage());
            err.flush();
            return EXIT_FIELDS_NOT_CARRIED;
        }
        catch (final JoinSpecException e)
        {
            err.println("junction replay: rejected join spec " + specFile + ": " + e.getMessage());
            err.flush();
            return EXIT_SPEC;
        }
        catch (final Replay.ResumeRefusedException e)
        {
            // A damaged, truncated or missing spool, another event log or other options: nothing was changed.
            err.println("junction replay: cannot resume " + stateDir + ": " + e.getMessage());
            err.flush();
            return EXIT_STATE;
        }
        catch (final CheckpointException | DurableStateException e)
        {
            // One line naming the file (a state of another layout, --max-keys, a damaged or missing file): exit 4.
            err.println("junction replay: " + e.getMessage());
            err.flush();
            return EXIT_STATE;
        }
        catch (final IllegalStateException e)
        {
            if (stateDir == null)
            {
                throw e;
            }
            err.println("junction replay: durable state in " + stateDir + ": " + e.getMessage());
            err.flush();
            return EXIT_STATE;
        }
        catch (final UnsupportedOperationException e)
        {
            err.println("junction replay: cannot run join spec " + specFile + ": " + e.getMessage());
            err.flush();
            return EXIT_SPEC;
        }
        catch (final IllegalArgumentException e)
        {
            // The engine refused its configuration at start (a state cap beyond the machine's memory or disk,
            // SEMANTICS 8): an option error, one line naming the setting.
            err.println("junction replay: refused to start: " + e.getMessage());
            err.flush();
            return EXIT_SPEC;
        }
        catch (final IOException e)
        {
            return ioError(err, (stateDir == null ? "cannot read event log " + eventsFile : "cannot run durably (event log "
                + eventsFile + ", state " + stateDir + ")"), e);
        }

        try
        {
            write(result, true, out, spec.commandLine().getOut());
            write(result, false, deadLetter, err);
            if (expired != null)
            {
                try (Writer writer = Files.newBufferedWriter(expired, StandardCharsets.UTF_8))
                {
                    for (final String line : result.expiredLines())
                    {
                        writer.write(line);
                        writer.write('\n');
                    }
                }
            }
        }
        catch (final IOException e)
        {
            return ioError(err, "cannot write output", e);
        }
        if (stats)
        {
            printStats(result, err);
        }
        err.println("junction replay: " + result.summary());
        err.flush();
        if (result.errorCount() > 0)
        {
            err.println("junction replay: " + result.errorCount() + " error(s) in partition threads, output may be incomplete:");
            for (final String error : result.errors())
            {
                err.println("  " + error);
            }
            err.flush();
            return EXIT_ENGINE_ERRORS;
        }
        if (!result.specFieldsNotCarried().isEmpty())
        {
            err.println("junction replay: warning: no row of " + eventsFile + " carries the spec's field(s) "
                + result.specFieldsNotCarried() + ": the output is what a misspelt name gives (empty or padded); "
                + "check the names, or declare the rows with --fields");
            err.flush();
            return EXIT_FIELDS_NOT_CARRIED;
        }
        return EXIT_OK;
    }

    /** @return the schema {@code --fields} declares, or null without it */
    private Schema declaredFields()
    {
        if (fields == null)
        {
            return null;
        }
        if (strict)
        {
            throw new ParameterException(spec.commandLine(), "--strict is for learnt fields; --fields declares them already");
        }
        final Field[] declared = new Field[fields.size()];
        for (int i = 0; i < declared.length; i++)
        {
            String text = fields.get(i).trim();
            final boolean required = text.endsWith("!");
            if (required)
            {
                text = text.substring(0, text.length() - 1);
            }
            final int colon = text.indexOf(':');
            final String name = colon < 0 ? text : text.substring(0, colon);
            final String type = colon < 0 ? "" : text.substring(colon + 1);
            if (name.isEmpty())
            {
                throw new ParameterException(spec.commandLine(), "--fields: empty field name in '" + fields.get(i) + "'");
            }
            Field field;
            switch (type)
            {
                case "":
                    field = Field.any(name);
                    break;
                case "long":
                    field = Field.longField(name);
                    break;
                case "double":
                    field = Field.doubleField(name);
                    break;
                case "boolean":
                    field = Field.booleanField(name);
                    break;
                case "string":
                    field = Field.string(name);
                    break;
                default:
                    throw new ParameterException(spec.commandLine(), "--fields: type of '" + name + "' must be long, double, "
                        + "boolean or string, got '" + type + "'");
            }
            declared[i] = required ? field.required() : field;
        }
        try
        {
            return Schema.of(declared);
        }
        catch (final IllegalArgumentException e)
        {
            throw new ParameterException(spec.commandLine(), "--fields: " + e.getMessage(), e);
        }
    }

    private static void printStats(final ReplayResult result, final PrintWriter err)
    {
        for (final PartitionSnapshot snapshot : result.metrics())
        {
            err.println(snapshot);
        }
        err.print(HotKeyReport.format(result.hotKeys(), HotKeyReport.TOP));
        err.flush();
    }

    /**
     * {@code -Djunction.*} options (from {@code JAVA_OPTS}, as the README says) for the options the command
     * line did not give: an option given wins over its property.
     */
    private void propertiesForOptionsNotGiven()
    {
        final picocli.CommandLine.ParseResult given = spec.commandLine().getParseResult();
        if (!given.hasMatchedOption("--partitions") && System.getProperty(EngineConfig.PARTITIONS_PROP_NAME) != null)
        {
            partitions = intProperty(EngineConfig.PARTITIONS_PROP_NAME);
        }
        if (!given.hasMatchedOption("--slot-capacity") && System.getProperty(EngineConfig.SLOT_CAPACITY_PROP_NAME) != null)
        {
            slotCapacity = intProperty(EngineConfig.SLOT_CAPACITY_PROP_NAME);
        }
        if (!given.hasMatchedOption("--max-keys") && System.getProperty(StateConfig.MAX_KEYS_PROP_NAME) != null)
        {
            maxKeys = longProperty(StateConfig.MAX_KEYS_PROP_NAME);
        }
        if (!given.hasMatchedOption("--wait-strategy") && System.getProperty(EngineConfig.WAIT_STRATEGY_PROP_NAME) != null)
        {
            waitStrategy = EngineConfig.fromSystemProperties().waitStrategy();
        }
    }

    /**
     * The replay's configuration with every {@code -Djunction.*} property that is set applied (the engine's
     * and the state's, {@code EngineConfig.fromSystemProperties}); the replay's own defaults where none is.
     *
     * @param base    the replay's configuration from its options.
     * @param maxKeys the key capacity per partition (option or property).
     * @return the configuration to run with.
     * @throws IllegalArgumentException naming a property whose value is not valid.
     */
    static EngineConfig withSystemProperties(final EngineConfig base, final long maxKeys)
    {
        final EngineConfig props = EngineConfig.fromSystemProperties();
        EngineConfig config = base.withState(StateConfig.fromSystemProperties().withMaxKeys(maxKeys));
        if (System.getProperty(EngineConfig.RING_SIZE_PROP_NAME) != null)
        {
            config = config.withRingSize(intProperty(EngineConfig.RING_SIZE_PROP_NAME));
        }
        if (System.getProperty(EngineConfig.CLOSE_TIMEOUT_PROP_NAME) != null)
        {
            config = config.withCloseTimeoutMillis(longProperty(EngineConfig.CLOSE_TIMEOUT_PROP_NAME));
        }
        if (System.getProperty(EngineConfig.IDLE_TIMEOUT_PROP_NAME) != null)
        {
            config = config.withIdleTimeout(Duration.ofMillis(longProperty(EngineConfig.IDLE_TIMEOUT_PROP_NAME)));
        }
        if (System.getProperty(EngineConfig.READ_AHEAD_PROP_NAME) != null)
        {
            config = config.withReadAhead(props.readAhead());
        }
        if (System.getProperty(EngineConfig.RECORD_LATENCY_PROP_NAME) != null)
        {
            config = config.withRecordLatency(props.recordLatency());
        }
        return config;
    }

    private static int intProperty(final String name)
    {
        try
        {
            return Integer.parseInt(System.getProperty(name).trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("-D" + name + " must be an integer, got \"" + System.getProperty(name) + "\"", e);
        }
    }

    private static long longProperty(final String name)
    {
        try
        {
            return Long.parseLong(System.getProperty(name).trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("-D" + name + " must be an integer, got \"" + System.getProperty(name) + "\"", e);
        }
    }

    /** Rejects options that would fail late, allocate without bound, or overwrite a file the run needs. */
    private void checkOptions()
    {
        if (partitions < 1 || partitions > MAX_PARTITIONS)
        {
            throw new ParameterException(spec.commandLine(),
                "--partitions must be in [1, " + MAX_PARTITIONS + "], got " + partitions);
        }
        if (maxKeys < 1 || maxKeys > MAX_KEYS_LIMIT)
        {
            throw new ParameterException(spec.commandLine(),
                "--max-keys must be in [1, " + MAX_KEYS_LIMIT + "], got " + maxKeys);
        }
        if (maxKeys * partitions > MAX_KEYS_LIMIT)
        {
            throw new ParameterException(spec.commandLine(), "--max-keys " + maxKeys + " times --partitions " +
                partitions + " is more than the " + MAX_KEYS_LIMIT + " keys a replay sizes state for");
        }
        if (stateDir == null && (resume || progress || checkpointEvery != CHECKPOINT_EVERY_DEFAULT))
        {
            throw new ParameterException(spec.commandLine(), "--resume, --progress and --checkpoint-every need --state DIR");
        }
        if (checkpointEvery < 1)
        {
            throw new ParameterException(spec.commandLine(), "--checkpoint-every must be >= 1, got " + checkpointEvery);
        }
        if (out != null && deadLetter != null && sameFile(out, deadLetter))
        {
            throw new ParameterException(spec.commandLine(),
                "--out and --dead-letter name the same file (" + out + ", " + deadLetter + "): one would overwrite the other");
        }
        if (expired != null && (out != null && sameFile(expired, out) || deadLetter != null && sameFile(expired, deadLetter)))
        {
            throw new ParameterException(spec.commandLine(),
                "--expired names the same file as --out or --dead-letter (" + expired + "): one would overwrite the other");
        }
        for (final Path output : new Path[] {out, deadLetter, expired})
        {
            if (output != null && (sameFile(output, specFile) || sameFile(output, eventsFile)))
            {
                throw new ParameterException(spec.commandLine(),
                    "output file " + output + " is an input of the run: it would be overwritten");
            }
        }
    }

    /**
     * @return true when both paths name one file: the same file when both exist (links and all),
     *     otherwise the same real folder and name, otherwise the same normalized absolute path
     */
    static boolean sameFile(final Path a, final Path b)
    {
        try
        {
            if (Files.exists(a) && Files.exists(b))
            {
                return Files.isSameFile(a, b);
            }
        }
        catch (final IOException e)
        {
            // fall through to comparing names
        }
        return resolved(a).equals(resolved(b));
    }

    private static Path resolved(final Path path)
    {
        final Path absolute = path.toAbsolutePath().normalize();
        final Path parent = absolute.getParent();
        try
        {
            if (Files.exists(absolute))
            {
                return absolute.toRealPath();
            }
            if (parent != null && Files.isDirectory(parent))
            {
                return parent.toRealPath().resolve(absolute.getFileName());
            }
        }
        catch (final IOException e)
        {
            // the normalized path is the best there is
        }
        return absolute;
    }

    private static void write(final ReplayResult result, final boolean results, final Path file, final PrintWriter console)
        throws IOException
    {
        if (file == null)
        {
            writeTo(result, results, console);
            return;
        }
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            writeTo(result, results, writer);
        }
    }

    private static void writeTo(final ReplayResult result, final boolean results, final Writer writer) throws IOException
    {
        if (results)
        {
            result.writeResults(writer);
        }
        else
        {
            result.writeDeadLetters(writer);
        }
    }

    /** The most of a file the argument-order checks read: a spec is far smaller, an event log's first line too. */
    private static final int SNIFF_BYTES = 1 << 20;
    private static final ObjectMapper SNIFF_MAPPER = JsonMapper.builder()
        .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS).build();

    /**
     * Whether a file the spec could not be read from is an event log (the two arguments swapped): its first
     * non-blank line is a JSON object with an event's {@code "side"}, {@code "input"} or {@code "watermark"}.
     */
    static boolean looksLikeEventLog(final Path file)
    {
        final String text = sniff(file);
        if (text == null)
        {
            return false;
        }
        for (final String line : (Iterable<String>) text.lines()::iterator)
        {
            if (!line.isBlank())
            {
                final JsonNode node = parseOrNull(line);
                return node != null && node.isObject() && !node.has("join") &&
                    (node.has("side") || node.has("input") || node.has("watermark"));
            }
        }
        return false;
    }

    /** Whether the file given as the event log is one JSON object with a spec's {@code "join"} and no event field. */
    static boolean looksLikeJoinSpec(final Path file)
    {
        final String text = sniff(file);
        final JsonNode node = text == null ? null : parseOrNull(text);
        return node != null && node.isObject() && node.has("join") && !node.has("side") && !node.has("watermark");
    }

    /** @return the file's text when it is small enough to be a spec and readable, else null (the run reports it) */
    private static String sniff(final Path file)
    {
        try
        {
            if (!Files.isRegularFile(file) || Files.size(file) > SNIFF_BYTES)
            {
                return null;
            }
            final String text = Files.readString(file, StandardCharsets.UTF_8);
            return !text.isEmpty() && text.charAt(0) == '\uFEFF' ? text.substring(1) : text;
        }
        catch (final IOException | UncheckedIOException e)
        {
            return null;
        }
    }

    private static JsonNode parseOrNull(final String text)
    {
        try
        {
            return SNIFF_MAPPER.readTree(text);
        }
        catch (final IOException e)
        {
            return null;
        }
    }

    private static int ioError(final PrintWriter err, final String what, final IOException e)
    {
        err.println("junction replay: " + what + ": " + JunctionCli.describe(e));
        err.flush();
        return EXIT_IO;
    }
}
