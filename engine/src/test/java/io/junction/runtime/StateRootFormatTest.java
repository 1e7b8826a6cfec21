package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.internal.durable.SmallFiles;
import io.junction.join.StateConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import java.nio.charset.StandardCharsets;

/**
 * A state root's small files are what the engine wrote before the checkpoint coordinator and the record
 * classes existed: the files a run leaves are compared byte for byte with those the old writers (JoinEngine's
 * and DurablePartition's at 79afe02, reproduced here line by line) write for the same values, then replaced
 * by the old writers' and read back by a restart, both ways (a clean close reopened, a checkpoint restored).
 */
@Timeout(60)
class StateRootFormatTest
{
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();
    private static final int PARTITIONS = 2;

    @TempDir
    Path temp;

    private final AtomicLongArray counts = new AtomicLongArray(8);
    private final AtomicLongArray stepSums = new AtomicLongArray(8);
    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
    private final RowView view = new RowView();

    private JoinEngine start(final Path root)
    {
        return JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(PARTITIONS).withRingSize(256)
                .withState(StateConfig.defaults().withMaxKeys(1024).withHashSeed(7)).withStateRoot(root))
            .resultHandler((kind, left, right, ts, step) -> { })
            .stateOperatorFactory((state, results, deadLetters) ->
                new CountingDurableOperator(state.stateDirectory(), counts, stepSums, p -> false,
                    CountingDurableOperator.Hooks.NONE))
            .start();
    }

    private long total()
    {
        long total = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            total += counts.get(p);
        }
        return total;
    }

    private void publish(final Publisher publisher, final long from, final long to)
    {
        for (long step = from; step < to; step++)
        {
            final int length = new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, step).putLong(1, step).finish();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, view.wrap(buffer, 0, length), 0, step));
        }
    }

    /** Writes {@code lines} as the old code did (SmallFiles, unchanged) into a side file; returns its bytes. */
    private byte[] oldBytes(final String name, final List<String> lines) throws Exception
    {
        final Path file = Files.createDirectories(temp.resolve("old")).resolve(name);
        SmallFiles.write(file, lines);
        return Files.readAllBytes(file);
    }

    /** Replaces a file of the root with the old writer's bytes, after checking the new writer wrote the same. */
    private void replaceWithOld(final Path file, final List<String> lines) throws Exception
    {
        final byte[] old = oldBytes(file.getFileName().toString(), lines);
        assertEquals(new String(old, StandardCharsets.US_ASCII),
            new String(Files.readAllBytes(file), StandardCharsets.US_ASCII), file.toString());
        Files.write(file, old);
    }

    private List<String> oldEngineLines()
    {
        return List.of("junction-engine 1", "partitions " + PARTITIONS,
            String.format(Locale.ROOT, "fingerprint %016x", SPEC.fingerprint()),
            String.format(Locale.ROOT, "hashSeed %016x", 7L));
    }

    private static List<String> oldConfirmedLines(final long id, final long[] positions)
    {
        return List.of("junction-checkpoint-confirmed 1", "id " + id, SmallFiles.positionsLine(positions));
    }

    private static List<String> oldClosedLines(final long[] positions)
    {
        return List.of("junction-closed 1", String.format(Locale.ROOT, "fingerprint %016x", SPEC.fingerprint()),
            SmallFiles.positionsLine(positions));
    }

    @Test
    void aRootWithTheOldRecordsReopensItsCleanCloseAndRestoresItsCheckpoint() throws Exception
    {
        final Path root = temp.resolve("root");
        try (JoinEngine engine = start(root))
        {
            final Publisher publisher = engine.publisher();
            publish(publisher, 0, 200);
            assertEquals(0, engine.checkpoint(new long[] {199, 42}).get(30, TimeUnit.SECONDS).id());
            publish(publisher, 200, 300);
            assertEquals(true, engine.close(new long[] {299, 42}));
        }
        // The close's checkpoint is the second one of the root: id 1, confirmed.
        replaceWithOld(root.resolve("ENGINE"), oldEngineLines());
        replaceWithOld(root.resolve("CHECKPOINT"), oldConfirmedLines(1, new long[] {299, 42}));
        for (int p = 0; p < PARTITIONS; p++)
        {
            replaceWithOld(root.resolve("partition-" + p).resolve("CLOSED"), oldClosedLines(new long[] {299, 42}));
        }
        try (JoinEngine engine = start(root))
        {
            assertArrayEquals(new long[] {299, 42}, engine.restoredPositions(), "the clean close is reopened");
            assertEquals(-1, engine.restoredCheckpointId());
            assertEquals(300, total());
            // A crash: no close positions, so no clean-close record; the next start restores the newest checkpoint.
            assertEquals(2, engine.checkpoint(new long[] {299, 43}).get(30, TimeUnit.SECONDS).id());
        }
        replaceWithOld(root.resolve("CHECKPOINT"), oldConfirmedLines(2, new long[] {299, 43}));
        try (JoinEngine engine = start(root))
        {
            assertArrayEquals(new long[] {299, 43}, engine.restoredPositions(), "the confirmed checkpoint is restored");
            assertEquals(2, engine.restoredCheckpointId());
            assertEquals(300, total());
        }
    }
}
