package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.Side;
import io.junction.internal.cut.StagedCut;
import io.junction.internal.durable.CheckpointFiles;
import io.junction.internal.durable.CheckpointStore;
import io.junction.internal.durable.StateImage;
import io.junction.internal.state.Chunks;
import io.junction.testing.CollectingDeadLetterHandler;
import io.junction.testing.CollectingResultHandler;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The staged cut of an asynchronous checkpoint ({@link JoinOperator#stage}, docs/DURABILITY.md "What runs
 * where") is exactly the state at the cut, however the state changes before the cut is written: two twin
 * operators get the same random rows; the synchronous twin persists and copies its directory at each round's
 * cut, the staged twin stages its cut, applies the next round's rows (changing chunks the cut holds and
 * others), and only then writes the cut. Both checkpoints restore to the same bytes, file by file, every
 * round (incremental ones linking what did not change), and a cut whose write fails (its chunks marked again)
 * leaves the next one exact. The write drains the cut chunk by chunk (one capture buffer) however large it is
 * (the first cut: every chunk), with no staging budget; only stage A (a copy at the cut) is still bounded by one,
 * and by direct memory, its refusals counted. The suites' dirty-chunk check mode checks every cut's marks too.
 */
class StagedCheckpointTest
{
    private final CollectingResultHandler results = new CollectingResultHandler(DurableStateTest.LEFT, DurableStateTest.RIGHT);
    private final CollectingDeadLetterHandler deadLetters =
        new CollectingDeadLetterHandler(DurableStateTest.LEFT, DurableStateTest.RIGHT);

    private JoinOperator open(final StateConfig config, final Path dir)
    {
        return JoinOperators.create(DurableStateTest.REGULAR, config.withStateDirectory(dir), results, deadLetters);
    }

    /** One round's rows: many at first (some MiB of arena, the key table all over), a few of 100 hot keys later. */
    private static int round(final SplittableRandom random, final int round, final long seed, final long[] keys, final int from,
        final JoinOperator... ops)
    {
        int next = from;
        final int inserts = round == 1 ? 12_000 + random.nextInt(4_000) : random.nextInt(40);
        for (int i = 0; i < inserts; i++)
        {
            final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
            keys[next] = round == 1 ? IncrementalCheckpointTest.keyOf(next, seed) : IncrementalCheckpointTest.keyOf(next, seed) % 100;
            for (final JoinOperator op : ops)
            {
                op.onRow(side, ChangeKind.INSERT, IncrementalCheckpointTest.row(side, keys[next], next), next, next);
            }
            next++;
        }
        final int deletes = round == 1 ? 0 : random.nextInt(8);
        for (int i = 0; i < deletes; i++)
        {
            final int id = random.nextInt(next);
            if (keys[id] >= 100)
            {
                continue;
            }
            final Side side = random.nextBoolean() ? Side.LEFT : Side.RIGHT;
            for (final JoinOperator op : ops)
            {
                op.onRow(side, ChangeKind.DELETE, IncrementalCheckpointTest.row(side, keys[id], id), id, next);
            }
        }
        return next;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void aStagedCutWrittenAfterLaterChangesRestoresTheStateAtTheCut(final long seed, @TempDir final Path dir) throws IOException
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final StateConfig config = DurableStateTest.CONFIG.withChunkSize(64 * 1024).withMaxKeys(1 << 18);
        final Path syncState = dir.resolve("sync");
        final Path stagedState = dir.resolve("staged");
        final StateImage syncImage = new StateImage(syncState);
        final StateImage stagedImage = new StateImage(stagedState);
        final CheckpointStore syncStore = new CheckpointStore(dir.resolve("sync-checkpoints"));
        final CheckpointStore stagedStore = new CheckpointStore(dir.resolve("staged-checkpoints"));
        final long fingerprint = DurableStateTest.REGULAR.fingerprint();
        final StagedCut cut = new StagedCut();
        final CheckpointCut handle = (CheckpointCut & StagedCut.Source)() -> cut;
        final long[] keys = new long[20_000 + 10 * 40];
        int next = 0;
        try (JoinOperator sync = open(config, syncState); JoinOperator staged = open(config, stagedState))
        {
            next = round(random, 1, seed, keys, next, sync, staged);
            for (int round = 1; round <= 8; round++)
            {
                IncrementalCheckpointTest.checkpoint(sync, syncImage, syncStore, round);
                if (round == 7 || round == 6)
                {
                    // Stage A (a copy at the cut) is bounded: without direct memory for its buffers (a pool that
                    // may not grow), or beyond its staging budget, the marks taken are given back (counted), and
                    // the synchronous checkpoint in its place holds every change.
                    final long refused = cut.synchronousFallbacks();
                    cut.copyAtCut(true);
                    if (round == 7)
                    {
                        cut.dropPool();
                        cut.bufferLimit(0);
                    }
                    else
                    {
                        cut.maxStagedBytes(1);
                    }
                    assertFalse(staged.stage(handle), "a stage-A cut without memory or beyond its budget is refused");
                    assertEquals(refused + 1, cut.synchronousFallbacks(), "the refusal is counted");
                    cut.bufferLimit(Integer.MAX_VALUE);
                    cut.maxStagedBytes(1L << 40);
                    cut.copyAtCut(false);
                    IncrementalCheckpointTest.checkpoint(staged, stagedImage, stagedStore, round);
                    next = round(random, round + 1, seed, keys, next, sync, staged);
                }
                else
                {
                    if (round == 1)
                    {
                        // A handle the runtime did not make is refused before the operator moves anything.
                        assertThrows(IllegalArgumentException.class, () -> staged.stage(new CheckpointCut()
                        {
                        }));
                    }
                    if (round == 1 || round == 5)
                    {
                        // A copy-on-write cut needs no staging memory at the cut: neither a budget of a byte nor
                        // a pool that may not grow refuses it, whatever its size (round 1: every chunk new).
                        cut.maxStagedBytes(1);
                        cut.bufferLimit(0);
                    }
                    final long refused = cut.synchronousFallbacks();
                    assertTrue(staged.stage(handle), "a hash-indexed state stages its cut");
                    assertEquals(refused, cut.synchronousFallbacks());
                    assertEquals(0, cut.bytesCopied(), "a copy-on-write cut copies nothing at the cut");
                    if (round == 1)
                    {
                        assertTrue(cut.bytesStaged() > 4L * Chunks.CHUNK_BYTES, "the first cut is many chunks: " + cut.bytesStaged());
                    }
                    cut.maxStagedBytes(1L << 40);
                    cut.bufferLimit(Integer.MAX_VALUE);
                    // The cut is taken: the state changes before the cut is written (as while the writer works).
                    next = round(random, round + 1, seed, keys, next, sync, staged);
                    final CheckpointFiles writer = stagedStore.begin(round, fingerprint, new long[] {round});
                    stagedImage.write(writer, writer.directory(), cut);
                    if (round == 4)
                    {
                        // As a write that failed before its manifest: nothing counts, its chunks are marked again.
                        stagedImage.aborted();
                        writer.abort();
                        staged.staged(handle, false);
                        assertFalse(cut.needsFullCut());
                        continue;
                    }
                    writer.commit();
                    stagedImage.committed();
                    staged.staged(handle, true);
                    assertEquals(0, cut.pooledBuffers(), "round " + round + ": the writer's drain took no pool buffer");
                    assertTrue(cut.hasCaptureBuffer(), "it captured chunk by chunk into its one buffer");
                }
                if (round > 1 && round != 6 && round != 7)
                {
                    assertTrue(stagedImage.bytesLinked() > 0, "round " + round + " links what did not change");
                    assertTrue(cut.bytesStaged() < 8L * Chunks.CHUNK_BYTES, "round " + round + " staged its dirty chunks only: " +
                        cut.bytesStaged());
                }
                final Path syncRestored = dir.resolve("sync-restored-" + round);
                new StateImage(syncRestored).restore(syncStore.open(round, fingerprint));
                final Path stagedRestored = dir.resolve("staged-restored-" + round);
                new StateImage(stagedRestored).restore(stagedStore.open(round, fingerprint));
                final Map<String, byte[]> expected = DurableStateTest.contents(syncRestored);
                final Map<String, byte[]> actual = DurableStateTest.contents(stagedRestored);
                assertEquals(expected.keySet(), actual.keySet(), "round " + round);
                for (final Map.Entry<String, byte[]> file : expected.entrySet())
                {
                    assertArrayEquals(file.getValue(), actual.get(file.getKey()), "round " + round + ": " + file.getKey());
                }
            }
        }
        // A staged checkpoint reopens: its marker and every chunk's checksum verify (nothing hands the reopen the
        // restore's sums, which it would take instead of reading the chunks).
        try (JoinOperator reopened = open(config, dir.resolve("staged-restored-8")))
        {
            assertTrue(((OperatorDriver)reopened).state.bytesVerifiedToOpen() > 0);
        }
    }
}
