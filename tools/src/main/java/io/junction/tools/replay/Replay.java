package io.junction.tools.replay;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowFormat;
import io.junction.api.Schema;
import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.json.BadInputException;
import io.junction.json.RowJson;
import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;
import io.junction.runtime.CheckpointException;
import io.junction.runtime.CompletedCheckpoint;
import java.io.PrintWriter;
import java.util.concurrent.CompletableFuture;

/**
 * Runs a scenario (SEMANTICS 1: a join spec and an event log) through the real runtime: a
 * {@link JoinEngine} with its rings, partition threads and off-heap state, fed by one
 * {@link Publisher} exactly as an application would feed it. There is deliberately no second code
 * path for replay, so that every semantic test run through replay tests the engine that ships.
 * <p>
 * Steps are the 0-based indices of the non-blank lines. A row line is encoded canonically
 * ({@link RowJson}) and published with its step; {@code {"watermark":T}} broadcasts a watermark to
 * both inputs (or, with {@code "side"}, to one); the end of the log publishes the end of input with
 * step = the number of non-blank lines; then the engine is closed, which drains every partition.
 * Lines that are not valid events (including a line that is not UTF-8, or longer than 1 MiB), and
 * rows the publisher refuses, become dead-letter lines at their step; they never stop the run and
 * never reach the engine. A UTF-8 byte order mark at the start of the log is skipped ({@link EventLines}).
 * The schema holds the spec's field names and those of the rows that are published, and nothing else:
 * a refused row adds no name ({@link #run(JoinSpecJson.Parsed, EventSource)}).
 * <p>
 * Results are rendered per partition on the partition thread (rows are flyweights) and merged by
 * step, stably, after the engine has closed.
 * <p>
 * The run's parts, package-private beside it: {@code FieldNames} (the first pass), {@code EventPublishing}
 * (publishing an event, and the replay's own dead-letter lines), {@code ReplayOutput} (the collectors and the
 * merge by step) and {@code ReplayDirectory} (a durable replay's directory and its resume checks).
 * <p>
 * Not thread safe: one run at a time per instance (runs are independent; use one instance per thread).
 */
public final class Replay
{
    /**
     * Key capacity per partition for replays: Chronicle Map sizes its segments up front, and the
     * engine's default (a million keys) makes each start cost far more than a scenario file needs.
     */
    public static final long MAX_KEYS_DEFAULT = 65_536;
    /** Ring slots per partition for replays: a replay is not a throughput run. */
    public static final int RING_SIZE_DEFAULT = 1024;
    /** How many partition errors are kept as text (all are counted). */
    private static final int MAX_ERRORS_KEPT = 100;

    private final EngineConfig config;
    /** Null: state in memory, output kept in memory until the run ends. */
    private final Durability durability;
    /** The rows' declared schema ({@link #fields(Schema)}), or null to learn the names from the log. */
    private Schema declared;
    private boolean strict;

    /**
     * @param config the engine configuration to run with (see {@link #config(int)})
     */
    public Replay(final EngineConfig config)
    {
        this(config, null);
    }

    /**
     * @param config     the engine configuration to run with (see {@link #config(int)})
     * @param durability where state, checkpoints and spooled output live, or null for a run in memory
     */
    public Replay(final EngineConfig config, final Durability durability)
    {
        this.config = durability == null ? config : config.withStateRoot(durability.directory().resolve(STATE));
        this.durability = durability;
    }

    /** The engine's state root under a durable replay's directory. */
    static final String STATE = "engine";
    /** The spooled output lines under a durable replay's directory. */
    static final String OUTPUT = "output";

    /**
     * A durable replay: the engine keeps its state under {@code directory/engine/} and checkpoints it every
     * {@code checkpointEvery} steps with the position {@code {step}} (the last step applied); output lines
     * are spooled under {@code directory/output/} as they are produced and made durable at each checkpoint.
     * With {@code resume}, the run restores the newest checkpoint (or the state a clean close left), cuts the
     * spools back to the steps at or before its position, and replays the log from the step after it; the
     * output is then exactly that of an uninterrupted run (at-least-once output, de-duplicated by step).
     * Before anything is cut, a resume that could not give that output is refused with a
     * {@link ResumeRefusedException} naming the file or option, and nothing is changed: a spool damaged,
     * truncated or missing ({@link Spool#check}); an event log that differs within, or is shorter than, the
     * bytes the restored checkpoint consumed (or, after a clean close, is not exactly the log it closed on);
     * another spec, rows' fields or option than the state was built with ({@code DIR/REPLAY}). A checkpoint
     * that cannot be written fails the run with a {@link io.junction.runtime.CheckpointException} naming the file.
     *
     * @param directory       the replay's state directory
     * @param checkpointEvery steps between checkpoints, at least 1
     * @param resume          whether to resume what the directory holds (otherwise it must hold nothing)
     * @param progress        where to print a line before each checkpoint and before the close, or null
     */
    public record Durability(Path directory, long checkpointEvery, boolean resume, PrintWriter progress)
    {
        /** Checks the values. */
        public Durability
        {
            if (directory == null || checkpointEvery < 1)
            {
                throw new IllegalArgumentException("a durable replay needs a directory and checkpointEvery >= 1");
            }
        }
    }

    /**
     * @param partitions number of partitions
     * @return the engine defaults with state and rings sized for scenario files, so that a start is fast
     */
    public static EngineConfig config(final int partitions)
    {
        return EngineConfig.defaults()
            .withPartitions(partitions)
            .withRingSize(RING_SIZE_DEFAULT)
            .withState(StateConfig.defaults().withMaxKeys(MAX_KEYS_DEFAULT));
    }

    /** @return the engine configuration runs use */
    public EngineConfig engineConfig()
    {
        return config;
    }

    /** Opens an event log; a replay opens it twice (field names first, then the run). */
    @FunctionalInterface
    public interface EventSource
    {
        /**
         * @return the log's bytes from the start
         * @throws IOException when it cannot be opened
         */
        InputStream open() throws IOException;

        /** @return what messages call the log (a file's path) */
        default String name()
        {
            return "the event log";
        }
    }

    /**
     * @param file an event log file
     * @return a source that opens it, named by its path
     */
    public static EventSource events(final Path file)
    {
        return new EventSource()
        {
            @Override
            public InputStream open() throws IOException
            {
                return Files.newInputStream(file);
            }

            @Override
            public String name()
            {
                return file.toString();
            }
        };
    }

    /**
     * Replays a scenario from its two files.
     *
     * @param specFile   the {@code *.join.json}
     * @param eventsFile the {@code *.events.jsonl}
     * @return what the run produced
     * @throws IOException                            when a file cannot be read
     * @throws io.junction.json.JoinSpecException when the spec is rejected (nothing runs)
     * @throws UnsupportedOperationException          when the engine does not implement the join kind
     */
    public ReplayResult run(final Path specFile, final Path eventsFile) throws IOException
    {
        return run(JoinSpecJson.read(specFile), events(eventsFile));
    }

    /**
     * Replays a scenario given as text; for tests.
     *
     * @param specJson the join spec
     * @param events   the event log, lines separated by newlines
     * @return what the run produced
     * @throws io.junction.json.JoinSpecException when the spec is rejected (nothing runs)
     */
    public ReplayResult run(final String specJson, final String events)
    {
        final byte[] bytes = events.getBytes(StandardCharsets.UTF_8);
        try
        {
            return run(JoinSpecJson.parse(specJson), () -> new ByteArrayInputStream(bytes));
        }
        catch (final IOException e)
        {
            throw new IllegalStateException("reading a byte array cannot fail", e);
        }
    }

    /**
     * @param kind a join kind
     * @return whether its rows need a {@code ts}: event-time joins do; a regular or lookup join takes 0 for a missing one
     */
    static boolean tsRequired(final JoinKind kind)
    {
        // MULTI: as the regular join (SEMANTICS 10), ts defaults to 0
        return kind == JoinKind.INTERVAL || kind == JoinKind.WINDOW || kind == JoinKind.TEMPORAL || kind == JoinKind.ASOF;
    }

    /**
     * Replays an event log against a parsed spec, in two passes over the log. The first collects the
     * field names of the rows that will be published, in first-seen order after the spec's own names,
     * and decides which rows are refused before anything runs: a row that would take the names past
     * {@link Schema#MAX_FIELDS}, or one too large for a ring slot, adds no name. Then the schema is
     * built (immutable) with the spec against it, and the second pass runs the engine.
     *
     * @param spec   the join
     * @param events the event log, opened once per pass
     * @return what the run produced
     * @throws IOException                   when reading the log fails (the engine is closed first)
     * @throws UnsupportedOperationException when the engine does not implement the join kind
     */
    public ReplayResult run(final JoinSpecJson.Parsed spec, final EventSource events) throws IOException
    {
        final boolean tsRequired = tsRequired(spec.kind());
        final Map<Long, String> refusedFirst = new HashMap<>();
        final FieldNames.Carried carried = new FieldNames.Carried(carriedNames(spec));
        // --fields, else the spec's own "schema" (JoinSpecJson checked that it holds the spec's fields)
        final Schema declared = this.declared != null ? this.declared : spec.schema();
        final Schema schema;
        if (declared != null)
        {
            // declared rows, not learnt; a spec field outside them is a rejected spec
            for (final String name : spec.fieldNames())
            {
                if (declared.indexOf(name) < 0)
                {
                    throw new JoinSpecException(name, "not a declared field (--fields " + declared + ")");
                }
            }
            schema = declared;
        }
        else
        {
            schema = learnt(spec, events, refusedFirst, carried, config.slotCapacity());
            if (strict && !carried.missing().isEmpty())
            {
                throw new SpecFieldsNotCarriedException(carried.missing());
            }
        }
        final JoinSpec joinSpec = spec.spec(schema);
        try (EventLines lines = new EventLines(events.open()))
        {
            final ReplayResult result = run(joinSpec, schema, lines, events, refusedFirst);
            return declared != null ? result : result.withSpecFieldsNotCarried(carried.missing());
        }
    }

    /** The schema of the names a log's rows carry, as {@link #run} learns it in its first pass. */
    private static Schema learnt(
        final JoinSpecJson.Parsed spec, final EventSource events, final Map<Long, String> refusedFirst,
        final FieldNames.Carried carried, final int slotCapacity) throws IOException
    {
        return Schema.of(FieldNames.collectNames(spec, events, tsRequired(spec.kind()), refusedFirst, carried, slotCapacity));
    }

    /**
     * The rows' schema a replay of a log runs with, as {@link #run} finds it: the spec's declared {@code schema}, else
     * the names learnt from the log. For a tool that reopens a durable replay's state (whose identity includes it).
     *
     * @param spec         the join.
     * @param events       the log the replay ran.
     * @param slotCapacity the replay's ring slot size (a row too large for it adds no name).
     * @return the schema.
     * @throws IOException when the log cannot be read.
     */
    public static Schema schema(final JoinSpecJson.Parsed spec, final EventSource events, final int slotCapacity) throws IOException
    {
        return spec.schema() != null ? spec.schema()
            : learnt(spec, events, new HashMap<>(), new FieldNames.Carried(carriedNames(spec)), slotCapacity);
    }

    /** The spec's fields a row must carry for the spec to mean anything: not those its expansions add. */
    private static List<String> carriedNames(final JoinSpecJson.Parsed spec)
    {
        final List<String> names = new ArrayList<>(spec.fieldNames());
        names.removeAll(spec.addedFieldNames());
        return names;
    }

    /**
     * Declares the rows' fields (the CLI's {@code --fields}), typed or not: the schema is exactly this
     * instead of the names the log carries; a spec field it lacks rejects the spec, and a row that does
     * not fit it is a {@code schema_mismatch} dead letter.
     *
     * @param fields the rows' schema, or null to learn it from the log (the default)
     * @return this replay
     */
    public Replay fields(final Schema fields)
    {
        this.declared = fields;
        return this;
    }

    /**
     * Without declared fields: refuse the run up front ({@link SpecFieldsNotCarriedException}, before the
     * engine starts) when a spec field is carried by no row of the log, instead of running it and
     * reporting the fields in {@link ReplayResult#specFieldsNotCarried()}.
     *
     * @param strict whether to refuse
     * @return this replay
     */
    public Replay strict(final boolean strict)
    {
        this.strict = strict;
        return this;
    }

    /** A strict replay ({@link #strict(boolean)}) of a log in which no row carries some of the spec's fields. */
    public static final class SpecFieldsNotCarriedException extends IllegalArgumentException
    {
        private static final long serialVersionUID = 1L;
        private final List<String> fields;

        SpecFieldsNotCarriedException(final List<String> fields)
        {
            super("no row of the event log carries the spec's field(s) " + fields +
                " (a misspelt field name? the rows' fields are what the log's rows carry)");
            this.fields = List.copyOf(fields);
        }

        /** @return the spec fields no row carried */
        public List<String> fields()
        {
            return fields;
        }
    }

    private ReplayResult run(
        final JoinSpec spec, final Schema schema, final EventLines events, final EventSource source,
        final Map<Long, String> refusedFirst) throws IOException
    {
        final int partitions = config.partitions();
        final List<Spool> spools = new ArrayList<>();
        final Path output = durability == null ? null : durability.directory().resolve(OUTPUT);
        if (durability != null)
        {
            ReplayDirectory.prepareDirectory(durability, output);
            ReplayDirectory.builtWith(durability, config, spec, schema);
        }
        final PartitionCollector[] collectors = ReplayOutput.collectors(spec, schema, output, partitions, spools);
        final Spool refusedSpool = output == null ? null : new Spool(output.resolve("input.dead.jsonl"));
        final AtomicLong errorCount = new AtomicLong();
        final List<String> errors = new ArrayList<>();
        final List<StepLine> refused = new ArrayList<>();
        final boolean tsRequired = tsRequired(spec.kind());
        final List<String> inputs = spec.multi() == null ? null : spec.multi().names();
        final RowJson codec = new RowJson(schema);
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
        final StringBuilder sb = new StringBuilder(256);

        long step = 0;
        final JoinEngine engine;
        try
        {
            engine = JoinEngine.builder(spec)
            .config(config)
            .resultHandlers(p -> collectors[p])
            .deadLetterHandlers(p -> collectors[p])
            .beforeCheckpoint(p -> collectors[p].checkpoint(checkpointPosition))
            .errorHandler(t ->
            {
                errorCount.incrementAndGet();
                synchronized (errors)
                {
                    if (errors.size() < MAX_ERRORS_KEPT)
                    {
                        errors.add(Thread.currentThread().getName() + ": " + t);
                    }
                }
            })
            .start();
        }
        catch (final RuntimeException e)
        {
            ReplayDirectory.closeAll(spools, refusedSpool);
            throw e;
        }
        // Durable: the last step whose output is already in the spools (restored), -1 for none.
        long resumeAfter = -1;
        if (durability != null)
        {
            final long[] restored = engine.restoredPositions();
            resumeAfter = restored == null ? -1 : restored[0];
            if (durability.progress() != null)
            {
                durability.progress().println("junction replay: " + (resumeAfter < 0 ? "starting at step 0" :
                    "resuming after step " + resumeAfter + (engine.restoredCheckpointId() >= 0
                        ? " from checkpoint " + engine.restoredCheckpointId() : " (clean close)")));
                durability.progress().flush();
            }
            if (durability.resume())
            {
                try
                {
                    // Everything is checked before anything is cut: a refused resume changes nothing.
                    ReplayDirectory.checkAndCut(spools, refusedSpool, source, resumeAfter);
                }
                catch (final IOException | RuntimeException e)
                {
                    engine.close();
                    ReplayDirectory.closeAll(spools, refusedSpool);
                    throw e;
                }
            }
        }
        // The log consumed up to the end of the last step line read: its length and CRC-32C (SEMANTICS 1 steps).
        long logBytes = 0;
        long logCrc = 0;
        CompletableFuture<CompletedCheckpoint> checkpoint = null;
        boolean cleanClose = false;
        final long[] expansions = new long[3];
        try
        {
            final Publisher publisher = engine.publisher();
            while (events.next())
            {
                final String line = events.text();
                if (line != null && line.isBlank())
                {
                    continue;
                }
                final long bytesBefore = logBytes;
                final long crcBefore = logCrc;
                if (durability != null)
                {
                    logBytes = events.consumed();
                    logCrc = events.consumedCrc();
                }
                if (step <= resumeAfter)
                {
                    step++; // applied before the restored position; its output is in the spools
                    continue;
                }
                if (durability != null && step > 0 && step % durability.checkpointEvery() == 0)
                {
                    checkpoint = checkpoint(engine, checkpoint, step - 1, refused, refusedSpool,
                        ReplayDirectory.logRecord(bytesBefore, crcBefore, false));
                }
                if (line == null)
                {
                    refused.add(new StepLine(step, EventPublishing.badLine(sb, step,
                        "line " + events.lineNumber() + ": " + events.problem(), events.echo())));
                    step++;
                    continue;
                }
                try
                {
                    final ReplayEvent event = ReplayEvent.parse(line, tsRequired, inputs);
                    if (event.isWatermark())
                    {
                        EventPublishing.check(event.side() == null
                            ? publisher.watermark(event.ts(), step)
                            : event.input() >= 0
                            ? publisher.watermarkInput(event.input(), event.ts(), step)
                            : publisher.watermark(event.side(), event.ts(), step));
                    }
                    else
                    {
                        final String reason = refusedFirst.get(step);
                        if (reason != null)
                        {
                            refused.add(new StepLine(step, EventPublishing.refusedRow(sb, event, step, reason)));
                        }
                        else
                        {
                            EventPublishing.publishRow(publisher, codec, scratch, event, step, refused, sb);
                        }
                    }
                }
                catch (final BadInputException e)
                {
                    refused.add(new StepLine(step, EventPublishing.badLine(sb, step, "line " + events.lineNumber() + ": " + e.getMessage(), line)));
                }
                step++;
            }
            if (step > resumeAfter)
            {
                EventPublishing.check(publisher.endOfInput(step));
            }
            expansions[0] = engine.expansions().inputs();
            expansions[1] = engine.expansions().rows();
            expansions[2] = engine.expansions().empty();
            if (durability != null)
            {
                // The clean close is the last checkpoint (at the end of input): its beforeCheckpoint hook makes
                // the partitions' output durable, and the replay's own dead letters are made durable first.
                ReplayDirectory.awaitCheckpoint(checkpoint);
                ReplayDirectory.flushRefused(refused, refusedSpool);
                // The clean close consumed the whole log (its end of input was applied).
                ReplayDirectory.markRefused(refusedSpool, step, ReplayDirectory.logRecord(events.consumed(), events.consumedCrc(), true));
                if (durability.progress() != null)
                {
                    durability.progress().println("junction replay: closing at step " + step);
                    durability.progress().flush();
                }
                checkpointPosition = step;
                cleanClose = true;
                final boolean closed = engine.close(new long[] {step});
                final String shortfall = engine.closeShortfall();
                if (!closed && shortfall != null && shortfall.startsWith(JoinEngine.CLOSE_CHECKPOINT_FAILED))
                {
                    // Every event was processed, but the state could not be checkpointed (a full disk): exit 4.
                    throw new CheckpointException(shortfall, null);
                }
                closeComplete(engine, closed, errorCount, errors);
            }
        }
        finally
        {
            if (!cleanClose)
            {
                // A close that gave up (a partition stopped making progress) leaves output missing: an error.
                closeComplete(engine, engine.closeCompletely(), errorCount, errors);
            }
            if (durability != null)
            {
                ReplayDirectory.closeAll(spools, refusedSpool);
            }
        }
        return ReplayOutput.result(step, output, partitions, collectors, refused, errorCount, errors, engine)
            .withExpansions(expansions);
    }

    /**
     * Takes a checkpoint at {@code position} (the last step published), after the previous one has
     * completed (one at a time), once the replay's own dead letters up to it are durable.
     */
    private CompletableFuture<CompletedCheckpoint> checkpoint(
        final JoinEngine engine, final CompletableFuture<CompletedCheckpoint> previous,
        final long position, final List<StepLine> refused, final Spool refusedSpool, final String logRecord) throws IOException
    {
        ReplayDirectory.awaitCheckpoint(previous);
        ReplayDirectory.flushRefused(refused, refusedSpool);
        ReplayDirectory.markRefused(refusedSpool, position, logRecord);
        if (durability.progress() != null)
        {
            durability.progress().println("junction replay: checkpoint at step " + position);
            durability.progress().flush();
        }
        // Read by the partitions' beforeCheckpoint hooks at this checkpoint's barrier (one checkpoint at a time).
        checkpointPosition = position;
        return engine.checkpoint(new long[] {position});
    }

    /**
     * The position of the checkpoint being taken, for the partitions' spool records ({@link Spool#mark}):
     * written before the checkpoint is asked for, read on the partition threads at its barrier.
     */
    private volatile long checkpointPosition = -1;

    /**
     * A durable replay's {@code --resume} that would not give the output of an uninterrupted run: a spool
     * missing, truncated or damaged; an event log changed or shortened within what the restored checkpoint
     * consumed; other options than the state was built with. The message is one line naming the file or option.
     * Nothing in the directory was changed.
     */
    public static final class ResumeRefusedException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        ResumeRefusedException(final String message)
        {
            super(message);
        }
    }

    /** Counts a close that did not complete as a partition error, so that the replay never exits 0 with output missing. */
    private static void closeComplete(final JoinEngine engine, final boolean complete, final AtomicLong errorCount,
        final List<String> errors)
    {
        if (!complete)
        {
            errorCount.incrementAndGet();
            synchronized (errors)
            {
                errors.add("engine: " + engine.closeShortfall());
            }
        }
    }

}
