package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.Side;
import io.junction.internal.durable.CheckpointFiles;
import io.junction.internal.durable.CheckpointStore;
import io.junction.internal.durable.ChunkSums;
import io.junction.internal.durable.StateImage;
import io.junction.internal.state.Chunks;
import io.junction.testing.CollectingDeadLetterHandler;
import io.junction.testing.CollectingResultHandler;
import io.junction.testing.Rows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.api.RowView;
import io.junction.internal.state.NativeArena;
import io.junction.internal.time.TimerWheelImage;

/**
 * Checkpoints whose cost is the state that changed (SEMANTICS 9): a persist checksums only the chunks
 * written since the one before, a checkpoint reads only the chunks whose checksums differ from the
 * previous checkpoint's and stores no chunk of zeros (an empty 1M-key index costs nothing); an incremental
 * checkpoint restores the exact bytes of the state it was taken of; a clean close's chunk checksums find
 * a byte damaged in the live files at reopen, naming the file and the chunk.
 */
class IncrementalCheckpointTest
{
    static final int MIB = Chunks.CHUNK_BYTES;
    /**
     * The small files a checkpoint copies whole: the marker and heap.dat, which holds the state's timer wheel's image
     * (since TimerWheelImage v3 its slots in use only, 21 bytes each: at most 84 KiB at the default 4096 slots), with
     * 64 KiB to spare.
     */
    static final int SMALL_FILES = 64 * 1024 + TimerWheelImage.maxLength(StateConfig.WHEEL_SLOTS_DEFAULT);
    /** The default key index (1M keys: a 32 MiB table), a unique-key index, a 4 GiB arena reservation. */
    static final StateConfig DEFAULT_SIZED = StateConfig.defaults().withHashSeed(7);

    final CollectingResultHandler results = new CollectingResultHandler(DurableStateTest.LEFT, DurableStateTest.RIGHT);
    final CollectingDeadLetterHandler deadLetters = new CollectingDeadLetterHandler(DurableStateTest.LEFT, DurableStateTest.RIGHT);

    JoinOperator open(final StateConfig config, final Path dir)
    {
        return JoinOperators.create(DurableStateTest.REGULAR, config.withStateDirectory(dir), results, deadLetters);
    }

    /** Persists the operator and writes checkpoint {@code id} of its directory, committed. */
    static void checkpoint(final JoinOperator op, final StateImage image, final CheckpointStore store, final long id)
        throws IOException
    {
        op.persist();
        final CheckpointFiles writer = store.begin(id, DurableStateTest.REGULAR.fingerprint(), new long[] {id});
        image.write(writer, writer.directory());
        writer.commit();
        image.committed();
    }

    @Test
    void anEmptyStateWithTheDefaultIndexCostsNeitherReadsNorBytes(@TempDir final Path dir) throws IOException
    {
        final Path state = dir.resolve("state");
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(dir.resolve("checkpoints"));
        try (JoinOperator op = open(DEFAULT_SIZED, state))
        {
            checkpoint(op, image, store, 1);
            assertTrue(Files.size(state.resolve(DurableState.INDEX)) >= 32L * MIB, "the default index is a 32 MiB table");
            assertTrue(image.bytesZero() >= 32L * MIB, "the empty table is recorded as zeros: " + image.bytesZero());
            assertTrue(image.bytesRead() < MIB + SMALL_FILES, "the first checkpoint reads the arena's header chunk and the small files: " +
                image.bytesRead());
            assertTrue(image.bytesWritten() < MIB + SMALL_FILES, "and stores no more: " + image.bytesWritten());

            checkpoint(op, image, store, 2);
            assertTrue(((OperatorDriver)op).state.lastPersistBytesSummed() <= MIB,
                "nothing changed: the persist sums the arena's header chunk only, " + ((OperatorDriver)op).state.lastPersistBytesSummed());
            assertTrue(image.bytesRead() < SMALL_FILES, "nothing changed: only the small files are read, " + image.bytesRead());
            assertTrue(image.bytesWritten() < SMALL_FILES, "and written: " + image.bytesWritten());

            // A few keys touch a few chunks of the table, the arena's first, the unique-key table.
            DurableStateTest.rows(op, Side.LEFT, 0, 4);
            checkpoint(op, image, store, 3);
            assertTrue(image.bytesRead() <= 7L * MIB, "4 keys: at most 4 table chunks, the arena's, the unique index's: " +
                image.bytesRead());
            assertTrue(image.bytesZero() >= 28L * MIB, "the rest of the table is still zeros: " + image.bytesZero());
            // Zero chunks between stored ones restore as zeros, in place.
            final Path restored = dir.resolve("restored");
            new StateImage(restored).restore(store.open(3, DurableStateTest.REGULAR.fingerprint()));
            final Map<String, byte[]> live = DurableStateTest.contents(state);
            final Map<String, byte[]> copy = DurableStateTest.contents(restored);
            assertEquals(live.keySet(), copy.keySet());
            for (final Map.Entry<String, byte[]> file : live.entrySet())
            {
                assertArrayEquals(file.getValue(), copy.get(file.getKey()), file.getKey());
            }
        }
        try (JoinOperator reopened = open(DEFAULT_SIZED, dir.resolve("restored")))
        {
            assertEquals(4, ((OperatorDriver)reopened).state.store.liveRows(Side.LEFT.ordinal()), "the restored copy opens with its rows");
        }
    }

    /**
     * The reopen right after a restore takes the sums the restore returned only when they are handed to it, and
     * only where they are the marker's: another directory's sums (two restores in one process) are read past.
     */
    @Test
    void aReopenTrustsOnlyTheSumsOfItsOwnRestoreHandedToIt(@TempDir final Path dir) throws IOException
    {
        final StateConfig config = DurableStateTest.CONFIG.withChunkSize(64 * 1024).withMaxKeys(1 << 14);
        final CheckpointStore storeA = new CheckpointStore(dir.resolve("chk-a"));
        final CheckpointStore storeB = new CheckpointStore(dir.resolve("chk-b"));
        try (JoinOperator a = open(config, dir.resolve("a")); JoinOperator b = open(config, dir.resolve("b")))
        {
            DurableStateTest.rows(a, Side.LEFT, 0, 40);
            DurableStateTest.rows(b, Side.RIGHT, 100, 107);
            checkpoint(a, new StateImage(dir.resolve("a")), storeA, 1);
            checkpoint(b, new StateImage(dir.resolve("b")), storeB, 1);
        }
        final byte[] sumsA = ChunkSums.encode(new StateImage(dir.resolve("ra")).restore(
            storeA.open(1, DurableStateTest.REGULAR.fingerprint())));
        new StateImage(dir.resolve("rb")).restore(storeB.open(1, DurableStateTest.REGULAR.fingerprint()));
        // Handed in last: any other copy of the config (its state directory set, say) drops them.
        try (JoinOperator reopened = JoinOperators.create(DurableStateTest.REGULAR,
            config.withStateDirectory(dir.resolve("ra")).withRestoredChunkSums(sumsA), results, deadLetters))
        {
            assertEquals(0, ((OperatorDriver)reopened).state.bytesVerifiedToOpen(), "its own restore's sums, handed in");
            assertEquals(40, ((OperatorDriver)reopened).state.store.liveRows(Side.LEFT.ordinal()));
        }
        try (JoinOperator reopened = JoinOperators.create(DurableStateTest.REGULAR,
            config.withStateDirectory(dir.resolve("rb")).withRestoredChunkSums(sumsA), results, deadLetters))
        {
            assertTrue(((OperatorDriver)reopened).state.bytesVerifiedToOpen() > 0, "another directory's sums: every chunk read");
            assertEquals(7, ((OperatorDriver)reopened).state.store.liveRows(Side.RIGHT.ordinal()));
        }
        try (JoinOperator reopened = open(config, dir.resolve("rb")))
        {
            assertTrue(((OperatorDriver)reopened).state.bytesVerifiedToOpen() > 0, "none handed in: every chunk read");
        }
    }

    /**
     * Random rounds of inserts and deletes, each followed by an incremental checkpoint that is restored into
     * another directory: the restored files are byte for byte the live ones, and reopen.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2})
    void incrementalCheckpointsRestoreTheExactBytesOfTheirState(final long seed, @TempDir final Path dir) throws IOException
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Path state = dir.resolve("state");
        final StateImage image = new StateImage(state);
        final CheckpointStore store = new CheckpointStore(dir.resolve("checkpoints"));
        // An 8 MiB key table that the first round fills all over: the later rounds touch some of its chunks, not all.
        final StateConfig config = DurableStateTest.CONFIG.withChunkSize(64 * 1024).withMaxKeys(1 << 18);
        int next = 0;
        final long[] keys = new long[60_000 + 8 * 16];
        try (JoinOperator op = open(config, state))
        {
            for (int round = 1; round <= 6; round++)
            {
                // The first round spreads 15-20k rows over 50,000 keys (some MiB of arena and all of the key
                // table); the later ones change a few rows of 100 hot keys, so that some chunks stay as they were.
                final int inserts = round == 1 ? 15_000 + random.nextInt(5_000) : random.nextInt(16);
                for (int i = 0; i < inserts; i++)
                {
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    keys[next] = round == 1 ? keyOf(next, seed) : keyOf(next, seed) % 100;
                    op.onRow(side, ChangeKind.INSERT, row(side, keys[next], next), next, next);
                    next++;
                }
                final int deletes = round == 1 ? 0 : random.nextInt(6);
                for (int i = 0; i < deletes; i++)
                {
                    final int id = random.nextInt(next);
                    if (keys[id] >= 100)
                    {
                        continue;
                    }
                    final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
                    op.onRow(side, ChangeKind.DELETE, row(side, keys[id], id), id, next);
                }
                checkpoint(op, image, store, round);
                final Map<String, byte[]> live = DurableStateTest.contents(state);
                final Path restored = dir.resolve("restored-" + round);
                final StateImage restoring = new StateImage(restored);
                restoring.restore(store.open(round, DurableStateTest.REGULAR.fingerprint()));
                final Map<String, byte[]> copy = DurableStateTest.contents(restored);
                assertEquals(live.keySet(), copy.keySet(), "round " + round);
                for (final Map.Entry<String, byte[]> file : live.entrySet())
                {
                    assertArrayEquals(file.getValue(), copy.get(file.getKey()), "round " + round + ": " + file.getKey());
                }
                if (round > 1)
                {
                    assertTrue(image.bytesLinked() > 0, "round " + round + " links what did not change");
                }
            }
        }
        // The last restored copy reopens (its chunks verify) and holds the same rows. Nothing hands the reopen
        // the restore's sums (no process-wide state keeps them), so it reads and checks every chunk.
        try (JoinOperator reopened = open(config, dir.resolve("restored-6")))
        {
            assertTrue(((OperatorDriver)reopened).state.bytesVerifiedToOpen() > 0);
        }
    }

    /** A row's key, from its id: spread over 50,000 keys, so that rounds touch chunks all over the table. */
    static long keyOf(final long id, final long seed)
    {
        return Math.floorMod((id + seed) * 0x9E3779B97F4A7C15L >>> 20, 50_000L);
    }

    static RowView row(final Side side, final long key, final long id)
    {
        return Rows.row(side == Side.LEFT ? DurableStateTest.LEFT : DurableStateTest.RIGHT, "k", key, "id", id, "v", "payload-" + id);
    }

    @Test
    void aByteDamagedInTheLiveFilesAfterACleanCloseIsRefusedNamingTheFileAndChunk(@TempDir final Path dir) throws IOException
    {
        final Path state = dir.resolve("state");
        try (JoinOperator op = open(DEFAULT_SIZED, state))
        {
            DurableStateTest.rows(op, Side.LEFT, 0, 3000);
            DurableStateTest.rows(op, Side.RIGHT, 3000, 4000);
        }
        final Path clean = dir.resolve("clean");
        DurableStateTest.copy(state, clean);
        final long arenaRecord = NativeArena.HEADER_LENGTH + 1000;
        final Object[][] damages = {
            {DurableState.ARENA, arenaRecord, "chunk 0 "},
            {DurableState.ARENA, Files.size(state.resolve(DurableState.ARENA)) - 10, "chunk " + (Files.size(state.resolve(DurableState.ARENA)) - 10) / MIB + " "},
            {DurableState.INDEX, 20L * MIB + 5, "chunk 20 "},
            {DurableState.UNIQUE_LEFT, 100L, "chunk 0 "},
        };
        for (final Object[] damage : damages)
        {
            final Path target = dir.resolve("damaged-" + damage[0] + "-" + damage[1]);
            DurableStateTest.copy(clean, target);
            try (RandomAccessFile file = new RandomAccessFile(target.resolve((String)damage[0]).toFile(), "rw"))
            {
                file.seek((Long)damage[1]);
                final int b = file.read();
                file.seek((Long)damage[1]);
                file.write(b ^ 0x10);
            }
            final DurableStateException e = assertThrows(DurableStateException.class, () -> open(DEFAULT_SIZED, target).close());
            assertTrue(e.getMessage().contains(damage[0] + " " + damage[2]) && e.getMessage().contains("damaged"),
                e.getMessage());
        }
        try (JoinOperator reopened = open(DEFAULT_SIZED, clean))
        {
            assertTrue(((OperatorDriver)reopened).state.bytesVerifiedToOpen() >= 32L * MIB, "every chunk is verified");
        }
    }
}
