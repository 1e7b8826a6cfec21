package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.testing.CollectingDeadLetterHandler;
import io.junction.testing.CollectingResultHandler;
import io.junction.testing.Rows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.CoGroupBuiltin;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.WindowSpec;
import io.junction.internal.durable.DirectoryLock;
import io.junction.internal.metrics.JoinCounters;
import io.junction.internal.state.BucketDescriptor;
import io.junction.testing.Output;
import java.io.UncheckedIOException;
import java.util.Set;

/**
 * Durable state's files and refusals: owner-only permissions, a directory left without persist (a
 * crash) or changed after its last persist, damaged, truncated or foreign files, each refused at open
 * with the file named and nothing changed; a reopen that reads only headers and heap.dat, whatever
 * the rows; a reopened state mapped at another address.
 */
class DurableStateTest
{
    static final Schema LEFT = Schema.of("k", "id", "v");
    static final Schema RIGHT = Schema.of("k", "id", "v");
    static final StateConfig CONFIG = StateConfig.defaults().withMaxKeys(1 << 16).withChunkSize(256 * 1024)
        .withMaxStateBytes(256L << 20).withMaxLiveRows(1 << 20).withHashSeed(7);
    static final JoinSpec REGULAR = JoinSpec.builder(JoinKind.REGULAR, JoinType.FULL).schemas(LEFT, RIGHT)
        .leftKey("k").rightKey("k").leftUniqueKey("id").build();
    static final JoinSpec INTERVAL = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT).schemas(LEFT, RIGHT)
        .leftKey("k").rightKey("k").interval(IntervalBounds.inclusive(-10, 10)).build();

    final CollectingResultHandler results = new CollectingResultHandler(LEFT, RIGHT);
    final CollectingDeadLetterHandler deadLetters = new CollectingDeadLetterHandler(LEFT, RIGHT);

    JoinOperator open(final JoinSpec spec, final StateConfig config)
    {
        return JoinOperators.create(spec, config, results, deadLetters);
    }

    static void rows(final JoinOperator op, final Side side, final int from, final int to)
    {
        rows(op, side, from, to, 0);
    }

    /** Rows of ids {@code [from, to)}, key {@code keyBase + id % 1000}. */
    static void rows(final JoinOperator op, final Side side, final int from, final int to, final long keyBase)
    {
        for (int i = from; i < to; i++)
        {
            op.onRow(side, ChangeKind.INSERT, Rows.row(side == Side.LEFT ? LEFT : RIGHT, "k", keyBase + i % 1000, "id", (long)i,
                "v", "payload-" + i), i, i);
        }
    }

    /** Counts outputs without keeping them: a big state's padded rows would not fit a test's heap. */
    static final class Counting implements ResultHandler
    {
        long count;

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right,
            final long timestamp, final long step)
        {
            count++;
        }
    }

    /** A clean image with some rows of both sides, in {@code dir}. */
    void cleanImage(final JoinSpec spec, final StateConfig config, final Path dir)
    {
        try (JoinOperator op = open(spec, config.withStateDirectory(dir)))
        {
            rows(op, Side.LEFT, 0, 300);
            rows(op, Side.RIGHT, 300, 400);
        }
    }

    /** The directory's files, without its lock file (no state: an open creates it, and it stays). */
    static Map<String, byte[]> contents(final Path dir) throws IOException
    {
        final Map<String, byte[]> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(dir))
        {
            for (final Path file : (Iterable<Path>)list::iterator)
            {
                if (file.getFileName().toString().equals(DirectoryLock.FILE_NAME))
                {
                    continue;
                }
                files.put(file.getFileName().toString(), Files.readAllBytes(file));
            }
        }
        return files;
    }

    static void copy(final Path from, final Path to) throws IOException
    {
        Files.createDirectories(to);
        try (Stream<Path> list = Files.list(from))
        {
            for (final Path file : (Iterable<Path>)list::iterator)
            {
                Files.copy(file, to.resolve(file.getFileName()));
            }
        }
    }

    static void flip(final Path file, final long offset) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.seek(offset);
            final int b = f.read();
            f.seek(offset);
            f.write(b ^ 0x10);
        }
    }

    /** Opens on a copy of a clean image damaged by {@code damage}: refused, naming {@code named}, nothing changed. */
    void assertRefused(final Path clean, final Path copy, final Consumer<Path> damage, final JoinSpec spec,
        final StateConfig config, final String named, final String says) throws IOException
    {
        copy(clean, copy);
        damage.accept(copy);
        final Map<String, byte[]> before = contents(copy);
        final DurableStateException refused = assertThrows(DurableStateException.class,
            () -> open(spec, config.withStateDirectory(copy)).close());
        assertTrue(refused.getMessage().contains(copy.resolve(named).toString()), refused.getMessage());
        assertTrue(refused.getMessage().contains(says), refused.getMessage());
        assertTrue(refused.getMessage().contains("checkpoint"), refused.getMessage());
        final Map<String, byte[]> after = contents(copy);
        assertEquals(before.keySet(), after.keySet(), "no file created or removed");
        for (final String name : before.keySet())
        {
            assertArrayEquals(before.get(name), after.get(name), name + " unchanged");
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void refusesDamagedTruncatedAndForeignState(final IndexKind index, @TempDir final Path dir) throws IOException
    {
        final StateConfig config = CONFIG.withIndex(index);
        final Path clean = dir.resolve("clean-image");
        cleanImage(REGULAR, config, clean);
        final String indexFile = index == IndexKind.HASH ? DurableState.INDEX : DurableState.CHRONICLE_INDEX;
        assertRefused(clean, dir.resolve("no-marker"), d -> delete(d.resolve("clean")), REGULAR, config,
            "clean", "not closed cleanly");
        assertRefused(clean, dir.resolve("marker-flipped"), d -> flipUnchecked(d.resolve("clean"), 20), REGULAR, config,
            "clean", "damaged");
        assertRefused(clean, dir.resolve("heap-flipped"), d -> flipUnchecked(d.resolve("heap.dat"), 40), REGULAR, config,
            "heap.dat", "damaged");
        assertRefused(clean, dir.resolve("arena-header-flipped"), d -> flipUnchecked(d.resolve("arena.dat"), 2100), REGULAR, config,
            "arena.dat", "damaged header");
        assertRefused(clean, dir.resolve("arena-truncated"), d -> truncate(d.resolve("arena.dat"), 8192), REGULAR, config,
            "arena.dat", "truncated");
        assertRefused(clean, dir.resolve("index-empty"), d -> truncate(d.resolve(indexFile), 0), REGULAR, config,
            indexFile, "is empty");
        assertRefused(clean, dir.resolve("unique-truncated"), d -> truncate(d.resolve("unique-left.dat"), 16), REGULAR, config,
            "unique-left.dat", "truncated");
        assertRefused(clean, dir.resolve("other-join"), d -> { }, INTERVAL, config, "clean", "another join");
        assertRefused(clean, dir.resolve("other-layout"), d -> { }, REGULAR, config.withMaxKeys(1 << 15), "clean",
            "another partition state layout");
        assertRefused(clean, dir.resolve("other-seed"), d -> { }, REGULAR, config.withHashSeed(8), "clean", "seed");
        assertRefused(clean, dir.resolve("other-version"), d -> rewriteVersion(d.resolve("clean"), 99), REGULAR, config,
            "clean", "format version 99");
        // The clean image itself still reopens, with its rows.
        try (JoinOperator op = open(REGULAR, config.withStateDirectory(clean)))
        {
            assertEquals(300, op.counters().liveLeft());
            assertEquals(100, op.counters().liveRight());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void refusesStateLeftWithoutPersistOrChangedAfterIt(final IndexKind index, @TempDir final Path dir) throws IOException
    {
        final StateConfig config = CONFIG.withIndex(index);
        // A process that dies before its first persist leaves files and no marker.
        final Path crashed = dir.resolve("crashed");
        final JoinOperator abandoned = open(INTERVAL, config.withStateDirectory(crashed));
        rows(abandoned, Side.LEFT, 0, 50);
        // A copy: the directory itself is locked while the operator has it open.
        final Path atCrash = dir.resolve("at-crash");
        copy(crashed, atCrash);
        final DurableStateException noMarker = assertThrows(DurableStateException.class,
            () -> open(INTERVAL, config.withStateDirectory(atCrash.toAbsolutePath())).close());
        assertTrue(noMarker.getMessage().contains("not closed cleanly"), noMarker.getMessage());

        // Persisted, then changed: a copy of the files as a dying process leaves them has no marker (the first
        // change removed it) and the dirty flag set.
        abandoned.persist();
        final Path atPersist = dir.resolve("at-persist");
        copy(crashed, atPersist);
        rows(abandoned, Side.LEFT, 50, 60);
        final Path afterChange = dir.resolve("after-change");
        copy(crashed, afterChange);
        abandoned.close();
        final DurableStateException changed = assertThrows(DurableStateException.class,
            () -> open(INTERVAL, config.withStateDirectory(afterChange)).close());
        assertTrue(changed.getMessage().contains("not closed cleanly"), changed.getMessage());
        // Were the marker's removal lost, the dirty flag still refuses the changed files.
        Files.copy(atPersist.resolve("clean"), afterChange.resolve("clean"));
        final DurableStateException dirty = assertThrows(DurableStateException.class,
            () -> open(INTERVAL, config.withStateDirectory(afterChange)).close());
        assertTrue(dirty.getMessage().contains(afterChange.resolve("arena.dat").toString()), dirty.getMessage());
        assertTrue(dirty.getMessage().contains("dirty flag"), dirty.getMessage());
        // The copy taken right after the persist is a checkpoint: it reopens at that point.
        try (JoinOperator op = open(INTERVAL, config.withStateDirectory(atPersist)))
        {
            assertEquals(50, op.counters().liveLeft());
            assertEquals(50, op.counters().rowsIn());
        }

        // Reopened, then changed: the reopened marker is gone before the change.
        final JoinOperator reopened = open(INTERVAL, config.withStateDirectory(crashed));
        assertEquals(60, reopened.counters().liveLeft());
        assertTrue(Files.exists(crashed.resolve("clean")));
        rows(reopened, Side.RIGHT, 60, 61);
        assertFalse(Files.exists(crashed.resolve("clean")), "the first change removes the marker");
        final Path afterReopen = dir.resolve("after-reopen");
        copy(crashed, afterReopen);
        final DurableStateException gone = assertThrows(DurableStateException.class,
            () -> open(INTERVAL, config.withStateDirectory(afterReopen)).close());
        assertTrue(gone.getMessage().contains("not closed cleanly"), gone.getMessage());
        reopened.close();
        try (JoinOperator op = open(INTERVAL, config.withStateDirectory(crashed)))
        {
            assertEquals(61, op.counters().rowsIn());
        }
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void filesAreOwnerOnly(final IndexKind index, @TempDir final Path dir) throws IOException
    {
        final Path state = dir.resolve("partition-0").resolve("state");
        cleanImage(REGULAR, CONFIG.withIndex(index), state);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.getParent())));
        final Map<String, byte[]> files = contents(state);
        assertEquals(index == IndexKind.HASH
                ? Set.of("arena.dat", "index.dat", "unique-left.dat", "heap.dat", "chunks.sum", "clean")
                : Set.of("arena.dat", "index.cmap", "unique-left.dat", "heap.dat", "chunks.sum", "clean"),
            files.keySet());
        for (final String name : files.keySet())
        {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve(name))), name);
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("LOCK"))), "LOCK");
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void theFirstChangeAfterEveryPersistRemovesTheMarker(final IndexKind index, @TempDir final Path dir) throws IOException
    {
        // Not only after a reopen: a power loss may write back the changed pages but not the dirty flag's,
        // and a marker left in place would then vouch for torn state.
        final StateConfig config = CONFIG.withIndex(index).withStateDirectory(dir);
        try (JoinOperator op = open(REGULAR, config))
        {
            rows(op, Side.LEFT, 0, 100);
            assertFalse(Files.exists(dir.resolve("clean")), "a fresh state has no marker");
            for (int round = 0; round < 2; round++)
            {
                op.persist();
                assertTrue(Files.exists(dir.resolve("clean")), "persist writes the marker");
                rows(op, Side.RIGHT, 1000 + round, 1001 + round);
                assertFalse(Files.exists(dir.resolve("clean")), "round " + round + ": the first change after a persist removes it");
            }
            // A watermark changes state as well.
            op.persist();
            op.onWatermark(Side.LEFT, 10, 5000);
            assertFalse(Files.exists(dir.resolve("clean")), "a watermark after a persist removes it too");
        }
        try (JoinOperator op = open(REGULAR, config))
        {
            assertEquals(100, op.counters().liveLeft());
            assertEquals(2, op.counters().liveRight());
        }
    }

    @Test
    void anOpenStateDirectoryIsLockedAgainstASecondOperator(@TempDir final Path dir) throws IOException
    {
        final StateConfig config = CONFIG.withStateDirectory(dir);
        final JoinOperator first = open(REGULAR, config);
        rows(first, Side.LEFT, 0, 10);
        first.persist();
        final DurableStateException locked = assertThrows(DurableStateException.class, () -> open(REGULAR, config).close());
        assertTrue(locked.getMessage().contains(dir.resolve("LOCK") + " is locked"), locked.getMessage());
        assertTrue(Files.exists(dir.resolve("clean")), "the refused open changed nothing");
        first.close();
        try (JoinOperator second = open(REGULAR, config))
        {
            assertEquals(10, second.counters().liveLeft(), "the lock goes with the close");
            rows(second, Side.LEFT, 10, 20);
            // A discard (a restore replaces the files next) releases the lock without persisting.
            second.discard();
        }
        final DurableStateException notClean = assertThrows(DurableStateException.class, () -> open(REGULAR, config).close());
        assertTrue(notClean.getMessage().contains("not closed cleanly"), notClean.getMessage());
    }

    /**
     * The structural checks of a reopen read the headers only; the chunk checksums then read every mapped
     * file once, sequentially (the hardening work: damaged live files are found at reopen), and the rows are
     * mapped, not copied.
     */
    @Test
    void reopenReadsHeadersNotRows(@TempDir final Path dir) throws IOException
    {
        final StateConfig config = CONFIG.withStateDirectory(dir);
        final Counting counting = new Counting();
        try (JoinOperator op = JoinOperators.create(REGULAR, config, counting, deadLetters))
        {
            rows(op, Side.LEFT, 0, 200_000);
            rows(op, Side.RIGHT, 200_000, 260_000, 5000);
        }
        assertEquals(260_000, counting.count, "every row padded, none joined");
        final long arenaBytes = Files.size(dir.resolve("arena.dat"));
        assertTrue(arenaBytes > 20L << 20, "the rows take " + arenaBytes + " bytes");
        // The rows are in the arena's middle: the structural checks read none of them (bytesReadToOpen below).
        final long middle = arenaBytes / 2;
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve("arena.dat").toFile(), "r"))
        {
            f.seek(middle);
            final byte[] window = new byte[4096];
            f.readFully(window);
            int nonZero = 0;
            for (final byte b : window)
            {
                nonZero += b == 0 ? 0 : 1;
            }
            assertTrue(nonZero > 1000, "rows are there: " + nonZero + " non-zero bytes of 4096");
        }
        final OperatorDriver reopened = (OperatorDriver)JoinOperators.create(REGULAR, config, counting, deadLetters);
        try
        {
            assertTrue(reopened.state.bytesReadToOpen() < 1 << 20,
                "reopen read " + reopened.state.bytesReadToOpen() + " bytes of a " + arenaBytes + "-byte arena");
            // The chunk checksums read each mapped file once: the arena, the index table, any unique-key table.
            long mapped = 0;
            for (final String name : new String[] {"arena.dat", "index.dat", "index.cmap", "unique-left.dat", "unique-right.dat"})
            {
                mapped += Files.exists(dir.resolve(name)) ? Files.size(dir.resolve(name)) : 0;
            }
            assertEquals(mapped, reopened.state.bytesVerifiedToOpen());
            assertEquals(200_000, reopened.counters().liveLeft());
            assertEquals(60_000, reopened.counters().liveRight());
            // And the rows are all there: each left key's rows join a new right row.
            final long before = counting.count;
            reopened.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(RIGHT, "k", 7L, "id", -1L, "v", "x"), 0, 1);
            // Key 7 holds left ids 7, 1007, ... : 200 rows, each losing its padding and gaining a pair.
            assertEquals(400, counting.count - before);
        }
        finally
        {
            reopened.close();
        }
    }

    @Test
    void reopenedStateIsMappedElsewhereAndStillJoins(@TempDir final Path dir) throws IOException
    {
        final StateConfig config = CONFIG.withStateDirectory(dir);
        final long firstBase;
        try (OperatorDriver op = (OperatorDriver)open(REGULAR, config))
        {
            firstBase = op.state.base;
            rows(op, Side.LEFT, 0, 3000);
        }
        // Deterministically elsewhere: a copy of the closed state is opened while the original is open
        // again. The two cannot share an address, so at least one of them is not at the first base.
        final Path copy = dir.resolveSibling(dir.getFileName() + ".copy");
        copy(dir, copy);
        final OperatorDriver again = (OperatorDriver)open(REGULAR, config);
        OperatorDriver other = null;
        try
        {
            other = (OperatorDriver)open(REGULAR, CONFIG.withStateDirectory(copy));
            assertNotEquals(again.state.base, other.state.base, "two open states share no address");
            final OperatorDriver moved = again.state.base != firstBase ? again : other;
            assertNotEquals(firstBase, moved.state.base, "mapped at another address");
            final int before = results.size();
            moved.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(RIGHT, "k", 5L, "id", -1L, "v", "x"), 0, 1);
            // Left ids 5, 1005, 2005 have key 5; full join: each loses its padding and gains a pair.
            assertEquals(6, results.size() - before);
            // A retraction by unique key finds its row through the reopened unique-key index.
            moved.onRow(Side.LEFT, ChangeKind.DELETE, Rows.row(LEFT, "k", 5L, "id", 1005L, "v", "payload-1005"), 1005, 2);
            assertEquals(2999, moved.counters().liveLeft());
        }
        finally
        {
            again.close();
            if (other != null)
            {
                other.close();
            }
        }
    }

    @Test
    void reopenKeepsTheStoredHashSeed(@TempDir final Path dir) throws IOException
    {
        assertTrue(JoinOperators.durableHashSeed(dir).isEmpty(), "no image yet");
        // Not fixed: the fresh state draws a seed, and a reopen without a fixed one uses the stored one.
        final StateConfig unfixed = StateConfig.defaults().withMaxKeys(1024).withChunkSize(64 * 1024)
            .withMaxStateBytes(64L << 20).withMaxLiveRows(4096).withStateDirectory(dir);
        try (JoinOperator op = open(REGULAR, unfixed))
        {
            rows(op, Side.LEFT, 0, 100);
        }
        final long seed = JoinOperators.durableHashSeed(dir).getAsLong();
        try (JoinOperator op = open(REGULAR, unfixed))
        {
            final int before = results.size();
            op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(RIGHT, "k", 42L, "id", -1L, "v", "x"), 0, 1);
            assertEquals(2, results.size() - before, "left id 42 is found under the stored seed");
        }
        try (JoinOperator op = open(REGULAR, unfixed.withHashSeed(seed)))
        {
            assertEquals(100, op.counters().liveLeft(), "the same seed, fixed, reopens too");
        }
        assertEquals(seed, JoinOperators.durableHashSeed(dir).getAsLong());
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void aHotKeysLargeGroupSurvivesReopens(final IndexKind index, @TempDir final Path dir)
    {
        // 40 000 rows of one key: their group array is a large block (past the pooled sizes), grown,
        // then shrunk by retractions, across reopens.
        final JoinSpec inner = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER).schemas(LEFT, RIGHT)
            .leftKey("k").rightKey("k").build();
        final StateConfig config = CONFIG.withIndex(index).withStateDirectory(dir);
        final Counting counting = new Counting();
        try (JoinOperator op = JoinOperators.create(inner, config, counting, deadLetters))
        {
            for (int i = 0; i < 40_000; i++)
            {
                op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "k", 1L, "id", (long)i, "v", "p"), i, i);
            }
        }
        try (JoinOperator op = JoinOperators.create(inner, config, counting, deadLetters))
        {
            for (int i = 0; i < 30_000; i++)
            {
                op.onRow(Side.LEFT, ChangeKind.DELETE, Rows.row(LEFT, "k", 1L, "id", (long)i, "v", "p"), i, i);
            }
            assertEquals(10_000, op.counters().liveLeft());
        }
        assertEquals(0, deadLetters.size());
        try (JoinOperator op = JoinOperators.create(inner, config, counting, deadLetters))
        {
            final long before = counting.count;
            op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(RIGHT, "k", 1L, "id", -1L, "v", "x"), 0, 1);
            assertEquals(10_000, counting.count - before, "the rows left after the retractions, all found");
            for (int i = 30_000; i < 40_000; i++)
            {
                op.onRow(Side.LEFT, ChangeKind.DELETE, Rows.row(LEFT, "k", 1L, "id", (long)i, "v", "p"), i, i);
            }
            assertEquals(0, op.counters().liveLeft());
            assertEquals(1, op.counters().liveRight());
        }
        assertEquals(0, deadLetters.size());
    }

    @Test
    void anOperatorOnTheInMemoryConstructorsRefusesADirectory(@TempDir final Path dir)
    {
        final Path state = dir.resolve("state");
        final UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
            () -> PartitionStates.inMemory(CONFIG.withStateDirectory(state), BucketDescriptor.LENGTH,
                false, new JoinCounters(), PartitionState.NO_ROOM).close());
        assertTrue(refused.getMessage().contains("memory only"), refused.getMessage());
        assertFalse(Files.exists(state), "nothing created");
    }

    @Test
    void memoryModeHasNoPersist()
    {
        try (JoinOperator op = open(REGULAR, CONFIG))
        {
            assertFalse(op.durable());
            assertThrows(IllegalStateException.class, op::persist);
        }
    }

    @Test
    void fingerprintIsStableAndTellsSpecsApart()
    {
        final JoinSpec again = JoinSpec.builder(JoinKind.REGULAR, JoinType.FULL).schemas(LEFT, RIGHT)
            .leftKey("k").rightKey("k").leftUniqueKey("id").build();
        assertEquals(REGULAR.fingerprint(), again.fingerprint());
        assertNotEquals(REGULAR.fingerprint(), INTERVAL.fingerprint());
        assertNotEquals(REGULAR.fingerprint(), JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(LEFT, RIGHT)
            .leftKey("k").rightKey("k").leftUniqueKey("id").build().fingerprint());
        assertNotEquals(REGULAR.fingerprint(), JoinSpec.builder(JoinKind.REGULAR, JoinType.FULL).schemas(LEFT, RIGHT)
            .leftKey("k").rightKey("k").leftUniqueKey("id").stateTtl(5).build().fingerprint());
        final JoinSpec.Builder window = JoinSpec.builder(JoinKind.WINDOW, JoinType.FULL).schemas(LEFT, RIGHT)
            .leftKey("k").rightKey("k").window(WindowSpec.tumbling(10, 0));
        assertNotEquals(window.build().fingerprint(), window.coGroup(CoGroupBuiltin.COUNT).build().fingerprint(),
            "a coGroup is another join than the window join");
        assertNotEquals(window.coGroup(CoGroupBuiltin.FIRST).build().fingerprint(),
            window.coGroup(CoGroupBuiltin.LAST).build().fingerprint());
        // A fixed encoding, so another JVM (or build) computes the same value.
        assertEquals(FINGERPRINT_OF_REGULAR, REGULAR.fingerprint(), Long.toHexString(REGULAR.fingerprint()));
    }

    static final long FINGERPRINT_OF_REGULAR = 0x5c1b35b7ed1b499cL;

    static JoinSpec versioned(final JoinKind kind)
    {
        return JoinSpec.builder(kind, JoinType.LEFT).schemas(LEFT, RIGHT).leftKey("k").rightKey("k").build();
    }

    static PartitionState stateOf(final JoinOperator op)
    {
        return ((OperatorDriver)op).state;
    }

    /** The outputs from {@code from} on as "step:right v" (null for a padded row), sorted: order within a step is free. */
    List<String> stepAndVersion(final int from)
    {
        final List<String> out = new ArrayList<>();
        for (final Output o : results.since(from))
        {
            out.add(o.step() + ":" + (o.right() == null ? "null" : o.right().get("v")));
        }
        out.sort(null);
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = JoinKind.class, names = {"TEMPORAL", "LOOKUP"})
    void versionedJoinsReopenElsewhereWithTheirVersionsAndWaitingRows(final JoinKind kind, @TempDir final Path dir)
        throws IOException
    {
        final JoinSpec spec = versioned(kind);
        final boolean temporal = kind == JoinKind.TEMPORAL;
        final StateConfig config = CONFIG.withStateDirectory(dir.resolve("state"));
        final long firstBase;
        final long[] before;
        try (JoinOperator op = open(spec, config))
        {
            firstBase = stateOf(op).base;
            op.onWatermark(5, 0);
            for (long k = 0; k < 100; k++)
            {
                op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(RIGHT, "k", k, "id", k, "v", "old"), 10, 1);
                op.onRow(Side.RIGHT, ChangeKind.UPDATE_AFTER, Rows.row(RIGHT, "k", k, "id", k, "v", "new"), 20, 2);
                op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "k", k, "id", 1000 + k, "v", "order"), 15, 3);
            }
            before = DurableReopenDifferentialTest.counters(op.counters());
        }
        // Temporal: the orders wait for the watermark, both versions of each key are kept (the older one
        // in the version wheel until the watermark passes 19). Lookup: the orders joined the current version.
        assertEquals(temporal ? 100 : 0, before[5], "live left");
        assertEquals(temporal ? 200 : 100, before[6], "live right");
        assertEquals(temporal ? 200 : 0, before[7], "pending timers");
        final int emitted = results.size();
        assertEquals(temporal ? 0 : 100, emitted);
        // Deterministically elsewhere: a copy of the closed state is opened; when it lands at the first base,
        // the original is opened beside it (it cannot land there too) and is the one tested.
        copy(dir.resolve("state"), dir.resolve("copy"));
        final JoinOperator copyOp = open(spec, CONFIG.withStateDirectory(dir.resolve("copy")));
        final JoinOperator op = stateOf(copyOp).base != firstBase ? copyOp : open(spec, config);
        try
        {
            assertTrue(op.durable());
            assertNotEquals(firstBase, stateOf(op).base, "mapped at another address");
            assertArrayEquals(before, DurableReopenDifferentialTest.counters(op.counters()), "counters, wheels and watermark restored");
            op.onWatermark(30, 4);
            assertEquals(100, op.counters().liveRight(), "the versions at 10 are freed once the watermark passes 19");
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "k", 7L, "id", 2000L, "v", "order"), 40, 5);
            op.onRow(Side.RIGHT, ChangeKind.DELETE, Rows.row(RIGHT, "k", 8L, "id", 8L, "v", "new"), 41, 6);
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "k", 8L, "id", 2001L, "v", "order"), 45, 7);
            op.onEndOfInput(8);
            final List<String> expected = new ArrayList<>();
            for (int k = 0; k < 100; k++)
            {
                if (temporal)
                {
                    // Each order of ts 15 joins the version valid at 15, the one of ts 10, read back after the reopen.
                    expected.add("4:old");
                }
            }
            expected.add(temporal ? "8:new" : "5:new");
            expected.add(temporal ? "8:null" : "7:null");
            expected.sort(null);
            assertEquals(expected, stepAndVersion(emitted));
            assertEquals(0, op.counters().liveLeft());
        }
        finally
        {
            op.close();
            if (op != copyOp)
            {
                copyOp.close();
            }
        }
        assertEquals(0, deadLetters.size());
    }

    @ParameterizedTest
    @EnumSource(value = JoinKind.class, names = {"TEMPORAL", "LOOKUP"})
    void versionedJoinsRefuseStateChangedAfterItsPersistOrOfTheOtherKind(final JoinKind kind, @TempDir final Path dir)
        throws IOException
    {
        final JoinSpec spec = versioned(kind);
        final StateConfig config = CONFIG.withStateDirectory(dir.resolve("live"));
        final JoinOperator op = open(spec, config);
        try
        {
            op.onRow(Side.RIGHT, ChangeKind.INSERT, Rows.row(RIGHT, "k", 1L, "id", 1L, "v", "r"), 10, 0);
            op.onRow(Side.LEFT, ChangeKind.INSERT, Rows.row(LEFT, "k", 1L, "id", 2L, "v", "l"), 12, 1);
            op.persist();
            final Path atPersist = dir.resolve("at-persist");
            copy(dir.resolve("live"), atPersist);
            // A watermark alone changes the operator's state (it fires the temporal join's waiting row):
            // the marker is removed before it.
            op.onWatermark(20, 2);
            final Path afterChange = dir.resolve("after-change");
            copy(dir.resolve("live"), afterChange);
            assertFalse(Files.exists(afterChange.resolve("clean")), "the first change after a persist removes the marker");
            final DurableStateException dirty = assertThrows(DurableStateException.class,
                () -> open(spec, CONFIG.withStateDirectory(afterChange)).close());
            assertTrue(dirty.getMessage().contains("not closed cleanly"), dirty.getMessage());
            final JoinKind other = kind == JoinKind.TEMPORAL ? JoinKind.LOOKUP : JoinKind.TEMPORAL;
            assertRefused(atPersist, dir.resolve("other-kind"), d -> { }, versioned(other), CONFIG, "clean", "another join");
            // The copy taken at the persist reopens there: the row that the watermark fired since still waits.
            final int emitted = results.size();
            try (JoinOperator reopened = open(spec, CONFIG.withStateDirectory(atPersist)))
            {
                assertEquals(2, reopened.counters().rowsIn());
                assertEquals(Long.MIN_VALUE, reopened.counters().watermark());
                reopened.onWatermark(20, 2);
            }
            assertEquals(kind == JoinKind.TEMPORAL ? List.of("2:r") : List.of(), stepAndVersion(emitted));
        }
        finally
        {
            op.close();
        }
    }

    private static void delete(final Path file)
    {
        try
        {
            Files.delete(file);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static void flipUnchecked(final Path file, final long offset)
    {
        try
        {
            flip(file, offset);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    private static void truncate(final Path file, final long length)
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.setLength(length);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** Rewrites the marker's format version with a valid checksum: a marker of another build. */
    private static void rewriteVersion(final Path marker, final int version)
    {
        try
        {
            final byte[] bytes = Files.readAllBytes(marker);
            final ByteBuffer buffer = ByteBuffer.wrap(bytes);
            buffer.putInt(8, version);
            final CRC32 crc = new CRC32();
            crc.update(bytes, 0, bytes.length - 8);
            buffer.putLong(bytes.length - 8, crc.getValue());
            Files.write(marker, bytes);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }
}
