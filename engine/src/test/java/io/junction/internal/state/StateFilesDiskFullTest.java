package io.junction.internal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.join.DurableStateException;
import io.junction.join.StateConfig;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk (ENOSPC) while a partition creates its state files at start: the start fails with a
 * {@link DurableStateException} naming the file that could not be created, a failure of the cleanup after it
 * is added to it as suppressed (never in its place), and the root's lock is released, so that the next start,
 * once there is room, opens the root (docs/DURABILITY.md). The full disk is injected
 * ({@link MappedFile#growthFault}, hence this package) instead of filling a real one.
 */
@Timeout(60)
class StateFilesDiskFullTest
{
    private static final String ENOSPC = "No space left on device";
    private static final JoinSpec SPEC = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
        .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();

    @TempDir
    Path temp;

    @AfterEach
    void noFault()
    {
        MappedFile.growthFault = null;
    }

    private static JoinEngine start(final Path root)
    {
        return JoinEngine.builder(SPEC)
            .config(EngineConfig.defaults().withPartitions(2).withRingSize(64)
                .withState(StateConfig.defaults().withMaxKeys(1024)).withStateRoot(root))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start();
    }

    private static Path stateFile(final Path root, final int partition, final String name)
    {
        return root.resolve("partition-" + partition).resolve("state").resolve(name);
    }

    @Test
    void aStateFileThatCannotBeCreatedIsNamedAndTheRootStaysUsable()
    {
        final Path root = temp.resolve("root");
        final Path arena = stateFile(root, 1, "arena.dat");
        MappedFile.growthFault = file ->
        {
            if (file.equals(arena))
            {
                throw new IOException(ENOSPC);
            }
        };
        final DurableStateException e = assertThrows(DurableStateException.class, () -> start(root));
        assertTrue(e.getMessage().contains(arena.toString()), "names the file: " + e.getMessage());
        assertTrue(e.getMessage().contains(ENOSPC), e.getMessage());

        MappedFile.growthFault = null;
        try (JoinEngine again = start(root))
        {
            assertEquals(2, again.metrics().size(), "the root's lock was released: a second engine opens it");
        }
    }

    @Test
    void aCleanupThatFailsTooIsSuppressedAndTheLockIsReleased() throws IOException
    {
        final Path root = temp.resolve("root");
        final Path arena = stateFile(root, 1, "arena.dat");
        // Partition 0's state is open when partition 1 creates its files: its close's persist, in the cleanup, will
        // find a directory in the way of its heap image and fail as well.
        final Path inTheWay = stateFile(root, 0, "heap.dat.tmp");
        MappedFile.growthFault = file ->
        {
            if (file.equals(arena))
            {
                Files.createDirectories(inTheWay.resolve("occupied"));
                throw new IOException(ENOSPC);
            }
        };
        final DurableStateException e = assertThrows(DurableStateException.class, () -> start(root));
        assertTrue(e.getMessage().contains(arena.toString()), "the first failure, naming its file: " + e.getMessage());
        assertTrue(Arrays.stream(e.getSuppressed()).anyMatch(s -> String.valueOf(s.getMessage()).contains("heap.dat")),
            () -> "the cleanup's failure is kept beside it: " + Arrays.toString(e.getSuppressed()));

        MappedFile.growthFault = null;
        Files.delete(inTheWay.resolve("occupied"));
        Files.delete(inTheWay);
        try (JoinEngine again = start(root))
        {
            assertEquals(2, again.metrics().size(), "the root's lock was released: a second engine opens it");
        }
    }
}
