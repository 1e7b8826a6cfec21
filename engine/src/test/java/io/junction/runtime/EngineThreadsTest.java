package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Partition threads as an operator of a service wants them: named, daemon or not, from their factory, pinnable. */
class EngineThreadsTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final JoinSpec LEFT_JOIN =
        JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").build();
    private static final EngineConfig CONFIG = EngineConfig.defaults().withPartitions(2).withRingSize(16)
        .withState(StateConfig.defaults().withMaxKeys(4096));

    /** Runs one left row per key 0..15 and returns, per partition, the threads' "name daemon" seen by the handlers. */
    private static Map<Integer, String> threadsSeenByHandlers(final JoinEngine.Builder builder)
    {
        final Map<Integer, String> seen = new ConcurrentHashMap<>();
        try (JoinEngine engine = builder
            .resultHandlers(p -> (kind, left, right, ts, step) ->
                seen.put(p, Thread.currentThread().getName() + " " + Thread.currentThread().isDaemon()))
            .start())
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            final RowWriter writer = new RowWriter();
            final Publisher publisher = engine.publisher();
            for (int k = 0; k < 16; k++)
            {
                final int length = writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, 0).finish();
                assertEquals(Publisher.PUBLISHED,
                    publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 0, k, System.nanoTime()));
            }
        }
        return new TreeMap<>(seen);
    }

    @Test
    void shouldNamePartitionThreadsJunctionPNAndMakeThemNonDaemonsByDefault()
    {
        // non-daemon: a forgotten close() keeps the JVM alive rather than dropping queued events at exit
        assertEquals(Map.of(0, "junction-p0 false", 1, "junction-p1 false"),
            threadsSeenByHandlers(JoinEngine.builder(LEFT_JOIN).config(CONFIG)));
    }

    @Test
    void shouldUseTheConfiguredNamePrefixAndDaemonSetting()
    {
        assertEquals(Map.of(0, "orders-join-0 true", 1, "orders-join-1 true"),
            threadsSeenByHandlers(JoinEngine.builder(LEFT_JOIN)
                .config(CONFIG.withThreadNamePrefix("orders-join-").withDaemonThreads(true))));
    }

    @Test
    void shouldCreatePartitionThreadsWithTheUsersThreadFactory()
    {
        final AtomicInteger created = new AtomicInteger();
        final Map<Integer, String> seen = threadsSeenByHandlers(JoinEngine.builder(LEFT_JOIN).config(CONFIG)
            .threadFactory(runnable ->
            {
                final Thread thread = new Thread(runnable, "custom-" + created.getAndIncrement());
                thread.setDaemon(true);
                return thread;
            }));
        assertEquals(2, created.get());
        assertEquals(2, seen.size());
        for (final String thread : seen.values())
        {
            assertTrue(thread.startsWith("custom-"), thread);
        }
    }

    @Test
    void shouldNameTheCheckpointWritersAfterTheirPartitionThreads(@TempDir final Path root)
    {
        try (JoinEngine engine = JoinEngine.builder(LEFT_JOIN)
            .config(CONFIG.withThreadNamePrefix("orders-join-").withStateRoot(root))
            .resultHandler((kind, left, right, ts, step) -> { })
            .start())
        {
            engine.checkpoint(new long[] {16}).join();
            final List<String> writers = new ArrayList<>();
            for (final Thread thread : Thread.getAllStackTraces().keySet())
            {
                if (thread.getName().endsWith("-checkpoint-writer"))
                {
                    writers.add(thread.getName());
                }
            }
            writers.sort(null);
            // another engine's writers in this JVM would carry their own prefix: none starts with this one's but its own
            assertEquals(List.of("orders-join-0-checkpoint-writer", "orders-join-1-checkpoint-writer"),
                writers.stream().filter(name -> name.startsWith("orders-join-")).toList());
        }
    }

    @Test
    void shouldRunTheThreadStartHookOnEachPartitionThreadWithItsPartitionNumber()
    {
        final Map<Integer, String> started = new ConcurrentHashMap<>();
        final Map<Integer, String> seen = threadsSeenByHandlers(JoinEngine.builder(LEFT_JOIN).config(CONFIG)
            .onPartitionThreadStart(p -> started.put(p, Thread.currentThread().getName() + " " +
                Thread.currentThread().isDaemon())));
        assertEquals(seen, new TreeMap<>(started), "each hook ran on the thread that then runs its partition");
    }

    @Test
    void shouldNotWriteToStandardErrorAnywhereInTheEngine() throws IOException
    {
        final List<Path> offenders = new ArrayList<>();
        try (Stream<Path> sources = Files.walk(Path.of("src/main/java")))
        {
            sources.filter(path -> path.toString().endsWith(".java")).forEach(path ->
            {
                try
                {
                    final String text = Files.readString(path);
                    if (text.contains("System.err") || text.contains("System.out") || text.contains("printStackTrace"))
                    {
                        offenders.add(path);
                    }
                }
                catch (final IOException e)
                {
                    throw new IllegalStateException(e);
                }
            });
        }
        assertEquals(List.of(), offenders, "the engine logs through System.Logger");
    }
}
