package io.junction.tools.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.DeadLetterReason;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.RowFormat;
import io.junction.api.Schema;
import io.junction.internal.io.OwnerOnlyFiles;
import io.junction.join.StateConfig;
import io.junction.metrics.HotKey;
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
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;
import io.junction.internal.durable.SmallFiles;
import io.junction.runtime.CheckpointException;
import io.junction.runtime.CompletedCheckpoint;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

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
        final Carried carried = new Carried(spec.fieldNames());
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
            schema = Schema.of(collectNames(spec, events, tsRequired, refusedFirst, carried));
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

    /** The spec's fields and which of them some accepted row carried (the first pass). */
    private static final class Carried
    {
        private final List<String> specFields;
        private final Set<String> seen = new HashSet<>();
        private long rows;

        Carried(final List<String> specFields)
        {
            this.specFields = specFields;
        }

        void row(final JsonNode row)
        {
            rows++;
            if (seen.size() < specFields.size())
            {
                for (final String name : specFields)
                {
                    if (row.has(name))
                    {
                        seen.add(name);
                    }
                }
            }
        }

        /** @return the spec fields no row carried, in spec order; none when the log has no row */
        List<String> missing()
        {
            final List<String> missing = new ArrayList<>();
            if (rows > 0)
            {
                for (final String name : specFields)
                {
                    if (!seen.contains(name))
                    {
                        missing.add(name);
                    }
                }
            }
            return missing;
        }
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

    private List<String> collectNames(
        final JoinSpecJson.Parsed spec, final EventSource events, final boolean tsRequired,
        final Map<Long, String> refused, final Carried carried) throws IOException
    {
        final Map<String, Integer> index = new LinkedHashMap<>();
        for (final String name : spec.fieldNames())
        {
            index.put(name, index.size());
        }
        final RowJson sizing = new RowJson(name -> index.getOrDefault(name, -1));
        final UnsafeBuffer scratch = new UnsafeBuffer(new byte[RowFormat.MAX_ROW_LENGTH]);
        final int slotCapacity = config.slotCapacity();
        final List<String> added = new ArrayList<>();
        long step = 0;
        try (EventLines lines = new EventLines(events.open()))
        {
            while (lines.next())
            {
                final String line = lines.text();
                if (line != null && line.isBlank())
                {
                    continue;
                }
                final long thisStep = step++;
                if (line == null)
                {
                    continue;
                }
                final JsonNode row;
                try
                {
                    final ReplayEvent event = ReplayEvent.parse(line, tsRequired, spec.inputNames());
                    if (event.isWatermark())
                    {
                        continue;
                    }
                    row = event.row();
                    RowJson.checkRow(row);
                }
                catch (final BadInputException e)
                {
                    continue; // the run dead-letters it the same way
                }
                carried.row(row);
                added.clear();
                for (final Map.Entry<String, JsonNode> field : row.properties())
                {
                    if (!index.containsKey(field.getKey()))
                    {
                        added.add(field.getKey());
                    }
                }
                if (added.isEmpty())
                {
                    continue; // the run encodes it against names that are all there
                }
                if (index.size() + added.size() > Schema.MAX_FIELDS)
                {
                    refused.put(thisStep, "schema is full: the event log names more than " + Schema.MAX_FIELDS +
                        " fields, and this row adds " + added.size() + " new one(s) from '" + added.get(0) + "'");
                    continue;
                }
                for (final String name : added)
                {
                    index.put(name, index.size());
                }
                final int length;
                try
                {
                    length = sizing.encode(row, scratch, 0, scratch.capacity());
                }
                catch (final BadInputException e)
                {
                    throw new IllegalStateException("a checked row with every name indexed encodes", e);
                }
                if (length == RowJson.TOO_LARGE || length > slotCapacity)
                {
                    for (final String name : added)
                    {
                        index.remove(name);
                    }
                    refused.put(thisStep, tooLarge(length));
                }
            }
        }
        return new ArrayList<>(index.keySet());
    }

    private ReplayResult run(
        final JoinSpec spec, final Schema schema, final EventLines events, final EventSource source,
        final Map<Long, String> refusedFirst) throws IOException
    {
        final int partitions = config.partitions();
        final PartitionCollector[] collectors = new PartitionCollector[partitions];
        final List<Spool> spools = new ArrayList<>();
        final Path output = durability == null ? null : durability.directory().resolve(OUTPUT);
        if (durability != null)
        {
            prepareDirectory(output);
            builtWith(spec, schema);
        }
        for (int p = 0; p < partitions; p++)
        {
            if (output == null)
            {
                collectors[p] = new PartitionCollector(schema, spec.coGroupSchema());
            }
            else
            {
                final Spool results = new Spool(output.resolve("p" + p + ".results.jsonl"));
                final Spool deadLetters = new Spool(output.resolve("p" + p + ".dead.jsonl"));
                spools.add(results);
                spools.add(deadLetters);
                collectors[p] = new PartitionCollector(schema, spec.coGroupSchema(), results, deadLetters);
            }
            collectors[p].multiInputs(spec.multi());
        }
        for (final PartitionCollector collector : collectors)
        {
            collector.output(spec); // SEMANTICS 4.5-4.7: upsert lines
        }
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
            closeAll(spools, refusedSpool);
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
                    final List<Spool> all = new ArrayList<>(spools);
                    all.add(refusedSpool);
                    final List<Spool.Checked> checked = new ArrayList<>();
                    for (final Spool spool : all)
                    {
                        checked.add(spool.check(resumeAfter));
                    }
                    if (resumeAfter >= 0)
                    {
                        checkLog(source, checked.get(checked.size() - 1), resumeAfter);
                    }
                    for (int i = 0; i < all.size(); i++)
                    {
                        all.get(i).cut(checked.get(i));
                    }
                }
                catch (final IOException | RuntimeException e)
                {
                    engine.close();
                    closeAll(spools, refusedSpool);
                    throw e;
                }
            }
        }
        // The log consumed up to the end of the last step line read: its length and CRC-32C (SEMANTICS 1 steps).
        long logBytes = 0;
        long logCrc = 0;
        CompletableFuture<CompletedCheckpoint> checkpoint = null;
        boolean cleanClose = false;
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
                        logRecord(bytesBefore, crcBefore, false));
                }
                if (line == null)
                {
                    refused.add(new StepLine(step, badLine(sb, step,
                        "line " + events.lineNumber() + ": " + events.problem(), events.echo())));
                    step++;
                    continue;
                }
                try
                {
                    final ReplayEvent event = ReplayEvent.parse(line, tsRequired, inputs);
                    if (event.isWatermark())
                    {
                        check(event.side() == null
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
                            refused.add(new StepLine(step, refusedRow(sb, event, step, reason)));
                        }
                        else
                        {
                            publishRow(publisher, codec, scratch, event, step, refused, sb);
                        }
                    }
                }
                catch (final BadInputException e)
                {
                    refused.add(new StepLine(step, badLine(sb, step, "line " + events.lineNumber() + ": " + e.getMessage(), line)));
                }
                step++;
            }
            if (step > resumeAfter)
            {
                check(publisher.endOfInput(step));
            }
            if (durability != null)
            {
                // The clean close is the last checkpoint (at the end of input): its beforeCheckpoint hook makes
                // the partitions' output durable, and the replay's own dead letters are made durable first.
                awaitCheckpoint(checkpoint);
                flushRefused(refused, refusedSpool);
                // The clean close consumed the whole log (its end of input was applied).
                markRefused(refusedSpool, step, logRecord(events.consumed(), events.consumedCrc(), true));
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
                closeAll(spools, refusedSpool);
            }
        }
        final List<StepLine> results = new ArrayList<>();
        final List<StepLine> deadLetters = new ArrayList<>(refused);
        if (output != null)
        {
            deadLetters.clear();
            deadLetters.addAll(Spool.read(output.resolve("input.dead.jsonl")));
            for (int p = 0; p < partitions; p++)
            {
                results.addAll(Spool.read(output.resolve("p" + p + ".results.jsonl")));
                deadLetters.addAll(Spool.read(output.resolve("p" + p + ".dead.jsonl")));
            }
        }
        for (final PartitionCollector collector : collectors)
        {
            results.addAll(collector.results());
            deadLetters.addAll(collector.deadLetters());
        }
        // List.sort is stable: lines of one step keep partition order, and each partition's own order
        results.sort(Comparator.comparingLong(StepLine::step));
        deadLetters.sort(Comparator.comparingLong(StepLine::step));
        final List<String> keptErrors;
        synchronized (errors)
        {
            keptErrors = new ArrayList<>(errors);
        }
        final List<List<HotKey>> hotKeys = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++)
        {
            hotKeys.add(engine.hotKeys(p));
        }
        final List<StepLine> expired = new ArrayList<>();
        for (final PartitionCollector collector : collectors)
        {
            expired.addAll(collector.expired());
        }
        expired.sort(Comparator.comparingLong(StepLine::step));
        return new ReplayResult(step, results, deadLetters, errorCount.get(), keptErrors, engine.metrics(), hotKeys)
            .withExpired(expired);
    }

    /**
     * Takes a checkpoint at {@code position} (the last step published), after the previous one has
     * completed (one at a time), once the replay's own dead letters up to it are durable.
     */
    private CompletableFuture<CompletedCheckpoint> checkpoint(
        final JoinEngine engine, final CompletableFuture<CompletedCheckpoint> previous,
        final long position, final List<StepLine> refused, final Spool refusedSpool, final String logRecord) throws IOException
    {
        awaitCheckpoint(previous);
        flushRefused(refused, refusedSpool);
        markRefused(refusedSpool, position, logRecord);
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

    /** The members of the replay's own spool's checkpoint record that say how much of the log it consumed. */
    private static String logRecord(final long bytes, final long crc, final boolean end)
    {
        return ",\"log_bytes\":" + bytes + ",\"log_crc32c\":\"" + String.format(Locale.ROOT, "%08x", crc) +
            "\",\"log_end\":" + end;
    }

    /** Records a checkpoint in the replay's own spool; a failure to write it fails the checkpoint, naming the file. */
    private static void markRefused(final Spool refusedSpool, final long position, final String logRecord)
    {
        try
        {
            refusedSpool.mark(position, logRecord);
        }
        catch (final UncheckedIOException e)
        {
            throw new CheckpointException("checkpoint at step " + position + " failed: " +
                e.getMessage(), e.getCause());
        }
    }

    /**
     * Checks that the event log starts with the bytes the restored checkpoint consumed (and, after a clean
     * close, is exactly them): a resume of another log would mix two runs.
     */
    private static void checkLog(final EventSource source, final Spool.Checked record, final long position)
        throws IOException
    {
        final String bytesText = record.member("log_bytes");
        final String crcText = record.member("log_crc32c");
        if (bytesText == null || crcText == null)
        {
            throw new ResumeRefusedException("the checkpoint record at step " + position + " in the replay's spool names no " +
                "event log (" + record.record() + ")");
        }
        final long bytes = Long.parseLong(bytesText);
        final boolean end = "true".equals(record.member("log_end"));
        final CRC32C crc = new CRC32C();
        long read = 0;
        long total = 0;
        try (InputStream in = source.open())
        {
            final byte[] buffer = new byte[64 * 1024];
            int n;
            while ((n = in.read(buffer)) > 0)
            {
                final int take = (int) Math.min(n, Math.max(0, bytes - read));
                crc.update(buffer, 0, take);
                read += take;
                total += n;
                if (!end && read == bytes)
                {
                    break;
                }
            }
        }
        final String what = "the event log " + source.name();
        if (read < bytes)
        {
            throw new ResumeRefusedException(what + " is shorter (" + total + " bytes) than the " + bytes +
                " bytes the restored checkpoint at step " + position + " consumed: resume with the log the state was built from");
        }
        if (!String.format(Locale.ROOT, "%08x", crc.getValue()).equals(crcText))
        {
            throw new ResumeRefusedException(what + " is not the one the state was built from: its first " + bytes +
                " bytes (what the restored checkpoint at step " + position + " consumed) do not match their recorded " +
                "crc32c " + crcText);
        }
        if (end && total != bytes)
        {
            throw new ResumeRefusedException(what + " has " + total + " bytes, but the state is a clean close after all " +
                bytes + " bytes of the log it was built from (its end of input was applied): lines cannot be added after it");
        }
    }

    /** The file under a durable replay's directory that records what its state was built from. */
    static final String BUILT_WITH = "REPLAY";
    private static final String BUILT_WITH_HEADER = "junction replay state v1";

    /**
     * A new durable replay records what its state is built from (the spec, the rows' fields and the options
     * that change results or the state's layout) in {@code DIR/REPLAY}; a resumed one must match it, before
     * the engine starts, or is refused naming what differs.
     */
    private void builtWith(final JoinSpec spec, final Schema schema) throws IOException
    {
        final Path file = durability.directory().resolve(BUILT_WITH);
        final StateConfig state = config.state();
        final CRC32C names = new CRC32C();
        names.update(schema.toString().getBytes(StandardCharsets.UTF_8));
        final Map<String, String> now = new LinkedHashMap<>();
        // The fields first: the spec's fingerprint covers them too, and they are the likelier cause.
        now.put("the rows' fields (learnt from the event log, or --fields: count/crc32c)", schema.size() + "/" +
            String.format(Locale.ROOT, "%08x", names.getValue()));
        now.put("the join spec (fingerprint)", String.format(Locale.ROOT, "%016x", spec.fingerprint()));
        now.put("--partitions", Integer.toString(config.partitions()));
        now.put("--slot-capacity", Integer.toString(config.slotCapacity()));
        now.put("-D" + EngineConfig.RING_SIZE_PROP_NAME, Integer.toString(config.ringSize()));
        now.put("--max-keys", Long.toString(state.maxKeys()));
        now.put("-D" + StateConfig.INDEX_PROP_NAME, String.valueOf(state.indexKind()));
        now.put("-D" + StateConfig.CHUNK_SIZE_PROP_NAME, Integer.toString(state.chunkSize()));
        now.put("-D" + StateConfig.TICK_SHIFT_PROP_NAME, Integer.toString(state.tickShift()));
        now.put("-D" + StateConfig.WHEEL_SLOTS_PROP_NAME, Integer.toString(state.wheelSlots()));
        now.put("-D" + StateConfig.MAX_KEY_LENGTH_PROP_NAME, Integer.toString(state.maxKeyLength()));
        now.put("-D" + StateConfig.MAX_LIVE_ROWS_PROP_NAME, Long.toString(state.maxLiveRows()));
        now.put("-D" + StateConfig.MAX_BYTES_PROP_NAME, Long.toString(state.maxStateBytes()));
        now.put("-D" + StateConfig.FULL_POLICY_PROP_NAME, String.valueOf(state.fullPolicy()));
        final List<String> lines = new ArrayList<>();
        lines.add(BUILT_WITH_HEADER);
        for (final Map.Entry<String, String> entry : now.entrySet())
        {
            lines.add(entry.getKey() + " = " + entry.getValue());
        }
        final boolean hasState = Files.exists(durability.directory().resolve(STATE));
        if (!durability.resume() || !hasState)
        {
            // Nothing to resume (a new directory, or a run that stopped before its engine started): a new record.
            SmallFiles.write(file, lines);
            return;
        }
        if (Files.notExists(file))
        {
            throw new ResumeRefusedException(file + " is missing: it records what the state in " + durability.directory() +
                " was built from (a directory of an older version, or a deleted file: start again in an empty directory)");
        }
        final List<String> recorded;
        try
        {
            recorded = SmallFiles.read(file);
        }
        catch (final IOException e)
        {
            throw new ResumeRefusedException(file + " is damaged: " + e.getMessage());
        }
        if (recorded.isEmpty() || !recorded.get(0).equals(BUILT_WITH_HEADER))
        {
            throw new ResumeRefusedException(file + " is not a replay's record of its state (" +
                (recorded.isEmpty() ? "empty" : recorded.get(0)) + ")");
        }
        for (int i = 1; i < lines.size(); i++)
        {
            final String line = lines.get(i);
            if (!recorded.contains(line))
            {
                final String name = line.substring(0, line.indexOf(" = "));
                String was = "nothing";
                for (final String old : recorded)
                {
                    if (old.startsWith(name + " = "))
                    {
                        was = old.substring(name.length() + 3);
                    }
                }
                throw new ResumeRefusedException("the state in " + durability.directory() + " was built with " + name + " " +
                    was + ", this run has " + line.substring(name.length() + 3) + " (" + file + "): resume with the " +
                    "options and log it was built with");
            }
        }
    }

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

    /** Makes the replay's own dead letters so far durable in their spool (before a checkpoint covers their steps). */
    private static void flushRefused(final List<StepLine> refused, final Spool refusedSpool) throws IOException
    {
        for (final StepLine line : refused)
        {
            refusedSpool.append(line.json());
        }
        refused.clear();
        refusedSpool.flush();
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

    /** A bound on the wait for one checkpoint: a hang is reported (exit status 4), not waited out for ever. */
    static final long CHECKPOINT_TIMEOUT_MINUTES = 10;

    private static void awaitCheckpoint(
        final CompletableFuture<CompletedCheckpoint> checkpoint) throws IOException
    {
        if (checkpoint == null)
        {
            return;
        }
        try
        {
            checkpoint.get(CHECKPOINT_TIMEOUT_MINUTES, TimeUnit.MINUTES);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while a checkpoint was written", e);
        }
        catch (final ExecutionException e)
        {
            if (e.getCause() instanceof CheckpointException failed)
            {
                // The state could not be checkpointed (a full disk among the causes): its message names the file.
                throw new CheckpointException(failed.getMessage(), failed);
            }
            throw new IOException(e.getCause().getMessage(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new IOException("a checkpoint did not complete within " + CHECKPOINT_TIMEOUT_MINUTES + " minutes", e);
        }
    }

    /** A new durable replay needs an empty directory; a resumed one the directory of the run it resumes. */
    private void prepareDirectory(final Path output) throws IOException
    {
        final Path directory = durability.directory();
        if (!durability.resume() && Files.isDirectory(directory))
        {
            try (Stream<Path> entries = Files.list(directory))
            {
                if (entries.findAny().isPresent())
                {
                    throw new IOException(directory + " holds the state of an earlier replay: resume it (--resume) " +
                        "or give an empty or new directory");
                }
            }
        }
        OwnerOnlyFiles.createDirectories(output);
    }

    private static void closeAll(final List<Spool> spools, final Spool refusedSpool) throws IOException
    {
        for (final Spool spool : spools)
        {
            spool.close();
        }
        if (refusedSpool != null)
        {
            refusedSpool.close();
        }
    }

    private static void publishRow(
        final Publisher publisher, final RowJson codec, final UnsafeBuffer scratch, final ReplayEvent event,
        final long step, final List<StepLine> refused, final StringBuilder sb) throws BadInputException
    {
        final int length = codec.encode(event.row(), scratch, 0, scratch.capacity());
        final int code = length == RowJson.TOO_LARGE
            ? Publisher.ROW_TOO_LARGE
            : event.input() >= 0
            ? publisher.publishInput(event.input(), event.kind(), scratch, 0, length, event.ts(), step, System.nanoTime())
            : publisher.publish(event.side(), event.kind(), scratch, 0, length, event.ts(), step, System.nanoTime());
        switch (code)
        {
            case Publisher.PUBLISHED:
                return;
            case Publisher.ROW_TOO_LARGE:
                refused.add(new StepLine(step, refusedRow(sb, event, step, tooLarge(length))));
                return;
            case Publisher.MALFORMED_ROW:
                refused.add(new StepLine(step, refusedRow(sb, event, step, DeadLetterReason.MALFORMED_ROW.message())));
                return;
            case Publisher.SCHEMA_MISMATCH:
                // The reason's sentence (its code is read from it), then which field and why.
                refused.add(new StepLine(step, refusedRow(sb, event, step,
                    DeadLetterReason.SCHEMA_MISMATCH.message() + ": " + publisher.lastRefusal())));
                return;
            default:
                check(code);
        }
    }

    private static String tooLarge(final int length)
    {
        return DeadLetterReason.ROW_TOO_LARGE.message() + " (row of " +
            (length == RowJson.TOO_LARGE ? "more than " + RowFormat.MAX_ROW_LENGTH : length) + " bytes)";
    }

    private static void check(final int code)
    {
        if (code != Publisher.PUBLISHED)
        {
            throw new IllegalStateException("publisher refused an event with code " + code + " during a replay");
        }
    }

    private static String refusedRow(final StringBuilder sb, final ReplayEvent event, final long step, final String reason)
    {
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(",\"reason\":");
        RowJson.appendString(sb, reason);
        sb.append(",\"code\":\"").append(DeadLetterCodes.ofText(reason)).append('"');
        sb.append(",\"side\":");
        RowJson.appendString(sb, event.sideName());
        sb.append(",\"op\":\"")
            .append(event.kind().shortString()).append("\",\"ts\":").append(event.ts()).append(",\"row\":")
            .append(writeNode(event.row()));
        return sb.append('}').toString();
    }

    private static String badLine(final StringBuilder sb, final long step, final String reason, final String line)
    {
        sb.setLength(0);
        sb.append("{\"step\":").append(step).append(",\"reason\":");
        RowJson.appendString(sb, reason);
        sb.append(",\"code\":\"").append(DeadLetterCodes.ofText(reason)).append('"');
        sb.append(",\"line\":");
        RowJson.appendString(sb, line);
        return sb.append('}').toString();
    }

    private static String writeNode(final JsonNode node)
    {
        try
        {
            return RowJson.mapper().writeValueAsString(node);
        }
        catch (final JsonProcessingException e)
        {
            throw new IllegalStateException("a parsed JSON tree is always writable", e);
        }
    }
}
