package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.internal.durable.KillHookMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import java.util.stream.Stream;

/**
 * Real crash tests: {@code junction replay --state DIR --checkpoint-every N --resume} runs in a child JVM
 * (with the JVM flags this test JVM got from Surefire's argLine) on a long scenario, and is killed with
 * SIGKILL ({@link Process#destroyForcibly()}) again and again, at five kinds of point ({@link Kill}): right
 * after it announces a checkpoint (the barrier and the cut in flight), while a checkpoint's state files are
 * being written and while its manifest is (both held exactly there by {@link KillHookMain}, on whatever
 * thread writes, so the kill lands inside the write), right after it announces its clean close, and after a
 * random time. Each restart resumes from what the last one left; the final output (results and dead
 * letters, which carry their step and are de-duplicated by it) must equal an uninterrupted in-memory run's
 * exactly, as a multiset of lines per step (the order within a step is free, SEMANTICS 1).
 *
 * <p>Every join kind: regular left join with retractions, interval left outer join, tumbling-window join,
 * session-window co-group, eager ASOF join, temporal left join over a versioned table (-U/+U/-D),
 * lookup left join (and refused left retractions), and the 4-input multi-way join (SEMANTICS 10: left and inner
 * inputs, -U/+U/-D on every input, a stateTtl input); each with 1 partition (1 kill) and N (4 for the
 * regular and the multi-way join, 2 for the others; 2 kills): 24 per run ({@value #MIN_KILLS} at least). Each scenario's uninterrupted output is
 * checked to be long and to hold padded or retraction lines, so that the test cannot pass on nothing. A
 * child that ends before its kill point (exit 0: a clean close, nothing left to resume) has its state wiped
 * and the run starts over. Two runs go at once ({@code -Djunction.kill.parallel=N}).
 *
 * <p>The held writes depend on one seam of the checkpoint code, {@code CheckpointStore.writeFault}: called
 * on the writing thread before each write of a checkpoint's files, the manifest ({@code MANIFEST*}) last.
 * Should a checkpoint's files be written without it, the held kills never land and the test says so.
 *
 * <p>Seeded ({@code -Djunction.kill.seed=N}); a failure names the seed, the kind, the partitions and the kills.
 * {@code -Djunction.kill.kinds=multi,lookup} runs only those kinds (to chase a failure).
 */
@Timeout(600)
class DurableKillTest
{
    private static final long SEED = Long.getLong("junction.kill.seed", 0xC4A5L);
    /** Every kind that has durable state; each runs with 1 partition and with N. */
    static final String[] KINDS = {"regular", "interval", "window", "session", "asof", "temporal", "multi", "lookup", "expand"};
    private static final int MIN_KILLS = 20;
    private static final int EVENTS = 1_200;
    private static final int CHECKPOINT_EVERY = 300;
    private static final long CHILD_TIMEOUT_SECONDS = 120;
    /** Runs (a kind at a partition count) at once ({@code -Djunction.kill.parallel=N}). */
    private static final int PARALLEL = Integer.getInteger("junction.kill.parallel", 2);
    /** Smaller arena chunks than the default 4 MiB: less to copy per checkpoint, and the arena grows across kills. */
    private static final String CHUNK_SIZE = "-Djunction.state.chunkSize=65536";

    /** Where a child is killed. */
    enum Kill
    {
        /**
         * After the child's "checkpoint at step" line (its second, when the state holds no complete checkpoint
         * yet): the barrier, the cut or the write in flight.
         */
        CUT,
        /** Holding the first write of a state file of a checkpoint (the child's second when none is complete yet). */
        WRITE,
        /** Holding the write of one partition's manifest of a checkpoint (as {@link #WRITE} picks it). */
        MANIFEST,
        /** After "closing at step": the clean close's checkpoint in flight. */
        CLOSE,
        /** After a random time. */
        RANDOM
    }

    @TempDir
    Path tmp;

    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger restores = new AtomicInteger();
    private static final AtomicInteger CHILDREN = new AtomicInteger();

    @Test
    void killedReplaysResumeToTheOutputOfAnUninterruptedRun() throws Exception
    {
        final Random random = new Random(SEED);
        final long start = System.nanoTime();
        // Every run's scenario, seed and first kill are drawn here, in order: the same seed, the same runs
        // (the random kills' moments aside), however many run at once.
        final List<Callable<String>> runs = new ArrayList<>();
        int firstKill = 0;
        final List<String> only = List.of(System.getProperty("junction.kill.kinds", String.join(",", KINDS)).split(","));
        for (int k = 0; k < KINDS.length; k++)
        {
            final String kind = KINDS[k];
            if (!only.contains(kind))
            {
                continue;
            }
            final Path spec = tmp.resolve(kind + ".join.json");
            final Path events = tmp.resolve(kind + ".events.jsonl");
            Files.writeString(spec, spec(kind));
            Files.write(events, events(kind, new Random(random.nextLong()), EVENTS));
            // N = 4 for the regular and the multi-way join, 2 for the others: each partition's checkpoint is fsyncs.
            for (final int partitions : new int[] {1, kind.equals("regular") || kind.equals("multi") ? 4 : 2})
            {
                final int killsWanted = partitions == 1 ? 1 : 2;
                final long runSeed = random.nextLong();
                final int first = firstKill;
                firstKill += killsWanted;
                runs.add(() -> killAndResume(kind, spec, events, partitions, killsWanted, first, new Random(runSeed)));
            }
        }
        // Two runs at once: a child mostly waits for its fsyncs.
        final ExecutorService pool = Executors.newFixedThreadPool(PARALLEL);
        try
        {
            final List<Future<String>> done = pool.invokeAll(runs);
            for (final Future<String> run : done)
            {
                try
                {
                    System.out.println("durable kill test: " + run.get());
                }
                catch (final ExecutionException e)
                {
                    if (e.getCause() instanceof Error)
                    {
                        throw (Error) e.getCause();
                    }
                    throw e;
                }
            }
        }
        finally
        {
            pool.shutdownNow();
        }
        assertTrue(kills.get() >= (only.size() == KINDS.length ? MIN_KILLS : 1), "SIGKILLs that landed: " + kills);
        System.out.printf("durable kill test: seed %d, %d kinds, %d kills, %d child JVMs, %d restores from a checkpoint, %d s%n",
            SEED, KINDS.length, kills.get(), CHILDREN.get(), restores.get(),
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
    }

    static String spec(final String kind)
    {
        switch (kind)
        {
            case "regular":
                return "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
            case "expand":
                // docs/SEMANTICS.md 12: left rows carry arrays of keys, unnested before the join; their stored
                // made rows (arrays kept) and their retractions cross every kill.
                return "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],"
                    + "\"leftExpand\":{\"unnest\":\"ks\",\"as\":\"k\",\"ordinality\":\"pos\",\"outer\":true}}";
            case "interval":
                return "{\"join\":\"interval\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],"
                    + "\"interval\":{\"lower\":-20,\"upper\":20,\"lowerInclusive\":true,\"upperInclusive\":true}}";
            case "asof":
                // Eager: its -U/+U corrections and its waiting left rows cross every kill.
                return "{\"join\":\"asof\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],"
                    + "\"asof\":{\"direction\":\"backward\",\"tolerance\":40,\"emit\":\"eager\"}}";
            case "temporal":
            case "lookup":
                // The right rows are versions of a table keyed by k (+I, then -U/+U or -D of the current version).
                return "{\"join\":\"" + kind + "\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
            case "session":
                // Open sessions (merged as rows arrive, fired by the watermark) cross every kill.
                return "{\"join\":\"window\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],"
                    + "\"window\":{\"kind\":\"session\",\"gap\":30},\"coGroup\":\"first\"}";
            case "multi":
                // SEMANTICS 10: ((orders LEFT payments) JOIN shipments) LEFT refunds, refunds expiring by stateTtl.
                return "{\"join\":\"multi\",\"inputs\":[{\"name\":\"orders\",\"key\":[\"id\"]},"
                    + "{\"name\":\"payments\",\"key\":[\"order_id\"],\"type\":\"left\"},"
                    + "{\"name\":\"shipments\",\"key\":[\"order_id\"],\"type\":\"inner\"},"
                    + "{\"name\":\"refunds\",\"key\":[\"order_id\"],\"type\":\"left\",\"stateTtl\":" + MULTI_TTL + "}]}";
            default:
                return "{\"join\":\"window\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],"
                    + "\"window\":{\"kind\":\"tumbling\",\"size\":100,\"offset\":0}}";
        }
    }

    /** What the uninterrupted output of a kind's scenario must hold besides many lines: padded rows or retractions. */
    static List<String> mustHold(final String kind)
    {
        switch (kind)
        {
            case "regular":
            case "expand":
                return List.of("\"op\":\"-D\"", "\"right\":null");
            case "asof":
                return List.of("\"op\":\"-U\"", "\"right\":null");
            case "multi":
                return List.of("\"op\":\"-D\"", "\"payments\":null", "\"refunds\":null", "\"refunds\":{");
            case "window":
                return List.of("\"window\":[");
            default:
                return List.of("\"right\":null", "\"right\":{");
        }
    }

    private static final int KEYS = 60;
    private static final int MULTI_TTL = 150;
    private static final String[] MULTI_INPUTS = {"orders", "payments", "shipments", "refunds"};

    /** As {@link #events(String, Random, int)}, of 3,000 lines or more (other tests take their first 3,000). */
    static List<String> events(final String kind, final Random random)
    {
        return events(kind, random, 3_000);
    }

    /**
     * A long scenario for a kind: rising event time and watermarks, and retractions where the kind takes them.
     *
     * @param count the events drawn (an update is two lines: the scenario may be longer)
     */
    static List<String> events(final String kind, final Random random, final int count)
    {
        switch (kind)
        {
            case "regular":
                return regularEvents(random, count, false);
            case "expand":
                return regularEvents(random, count, true);
            case "temporal":
            case "lookup":
                return tableEvents(kind.equals("temporal"), random, count);
            case "multi":
                return multiEvents(random, count);
            default:
                return timedEvents(random, count);
        }
    }

    /** Rows on 200 keys, a fifth of them retractions of earlier rows; with {@code arrays}, left rows hold 0-3 keys. */
    private static List<String> regularEvents(final Random random, final int count, final boolean arrays)
    {
        final List<String> lines = new ArrayList<>(count);
        final List<List<String>> live = List.of(new ArrayList<>(), new ArrayList<>());
        for (int i = 0; i < count; i++)
        {
            final int side = random.nextInt(2);
            final String sideName = side == 0 ? "left" : "right";
            final List<String> rows = live.get(side);
            if (!rows.isEmpty() && random.nextInt(5) == 0)
            {
                final String row = rows.remove(random.nextInt(rows.size()));
                lines.add("{\"side\":\"" + sideName + "\",\"op\":\"-D\",\"row\":" + row + "}");
            }
            else
            {
                final String row = arrays && side == 0
                    ? "{\"ks\":" + keys(random) + ",\"id\":" + i + "}"
                    : "{\"k\":" + random.nextInt(200) + ",\"id\":" + i + "}";
                rows.add(row);
                lines.add("{\"side\":\"" + sideName + "\",\"row\":" + row + "}");
            }
        }
        return lines;
    }

    private static String keys(final Random random)
    {
        final StringBuilder ks = new StringBuilder("[");
        for (int n = random.nextInt(4), j = 0; j < n; j++)
        {
            ks.append(j > 0 ? "," : "").append(random.nextInt(200));
        }
        return ks.append(']').toString();
    }

    /** Appends: rows on {@link #KEYS} keys, event time rising with a little disorder, a watermark every 50 lines. */
    private static List<String> timedEvents(final Random random, final int count)
    {
        final List<String> lines = new ArrayList<>(count);
        long ts = 1000;
        for (int i = 0; i < count; i++)
        {
            ts += random.nextInt(4);
            if (i % 50 == 49)
            {
                lines.add("{\"watermark\":" + (ts - 30) + "}");
                continue;
            }
            lines.add("{\"side\":\"" + (random.nextBoolean() ? "left" : "right") + "\",\"ts\":" + (ts - random.nextInt(6))
                + ",\"row\":{\"k\":" + random.nextInt(KEYS) + ",\"id\":" + i + "}}");
        }
        return lines;
    }

    /**
     * A versioned right table on 50 keys (+I of a new key, then -U/+U pairs or a -D of its current version) and
     * left rows on {@link #KEYS} keys (the last ten never in the table); the temporal one with rising event time
     * and watermarks, the lookup one with a few left retractions (refused: it is append-only on the left).
     */
    private static List<String> tableEvents(final boolean temporal, final Random random, final int count)
    {
        final List<String> lines = new ArrayList<>(count + count / 4);
        final String[] version = new String[KEYS];
        final List<String> lefts = new ArrayList<>();
        long ts = 1000;
        for (int i = 0; i < count; i++)
        {
            ts += random.nextInt(4);
            final String at = temporal ? ",\"ts\":" + ts : "";
            if (temporal && i % 50 == 49)
            {
                lines.add("{\"watermark\":" + (ts - 30) + "}");
                continue;
            }
            if (random.nextInt(100) < 35)
            {
                final int k = random.nextInt(KEYS - 10);
                final String row = "{\"k\":" + k + ",\"v\":" + i + "}";
                if (version[k] == null)
                {
                    lines.add("{\"side\":\"right\",\"op\":\"+I\"" + at + ",\"row\":" + row + "}");
                    version[k] = row;
                }
                else if (random.nextInt(4) == 0)
                {
                    lines.add("{\"side\":\"right\",\"op\":\"-D\"" + at + ",\"row\":" + version[k] + "}");
                    version[k] = null;
                }
                else
                {
                    lines.add("{\"side\":\"right\",\"op\":\"-U\"" + at + ",\"row\":" + version[k] + "}");
                    lines.add("{\"side\":\"right\",\"op\":\"+U\"" + at + ",\"row\":" + row + "}");
                    version[k] = row;
                }
            }
            else if (!temporal && !lefts.isEmpty() && random.nextInt(40) == 0)
            {
                lines.add("{\"side\":\"left\",\"op\":\"-D\",\"row\":" + lefts.remove(random.nextInt(lefts.size())) + "}");
            }
            else
            {
                final String row = "{\"k\":" + random.nextInt(KEYS) + ",\"id\":" + i + "}";
                lefts.add(row);
                lines.add("{\"side\":\"left\"" + (temporal ? ",\"ts\":" + (ts - random.nextInt(6)) : "") + ",\"row\":" + row + "}");
            }
        }
        return lines;
    }

    /**
     * Orders, payments, shipments and refunds on {@link #KEYS} order ids, at most two live rows per input and
     * id: inserts, -U/+U updates and -D deletes on every input, event time rising and a watermark every 50
     * lines; refunds expire by stateTtl, and only rows that cannot have expired are retracted.
     */
    private static List<String> multiEvents(final Random random, final int count)
    {
        final List<String> lines = new ArrayList<>(count + count / 4);
        final List<List<List<String>>> live = new ArrayList<>();
        final List<List<List<Long>>> born = new ArrayList<>();
        for (int input = 0; input < MULTI_INPUTS.length; input++)
        {
            final List<List<String>> rows = new ArrayList<>();
            final List<List<Long>> times = new ArrayList<>();
            for (int k = 0; k < KEYS; k++)
            {
                rows.add(new ArrayList<>());
                times.add(new ArrayList<>());
            }
            live.add(rows);
            born.add(times);
        }
        final String[] keyName = {"id", "order_id", "order_id", "order_id"};
        final String[] field = {"amt", "pid", "sh", "rf"};
        long ts = 1000;
        for (int i = 0; i < count; i++)
        {
            ts += random.nextInt(3);
            if (i % 50 == 49)
            {
                lines.add("{\"watermark\":" + (ts - 30) + "}");
                continue;
            }
            final int input = random.nextInt(MULTI_INPUTS.length);
            final int k = random.nextInt(KEYS);
            final List<String> rows = live.get(input).get(k);
            final List<Long> times = born.get(input).get(k);
            if (input == 3)
            {
                // refunds: a row old enough to have expired has left the input; it is never retracted
                for (int r = rows.size() - 1; r >= 0; r--)
                {
                    if (times.get(r) < ts - MULTI_TTL + 50)
                    {
                        rows.remove(r);
                        times.remove(r);
                    }
                }
            }
            final String name = "{\"side\":\"" + MULTI_INPUTS[input] + "\"";
            final String row = "{\"" + keyName[input] + "\":" + k + ",\"" + field[input] + "\":" + i + "}";
            final int choice = random.nextInt(10);
            if (rows.isEmpty() || (rows.size() < 2 && choice < 4))
            {
                lines.add(name + ",\"op\":\"+I\",\"ts\":" + ts + ",\"row\":" + row + "}");
                rows.add(row);
                times.add(ts);
            }
            else
            {
                final int r = random.nextInt(rows.size());
                final String old = rows.get(r);
                if (choice < 7)
                {
                    lines.add(name + ",\"op\":\"-U\",\"ts\":" + times.get(r) + ",\"row\":" + old + "}");
                    lines.add(name + ",\"op\":\"+U\",\"ts\":" + ts + ",\"row\":" + row + "}");
                    rows.set(r, row);
                    times.set(r, ts);
                }
                else
                {
                    lines.add(name + ",\"op\":\"-D\",\"ts\":" + times.get(r) + ",\"row\":" + old + "}");
                    rows.remove(r);
                    times.remove(r);
                }
            }
        }
        return lines;
    }

    /** @return what the run did, for the log. */
    private String killAndResume(final String kind, final Path spec, final Path events, final int partitions,
        final int killsWanted, final int firstKill, final Random random) throws Exception
    {
        final String config = "seed " + SEED + ", " + kind + " join, " + partitions + " partition(s)";
        final ReplayResult expected = new Replay(Replay.config(partitions)).run(spec, events);
        assertEquals(0, expected.errorCount(), expected.errors().toString());
        assertTrue(expected.results().size() >= 200, "the scenario's output is too short to test anything: "
            + expected.results().size() + " lines, " + config);
        final StringBuilder all = new StringBuilder();
        for (final StepLine line : expected.results())
        {
            all.append(line.json()).append('\n');
        }
        for (final String text : mustHold(kind))
        {
            assertTrue(all.indexOf(text) >= 0, "the scenario's output has no line with " + text + ": " + config);
        }
        final Path state = tmp.resolve(kind + "-" + partitions + "-state");
        final Path out = tmp.resolve(kind + "-" + partitions + ".out.jsonl");
        final Path dead = tmp.resolve(kind + "-" + partitions + ".dead.jsonl");
        final List<String> history = new ArrayList<>();
        int landed = 0;
        int restored = 0;
        // Whether the state holds a complete checkpoint (a restart restores one): then a kill may come at the
        // child's first checkpoint, else it comes at its second, once the first is whole.
        boolean checkpointed = false;
        final int maxAttempts = 4 * killsWanted + 4;
        for (int attempt = 0; landed < killsWanted && attempt < maxAttempts; attempt++)
        {
            Kill kill = Kill.values()[(firstKill + attempt) % Kill.values().length];
            if (kill == Kill.RANDOM && landed == killsWanted - 1 && !checkpointed)
            {
                // The last kill of a run lands after a complete checkpoint, so that a restart restores one.
                kill = Kill.CUT;
            }
            else if (kill == Kill.CLOSE && landed < killsWanted - 1)
            {
                // A kill at the close leaves nothing but the close to do: it comes last.
                kill = Kill.WRITE;
            }
            final String where = config + ", kill " + (landed + 1) + " of " + killsWanted + " (" + kill + "), attempt " + attempt;
            // The first write of a state file of the child's first (or, once whole, second) checkpoint, or one
            // partition's manifest of it (KillHookMain counts manifests over all partitions).
            final int before = checkpointed ? 0 : partitions;
            final String hold = kill == Kill.WRITE ? "(?!MANIFEST).*:" + before + ":1"
                : kill == Kill.MANIFEST ? "MANIFEST.*:0:" + (before + 1 + random.nextInt(partitions)) : null;
            final Child child = new Child(spec, events, state, out, dead, partitions, hold);
            if (child.awaitLine("junction replay: ", 1) && child.startLine.contains(" from checkpoint "))
            {
                restored++;
            }
            final boolean triggered;
            switch (kill)
            {
                case CUT:
                    // The line is printed as the checkpoint is asked for (the one before it complete).
                    triggered = child.awaitLine("checkpoint at step", checkpointed ? 1 : 2);
                    break;
                case WRITE:
                case MANIFEST:
                    triggered = child.awaitLine(KillHookMain.BLOCKED, 1);
                    break;
                case CLOSE:
                    // During the clean close (or the last checkpoint's wait before it).
                    triggered = child.awaitLine("closing at step", 1);
                    break;
                default:
                    triggered = !child.process.waitFor(random.nextInt(800), TimeUnit.MILLISECONDS);
                    break;
            }
            if (triggered && child.process.isAlive())
            {
                child.process.destroyForcibly();
            }
            assertTrue(child.process.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "child did not end: " + where);
            final int exit = child.process.exitValue();
            // 137: the SIGKILL (128 + 9); 0: it completed before the kill landed. Anything else is a failure.
            if (exit != 0 && exit != 137)
            {
                throw new AssertionError("child failed with " + exit + ": " + where + "\n" + child.stderr());
            }
            final String text = child.stderr();
            final int announced = text.split("checkpoint at step", -1).length - 1;
            // A checkpoint announced is complete once the next is announced or the close is (one at a time).
            checkpointed |= text.contains(" from checkpoint ") || announced >= 2 || (announced == 1 && text.contains("closing at step"));
            if (exit == 137)
            {
                landed++;
                kills.incrementAndGet();
                final String held = child.held();
                history.add(kill + (held.isEmpty() ? "" : " of " + state.relativize(Paths.get(held))) + " ("
                    + child.startLine.replace("junction replay: ", "") + ")");
            }
            else
            {
                // It ran to its clean close: a resume would have nothing left to do. Start the run again.
                history.add(kill + " missed (exit 0), state wiped");
                checkpointed = false;
                deleteTree(state);
                Files.deleteIfExists(out);
                Files.deleteIfExists(dead);
            }
        }
        assertEquals(killsWanted, landed, () -> "kills that landed, " + config + " (a held write that never came means "
            + "the checkpoint code no longer calls CheckpointStore.writeFault before each write of a checkpoint's "
            + "files): " + history);
        final Child last = new Child(spec, events, state, out, dead, partitions, null);
        assertTrue(last.process.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the last run did not end: " + config);
        assertEquals(0, last.process.exitValue(), () -> "the last run failed: " + config + "\n" + last.stderr());
        final String where = config + ", kills " + history;
        if (last.stderr().contains(" from checkpoint "))
        {
            restored++;
        }
        // Output equal to an uninterrupted run's would also come from recoveries that always start over:
        // some restarts must have resumed from a checkpoint ("resuming after step N from checkpoint K").
        assertTrue(restored >= 1, "restarts that restored a checkpoint: " + restored + ", " + where);
        restores.addAndGet(restored);
        assertEquals(sorted(expected.results()), sorted(Spool.read(out)), "results after the kills: " + where);
        assertEquals(sorted(expected.deadLetters()), sorted(Spool.read(dead)), "dead letters after the kills: " + where);
        return where;
    }

    private static void deleteTree(final Path root) throws IOException
    {
        if (!Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            final List<Path> all = new ArrayList<>();
            paths.forEach(all::add);
            all.sort(Comparator.reverseOrder());
            for (final Path path : all)
            {
                Files.delete(path);
            }
        }
    }

    /** Lines per step as a multiset: ordered by step, then text. */
    private static List<String> sorted(final List<StepLine> lines)
    {
        final List<StepLine> copy = new ArrayList<>(lines);
        copy.sort(Comparator.comparingLong(StepLine::step).thenComparing(StepLine::json));
        final List<String> texts = new ArrayList<>(copy.size());
        for (final StepLine line : copy)
        {
            texts.add(line.json());
        }
        return texts;
    }

    /** A {@code junction replay --state ... --resume --progress} in a child JVM, its stderr read line by line. */
    private static final class Child
    {
        final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuffer stderr = new StringBuffer();
        /** The replay's first progress line: "starting at step 0" or "resuming after step N ..."; set before it is queued. */
        volatile String startLine = "";

        Child(final Path spec, final Path events, final Path state, final Path out, final Path dead, final int partitions,
            final String hold) throws IOException
        {
            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            // A short-lived child on a shared CI machine: start fast rather than peak.
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-XX:+UseSerialGC");
            command.add("-Xshare:auto");
            command.add(CHUNK_SIZE);
            if (hold != null)
            {
                command.add("-D" + KillHookMain.BLOCK_PROP_NAME + "=" + hold);
            }
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(KillHookMain.class.getName());
            command.add("replay");
            command.add(spec.toString());
            command.add(events.toString());
            command.add("--partitions=" + partitions);
            command.add("--max-keys=1024");
            command.add("--state=" + state);
            command.add("--checkpoint-every=" + CHECKPOINT_EVERY);
            command.add("--resume");
            command.add("--progress");
            command.add("--out=" + out);
            command.add("--dead-letter=" + dead);
            CHILDREN.incrementAndGet();
            process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            final Thread reader = new Thread(() ->
            {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8)))
                {
                    String line;
                    while ((line = in.readLine()) != null)
                    {
                        stderr.append(line).append('\n');
                        if (startLine.isEmpty() && line.startsWith("junction replay: "))
                        {
                            startLine = line;
                        }
                        lines.add(line);
                    }
                }
                catch (final IOException e)
                {
                    // the child was killed: its stream ends
                }
                lines.add("");
                lines.add("<end>");
            }, "kill-test-stderr");
            reader.setDaemon(true);
            reader.start();
        }

        /** @return whether the {@code count}-th line containing {@code text} came before the child ended. */
        boolean awaitLine(final String text, final int count) throws InterruptedException
        {
            int seen = 0;
            while (true)
            {
                final String line = lines.poll(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (line == null || line.equals("<end>"))
                {
                    return false;
                }
                if (line.contains(text) && ++seen == count)
                {
                    return true;
                }
            }
        }

        String stderr()
        {
            return stderr.toString();
        }

        /** @return the file whose write was held, as the child named it. */
        String held()
        {
            final String text = stderr.toString();
            final int at = text.indexOf(KillHookMain.BLOCKED);
            return at < 0 ? "" : text.substring(at + KillHookMain.BLOCKED.length(), Math.max(at, text.indexOf('\n', at)));
        }

    }
}
