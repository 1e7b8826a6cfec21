package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real crash tests: {@code junction replay --state DIR --checkpoint-every N --resume} runs in a child JVM
 * (with the JVM flags this test JVM got from Surefire's argLine) on a long scenario, and is killed with
 * SIGKILL ({@link Process#destroyForcibly()}) again and again: right after it announces a checkpoint (so
 * during the checkpoint's copy), right after it announces its clean close, and after a random time. Each
 * restart resumes from what the last one left; the final output (results and dead letters, which carry
 * their step and are de-duplicated by it) must equal an uninterrupted in-memory run's exactly, as a
 * multiset of lines per step (the order within a step is free, SPEC 1). Regular join with retractions,
 * interval left outer join, tumbling-window join and eager ASOF join, with 1 and 4 partitions: 4 kills each, 32 per run.
 *
 * <p>Seeded ({@code -Djunction.kill.seed=N}); a failure names the seed, the scenario and the kill.
 */
@Timeout(600)
class DurableKillTest {
    private static final long SEED = Long.getLong("junction.kill.seed", 0xC4A5L);
    private static final int KILLS_PER_RUN = 4;
    private static final int EVENTS = 3_000;
    private static final int MAX_ATTEMPTS = 12;
    private static final int CHECKPOINT_EVERY = 300;
    private static final long CHILD_TIMEOUT_SECONDS = 120;

    @TempDir
    Path tmp;

    private int kills;
    private int restores;
    private static int children;

    @Test
    void killedReplaysResumeToTheOutputOfAnUninterruptedRun() throws Exception {
        final Random random = new Random(SEED);
        final String[] kinds = {"regular", "interval", "window", "asof"};
        for (final String kind : kinds) {
            final Path spec = tmp.resolve(kind + ".join.json");
            final Path events = tmp.resolve(kind + ".events.jsonl");
            Files.writeString(spec, spec(kind));
            Files.write(events, events(kind, new Random(random.nextLong())));
            for (final int partitions : new int[] {1, 4}) {
                killAndResume(kind, spec, events, partitions, random);
            }
        }
        assertTrue(kills >= 20, "SIGKILLs that landed: " + kills);
        System.out.printf("durable kill test: seed %d, %d kills, %d child JVMs, %d restores from a checkpoint%n", SEED, kills,
            children, restores);
    }

    static String spec(final String kind) {
        switch (kind) {
            case "regular":
                return "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
            case "interval":
                return "{\"join\":\"interval\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],"
                    + "\"interval\":{\"lower\":-20,\"upper\":20,\"lowerInclusive\":true,\"upperInclusive\":true}}";
            case "asof":
                // Eager: its -U/+U corrections and its waiting left rows cross every kill.
                return "{\"join\":\"asof\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],"
                    + "\"asof\":{\"direction\":\"backward\",\"tolerance\":40,\"emit\":\"eager\"}}";
            case "temporal":
            case "lookup":
                // The right rows are versions of a table keyed by k (each +I a new version of its key).
                return "{\"join\":\"" + kind + "\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
            default:
                return "{\"join\":\"window\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],"
                    + "\"window\":{\"kind\":\"tumbling\",\"size\":50,\"offset\":0}}";
        }
    }

    /** A long scenario: rows on 200 keys; retractions of earlier rows (regular); rising event time and watermarks. */
    static List<String> events(final String kind, final Random random) {
        final List<String> lines = new ArrayList<>(EVENTS);
        final List<List<String>> live = List.of(new ArrayList<>(), new ArrayList<>());
        long ts = 1000;
        for (int i = 0; i < EVENTS; i++) {
            final int side = random.nextInt(2);
            final String sideName = side == 0 ? "left" : "right";
            if (kind.equals("regular")) {
                final List<String> rows = live.get(side);
                if (!rows.isEmpty() && random.nextInt(5) == 0) {
                    final String row = rows.remove(random.nextInt(rows.size()));
                    lines.add("{\"side\":\"" + sideName + "\",\"op\":\"-D\",\"row\":" + row + "}");
                } else {
                    final String row = "{\"k\":" + random.nextInt(200) + ",\"id\":" + i + "}";
                    rows.add(row);
                    lines.add("{\"side\":\"" + sideName + "\",\"row\":" + row + "}");
                }
                continue;
            }
            ts += random.nextInt(4);
            if (i % 50 == 49) {
                lines.add("{\"watermark\":" + (ts - 30) + "}");
                continue;
            }
            lines.add("{\"side\":\"" + sideName + "\",\"ts\":" + (ts - random.nextInt(6)) + ",\"row\":{\"k\":"
                + random.nextInt(200) + ",\"id\":" + i + "}}");
        }
        return lines;
    }

    private void killAndResume(final String kind, final Path spec, final Path events, final int partitions,
        final Random random) throws Exception {
        final ReplayResult expected = new Replay(Replay.config(partitions)).run(spec, events);
        assertEquals(0, expected.errorCount(), expected.errors().toString());
        final Path state = tmp.resolve(kind + "-" + partitions + "-state");
        final Path out = tmp.resolve(kind + "-" + partitions + ".out.jsonl");
        final Path dead = tmp.resolve(kind + "-" + partitions + ".dead.jsonl");
        int landed = 0;
        int restored = 0;
        for (int attempt = 0; landed < KILLS_PER_RUN && attempt < MAX_ATTEMPTS; attempt++) {
            final String where = "seed " + SEED + ", " + kind + " join, " + partitions + " partition(s), attempt " + attempt;
            final Child child = new Child(spec, events, state, out, dead, partitions);
            if (child.awaitLine("junction replay: ", 1) && child.startLine.contains(" from checkpoint ")) {
                restored++;
            }
            final boolean triggered;
            switch (attempt % 3) {
                case 0:
                    // During a checkpoint: the line is printed as the checkpoint starts; it runs while we kill.
                    triggered = child.awaitLine("checkpoint at step", 1 + random.nextInt(2));
                    break;
                case 1:
                    // During the clean close (or the last checkpoint's wait before it).
                    triggered = child.awaitLine("closing at step", 1);
                    break;
                default:
                    // At a random point of the run.
                    triggered = child.awaitLine("junction replay: ", 1)
                        && !child.process.waitFor(random.nextInt(600), TimeUnit.MILLISECONDS);
                    break;
            }
            if (triggered && child.process.isAlive()) {
                child.process.destroyForcibly();
            }
            assertTrue(child.process.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "child did not end: " + where);
            final int exit = child.process.exitValue();
            // 137: the SIGKILL (128 + 9); 0: it completed before the kill landed. Anything else is a failure.
            if (exit != 0 && exit != 137) {
                throw new AssertionError("child failed with " + exit + ": " + where + "\n" + child.stderr());
            }
            if (exit == 137) {
                landed++;
                kills++;
            }
        }
        assertEquals(KILLS_PER_RUN, landed, "kills that landed, " + kind + " join, " + partitions + " partition(s)");
        final Child last = new Child(spec, events, state, out, dead, partitions);
        assertTrue(last.process.waitFor(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS), "the last run did not end");
        assertEquals(0, last.process.exitValue(), () -> "the last run failed: " + last.stderr());
        final String where = "seed " + SEED + ", " + kind + " join, " + partitions + " partition(s)";
        if (last.stderr().contains(" from checkpoint ")) {
            restored++;
        }
        // Output equal to an uninterrupted run's would also come from recoveries that always start over:
        // some restarts must have resumed from a checkpoint ("resuming after step N from checkpoint K").
        assertTrue(restored >= 1, "restarts that restored a checkpoint: " + restored + ", " + where);
        restores += restored;
        assertEquals(sorted(expected.results()), sorted(Spool.read(out)), "results after the kills: " + where);
        assertEquals(sorted(expected.deadLetters()), sorted(Spool.read(dead)), "dead letters after the kills: " + where);
        assertTrue(!expected.results().isEmpty(), "the scenario has output");
    }

    /** Lines per step as a multiset: ordered by step, then text. */
    private static List<String> sorted(final List<StepLine> lines) {
        final List<StepLine> copy = new ArrayList<>(lines);
        copy.sort(Comparator.comparingLong(StepLine::step).thenComparing(StepLine::json));
        final List<String> texts = new ArrayList<>(copy.size());
        for (final StepLine line : copy) {
            texts.add(line.json());
        }
        return texts;
    }

    /** A {@code junction replay --state ... --resume --progress} in a child JVM, its stderr read line by line. */
    private static final class Child {
        final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuffer stderr = new StringBuffer();
        /** The replay's first progress line: "starting at step 0" or "resuming after step N ..."; set before it is queued. */
        volatile String startLine = "";

        Child(final Path spec, final Path events, final Path state, final Path out, final Path dead, final int partitions)
            throws IOException {
            final List<String> command = new ArrayList<>();
            command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            // A short-lived child on a shared CI machine: start fast rather than peak.
            command.add("-XX:TieredStopAtLevel=1");
            command.add("-XX:+UseSerialGC");
            command.add("-Xshare:auto");
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add("io.junction.tools.JunctionCli");
            command.add("replay");
            command.add(spec.toString());
            command.add(events.toString());
            command.add("--partitions=" + partitions);
            command.add("--max-keys=4096");
            command.add("--state=" + state);
            command.add("--checkpoint-every=" + CHECKPOINT_EVERY);
            command.add("--resume");
            command.add("--progress");
            command.add("--out=" + out);
            command.add("--dead-letter=" + dead);
            children++;
            process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            final Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        stderr.append(line).append('\n');
                        if (startLine.isEmpty() && line.startsWith("junction replay: ")) {
                            startLine = line;
                        }
                        lines.add(line);
                    }
                } catch (final IOException e) {
                    // the child was killed: its stream ends
                }
                lines.add("");
                lines.add("<end>");
            }, "kill-test-stderr");
            reader.setDaemon(true);
            reader.start();
        }

        /** @return whether the {@code count}-th line containing {@code text} came before the child ended. */
        boolean awaitLine(final String text, final int count) throws InterruptedException {
            int seen = 0;
            while (true) {
                final String line = lines.poll(CHILD_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (line == null || line.equals("<end>")) {
                    return false;
                }
                if (line.contains(text) && ++seen == count) {
                    return true;
                }
            }
        }

        String stderr() {
            return stderr.toString();
        }

    }
}
