package io.junction.internal.durable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.runtime.CheckpointException;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk (ENOSPC) while a checkpoint is written fails the checkpoint with a message naming the file that
 * could not be written, injected through {@link CheckpointStore#writeFault} instead of a
 * really full disk; the engine goes on, and the next checkpoint, once there is room, succeeds.
 */
@Timeout(60)
class CheckpointDiskFullTest
{
    private static final String ENOSPC = "No space left on device";

    @TempDir
    Path temp;

    @AfterEach
    void noFault()
    {
        CheckpointStore.writeFault = null;
    }

    private static void diskFull(final Path file) throws IOException
    {
        throw new IOException(ENOSPC);
    }

    @Test
    void aFileThatCannotBeWrittenIsNamed() throws IOException
    {
        final CheckpointStore store = new CheckpointStore(temp.resolve("checkpoints"));
        final CheckpointFiles writer = store.begin(1, 42, new long[] {7});
        final WritableByteChannel out = writer.file("c-0000-00000000");
        CheckpointStore.writeFault = CheckpointDiskFullTest::diskFull;
        final IOException e = assertThrows(IOException.class, () -> out.write(ByteBuffer.wrap(new byte[] {1, 2, 3})));
        assertTrue(e.getMessage().contains(writer.directory().resolve("c-0000-00000000").toString()), e.getMessage());
        assertTrue(e.getMessage().contains(ENOSPC), e.getMessage());
        writer.abort();
    }

    @Test
    void anEngineCheckpointOnAFullDiskFailsNamingTheFile() throws Exception
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
            .schemas(Schema.of("k", "v"), Schema.of("k", "v")).leftKey("k").rightKey("k").build();
        final Path root = temp.resolve("root");
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final RowView view = new RowView();
        try (JoinEngine engine = JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(1).withRingSize(256)
                .withState(StateConfig.defaults().withMaxKeys(1024)).withStateRoot(root))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start())
        {
            final Publisher publisher = engine.publisher();
            for (long step = 0; step < 10; step++)
            {
                view.wrap(buffer, 0, new RowWriter().wrap(buffer, 0, buffer.capacity(), 2).putLong(0, step).putLong(1, step).finish());
                assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, view, 0, step));
            }
            CheckpointStore.writeFault = CheckpointDiskFullTest::diskFull;
            final ExecutionException failed = assertThrows(ExecutionException.class,
                () -> engine.checkpoint(new long[] {9}).get(30, TimeUnit.SECONDS));
            final CheckpointException why = assertInstanceOf(CheckpointException.class, failed.getCause());
            assertTrue(why.getMessage().contains(ENOSPC), why.getMessage());
            assertTrue(why.getMessage().contains(root.resolve("partition-0").resolve("checkpoints").toString()),
                "names the file: " + why.getMessage());
            CheckpointStore.writeFault = null;
            engine.checkpoint(new long[] {9}).get(30, TimeUnit.SECONDS);
        }
    }
}
