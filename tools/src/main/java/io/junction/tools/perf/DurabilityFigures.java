package io.junction.tools.perf;

import io.junction.api.JoinType;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import io.junction.runtime.CompletedCheckpoint;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.Workload;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.Set;

/**
 * What durability costs on a big state, in one run: a workload is published at max rate into a durable
 * engine up to a cut (by default the middle of the tape, where W1-big's state is near its peak), then
 * <ol>
 *   <li>a first checkpoint (every chunk is new: the full copy), its time and bytes;</li>
 *   <li>1% more events, then a second checkpoint (only the changed chunks are written), and 10% more, then a
 *       third: each line gives the share of the state's bytes the checkpoint wrote (what changed), the
 *       partition's pause (the cut), the background write and the time until the checkpoint completed;</li>
 *   <li>a clean close, and a new engine reopening the state as it is (no copy): the start time;</li>
 *   <li>a close without positions (as after a crash: no clean-close record), and a new engine that
 *       restores the newest checkpoint: the start time, and that the restored positions are right;</li>
 *   <li>a take-over ({@link #takeOver}): two partitions with the default key index (1M keys) taken over
 *       from a shared checkpoint root by an engine whose state is empty, as a Kafka member does when it is
 *       given them, then taken over again over the state it holds.</li>
 * </ol>
 */
public final class DurabilityFigures
{
    private DurabilityFigures()
    {
    }

    /**
     * Runs the measurement and prints its lines.
     *
     * @param workload   the workload (W1, W1-big)
     * @param type       the join type
     * @param partitions partitions
     * @param cutEvents  events published before the first checkpoint; 0 = half the tape
     * @param root       the state root (emptied first when it is a former one)
     * @param out        where the lines go
     * @throws Exception when a checkpoint or a start fails
     */
    public static void run(final Workload workload, final JoinType type, final int partitions, final int cutEvents,
        final Path root, final PrintStream out) throws Exception
    {
        final EventTape tape = EventTape.of(workload);
        final EncodedRows rows = EncodedRows.encode(tape);
        final int cut = cutEvents > 0 ? Math.min(cutEvents, tape.size() - 1) : tape.size() / 2;
        final int more = Math.max(1, tape.size() / 100);
        final int more10 = Math.max(1, Math.min(tape.size() / 10, tape.size() - cut - more));
        LoadRun.emptyDirectory(root);
        // A clean close of a big state checkpoints it (every chunk read and checksummed): give it time, since the
        // next engine on the root waits for the lock that the closing partition threads hold until they stop.
        final EngineConfig config = EngineConfig.defaults().withPartitions(partitions).withStateRoot(root)
            .withCloseTimeoutMillis(Math.max(EngineConfig.defaults().closeTimeoutMillis(), 600_000))
            .withState(StateConfig.fromSystemProperties().withMaxKeys(LoadRun.maxKeysPerPartition(workload, partitions)));
        final var spec = WorkloadJoin.spec(workload, type);
        out.printf(Locale.ROOT, "%s %s, %d partition(s), state root %s%n", workload.displayName(), type.name().toLowerCase(Locale.ROOT), partitions, root);

        JoinEngine engine = JoinEngine.builder(spec).config(config).resultHandlers(p -> (kind, left, right, ts, step) -> { }).start();
        long t0 = System.nanoTime();
        publish(engine.publisher(), tape, rows, 0, cut);
        out.printf(Locale.ROOT, "published %,d events in %.1f s%n", cut, (System.nanoTime() - t0) / 1e9);
        CompletedCheckpoint first = timedCheckpoint(engine, cut - 1, "first checkpoint (full copy)", out);
        live(engine, out);
        publish(engine.publisher(), tape, rows, cut, cut + more);
        timedCheckpoint(engine, cut + more - 1, "second checkpoint after " + String.format(Locale.ROOT, "%,d", more) + " more events (1%)", out);
        publish(engine.publisher(), tape, rows, cut + more, cut + more + more10);
        final CompletedCheckpoint second = timedCheckpoint(engine, cut + more + more10 - 1, "third checkpoint after " +
            String.format(Locale.ROOT, "%,d", more10) + " more events (10%)", out);
        out.printf(Locale.ROOT, "state files on disk: %.1f MiB; checkpoints: %.1f MiB (hard links counted once)%n",
            diskBytes(root, "state") / 1048576.0, diskBytes(root, "checkpoints") / 1048576.0);
        t0 = System.nanoTime();
        engine.close(new long[] {cut + more + more10 - 1});
        out.printf(Locale.ROOT, "clean close: %.0f ms%n", (System.nanoTime() - t0) / 1e6);

        t0 = System.nanoTime();
        engine = JoinEngine.builder(spec).config(config).resultHandlers(p -> (kind, left, right, ts, step) -> { }).start();
        out.printf(Locale.ROOT, "reopen after the clean close: engine started in %.0f ms, resumes after step %s%n",
            (System.nanoTime() - t0) / 1e6, Arrays.toString(engine.restoredPositions()));
        engine.close();

        t0 = System.nanoTime();
        engine = JoinEngine.builder(spec).config(config).resultHandlers(p -> (kind, left, right, ts, step) -> { }).start();
        out.printf(Locale.ROOT, "restore without a clean close: engine started from checkpoint %d in %.0f ms, resumes after step %s (expected [%d])%n",
            engine.restoredCheckpointId(), (System.nanoTime() - t0) / 1e6, Arrays.toString(engine.restoredPositions()), second.positions()[0]);
        engine.close();
        if (first.id() >= second.id())
        {
            throw new IllegalStateException("checkpoint ids do not increase");
        }
        takeOver(workload, type, root.resolve("take-over"), out);
    }

    /**
     * Times {@link JoinEngine#takeOverPartition} of two partitions with the default state configuration (the
     * key index sized for {@link StateConfig#MAX_KEYS_DEFAULT} keys): an engine publishes the first events of
     * the workload's tape into two partitions, checkpoints into a shared checkpoint root and closes; a second
     * engine on its own, empty state root takes over both partitions (the futures together, as the Kafka
     * runner's rebalance does), then takes them over again over the state it now holds (a restore that finds
     * the live files equal to the checkpoint).
     *
     * @param workload the workload whose tape's first events are published
     * @param type     the join type
     * @param root     where a scratch directory is made (and deleted after)
     * @param out      where the lines go
     * @throws Exception when a checkpoint or a take-over fails
     */
    public static void takeOver(final Workload workload, final JoinType type, final Path root, final PrintStream out) throws Exception
    {
        final EventTape tape = EventTape.of(workload);
        final EncodedRows rows = EncodedRows.encode(tape);
        final int events = Math.min(tape.size(), 20_000);
        Files.createDirectories(root);
        final Path work = Files.createTempDirectory(root, "take-over-");
        try
        {
            takeOver(workload, type, work, tape, rows, events, out);
        }
        finally
        {
            try (Stream<Path> walk = Files.walk(work))
            {
                for (final Path path : walk.sorted(Comparator.reverseOrder()).toList())
                {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    private static void takeOver(final Workload workload, final JoinType type, final Path root, final EventTape tape,
        final EncodedRows rows, final int events, final PrintStream out) throws Exception
    {
        final var spec = WorkloadJoin.spec(workload, type);
        final EngineConfig shared = EngineConfig.defaults().withPartitions(2).withCheckpointRoot(root.resolve("checkpoints"));
        try (JoinEngine owner = JoinEngine.builder(spec).config(shared.withStateRoot(root.resolve("owner")))
            .resultHandlers(p -> (kind, left, right, ts, step) -> { }).start())
        {
            publish(owner.publisher(), tape, rows, 0, events);
            for (int p = 0; p < 2; p++)
            {
                owner.checkpointPartition(p, new long[] {events - 1}).get(10, TimeUnit.MINUTES);
            }
        }
        try (JoinEngine member = JoinEngine.builder(spec).config(shared.withStateRoot(root.resolve("member")))
            .resultHandlers(p -> (kind, left, right, ts, step) -> { }).start())
        {
            for (int round = 0; round < 2; round++)
            {
                final long t0 = System.nanoTime();
                final CompletableFuture<CompletedCheckpoint> zero = member.takeOverPartition(0);
                final CompletableFuture<CompletedCheckpoint> one = member.takeOverPartition(1);
                final CompletedCheckpoint a = zero.get(10, TimeUnit.MINUTES);
                final CompletedCheckpoint b = one.get(10, TimeUnit.MINUTES);
                final long took = System.nanoTime() - t0;
                if (a.positions() == null || b.positions() == null || a.positions()[0] != events - 1)
                {
                    throw new IllegalStateException("the take-over restored " + Arrays.toString(a.positions()) + " / " +
                        Arrays.toString(b.positions()) + ", not the checkpoint after step " + (events - 1));
                }
                out.printf(Locale.ROOT, "take-over of 2 partitions (default index, %,d keys each; %,d events of state), %s: %.0f ms%n",
                    StateConfig.MAX_KEYS_DEFAULT, events, round == 0 ? "empty state" : "again, over the state it holds", took / 1e6);
            }
        }
    }

    private static CompletedCheckpoint timedCheckpoint(final JoinEngine engine, final long position, final String what, final PrintStream out)
        throws Exception
    {
        final long t0 = System.nanoTime();
        final CompletedCheckpoint done = engine.checkpoint(new long[] {position}).get(10, TimeUnit.MINUTES);
        final long[] pauses = done.pauseNanos();
        long max = 0;
        for (final long p : pauses)
        {
            max = Math.max(max, p);
        }
        final long complete = System.nanoTime() - t0;
        long write = 0;
        long staged = 0;
        long stateBytes = 0;
        long sideWaits = 0;
        for (final PartitionSnapshot s : engine.metrics())
        {
            sideWaits += s.checkpointSideWaits;
            write = Math.max(write, s.lastCheckpointWriteNanos);
            staged += s.lastCheckpointBytesStaged;
            stateBytes += s.stateBytes;
        }
        out.printf(Locale.ROOT, "%s: %.0f ms until complete, partition pause max %.2f ms, background write max %.0f ms " +
            "(%s), %.1f MiB written (%.1f%% of the state's %.1f MiB), %.1f MiB linked%n",
            what, complete / 1e6, max / 1e6, write / 1e6, staged > 0 ? String.format(Locale.ROOT, "%.1f MiB staged", staged / 1048576.0) :
            "synchronous: nothing staged", done.bytesWritten() / 1048576.0, 100.0 * done.bytesWritten() / Math.max(1, stateBytes),
            stateBytes / 1048576.0, done.bytesLinked() / 1048576.0);
        out.printf(Locale.ROOT, "  pause parts of the longest: %s; writes that waited for the writer's capture so far: %d%n",
            PauseParts.describe(PauseParts.ofLongest(engine.metrics())), sideWaits);
        return done;
    }

    private static void live(final JoinEngine engine, final PrintStream out)
    {
        long live = 0;
        long bytes = 0;
        for (final PartitionSnapshot s : engine.metrics())
        {
            live += s.liveLeft + s.liveRight;
            bytes += s.stateBytes;
        }
        out.printf(Locale.ROOT, "live rows %,d, state %.1f MiB%n", live, bytes / 1048576.0);
    }

    private static void publish(final Publisher publisher, final EventTape tape, final EncodedRows rows, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            LoadRun.publishEvent(publisher, tape, rows, i, 0, i, System.nanoTime());
        }
    }

    /** @return bytes the files under each partition's {@code name} directory take on disk, hard links once. */
    private static long diskBytes(final Path root, final String name) throws IOException
    {
        final Set<Object> seen = new HashSet<>();
        long total = 0;
        try (Stream<Path> walk = Files.walk(root))
        {
            for (final Path path : (Iterable<Path>)walk::iterator)
            {
                if (Files.isRegularFile(path) && root.relativize(path).toString().contains("/" + name + "/"))
                {
                    final Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
                    if (key == null || seen.add(key))
                    {
                        total += Files.size(path);
                    }
                }
            }
        }
        return total;
    }
}
