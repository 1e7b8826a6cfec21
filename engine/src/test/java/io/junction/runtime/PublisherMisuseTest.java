package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A publisher used wrongly: arguments that do not describe a row inside the caller's buffer, a full
 * ring under {@code tryPublish}, and a second publishing thread on a single-producer engine. Nothing
 * may be claimed for a refused call, and nothing may block or be lost.
 */
class PublisherMisuseTest
{
    private static final Schema SCHEMA = Schema.of("k", "v");
    private static final StateConfig SMALL_STATE = StateConfig.defaults().withMaxKeys(4096);

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final RowWriter writer = new RowWriter();
    private final RowView row = new RowView();

    private RowView row(final long k, final long v)
    {
        writer.wrap(buffer, 0, buffer.capacity(), 2).putLong(0, k).putLong(1, v);
        return row.wrap(buffer, 0, writer.finish());
    }

    private static JoinSpec leftJoin()
    {
        return JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SCHEMA, SCHEMA).leftKey("k").rightKey("k").build();
    }

    private static EngineConfig config(final boolean multiProducer)
    {
        return EngineConfig.defaults().withPartitions(1).withRingSize(16).withState(SMALL_STATE)
            .withMultiProducer(multiProducer);
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseARowRunningPastTheBufferWithoutProcessingAPhantomRow()
    {
        shouldRefuseARowRunningPastTheBuffer(false);
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseARowRunningPastTheBufferWithoutStallingAMultiProducerPartition()
    {
        shouldRefuseARowRunningPastTheBuffer(true);
    }

    private void shouldRefuseARowRunningPastTheBuffer(final boolean multiProducer)
    {
        final AtomicInteger results = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(leftJoin()).config(config(multiProducer))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .start();
        final Publisher publisher = engine.publisher();
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 1), 0, 0));
        final int length = row(2, 2).length();
        assertEquals(Publisher.INVALID_ARGUMENT, publisher.publish(
            Side.LEFT, ChangeKind.INSERT, buffer, buffer.capacity() - length + 1, length, 0, 1, System.nanoTime()));
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(3, 3), 0, 2));
        engine.close();
        assertEquals(2, results.get(), "the two good rows are padded, the refused one is nowhere");
        assertEquals(2, engine.metrics().get(0).rowsIn);
        assertEquals(1, engine.refusedRows());
    }

    @Test
    void shouldRefuseEveryArgumentThatDoesNotDescribeARowInTheBuffer()
    {
        final AtomicInteger results = new AtomicInteger();
        try (JoinEngine engine = JoinEngine.builder(leftJoin()).config(config(false))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .start())
        {
            final Publisher publisher = engine.publisher();
            final int length = row(1, 1).length();
            final long now = System.nanoTime();
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publish(null, ChangeKind.INSERT, buffer, 0, length, 0, 0, now));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publish(Side.LEFT, null, buffer, 0, length, 0, 0, now));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publish(Side.LEFT, ChangeKind.INSERT, null, 0, length, 0, 0, now));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, -1, length, 0, 0, now));
            assertEquals(Publisher.INVALID_ARGUMENT, publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, -1, 0, 0, now));
            assertEquals(Publisher.INVALID_ARGUMENT,
                publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, Integer.MAX_VALUE - 2, length, 0, 0, now),
                "offset + length overflows an int");
            assertEquals(Publisher.INVALID_ARGUMENT,
                publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, buffer.capacity(), length, 0, 0, now));
            assertEquals(Publisher.INVALID_ARGUMENT,
                publisher.tryPublish(Side.LEFT, ChangeKind.INSERT, buffer, 1, buffer.capacity(), 0, 0, now));
            assertEquals(8, engine.refusedRows(), "every refused call is counted");
        }
        assertEquals(0, results.get(), "nothing reached a partition");
    }

    /**
     * With {@code -Dagrona.disable.bounds.checks=true} Agrona no longer checks offsets: the publisher's
     * own checks are all that stands between a bad offset and a crash of the JVM, so they are tried
     * in a JVM of their own with the flag set.
     */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldRefuseBadBoundsEvenWithAgronaBoundsChecksDisabled() throws Exception
    {
        // Were the checks to fail, the JVM would crash: no core dump, and its report in a temporary folder.
        final List<String> options = new ArrayList<>();
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("-XX:MaxDirectMemorySize"))
            {
                options.add(argument);
            }
        }
        options.addAll(List.of("-Dagrona.disable.bounds.checks=true", "-XX:-CreateCoredumpOnCrash",
            "-XX:ErrorFile=" + System.getProperty("java.io.tmpdir") + "/junction-probe-hs_err_%p.log"));
        final String output = ChildJvm.run(options, UncheckedBoundsProbe.class);
        assertTrue(output.contains(UncheckedBoundsProbe.OK), output);
    }

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldNeverBlockInTryPublishEvenWhenAGeneratedWatermarkFindsTheRingFull() throws Exception
    {
        final CountDownLatch handlerEntered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger results = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(leftJoin())
            .config(config(false).withRingSize(4))
            .resultHandler((kind, left, right, ts, step) ->
            {
                handlerEntered.countDown();
                await(release);
                results.incrementAndGet();
            })
            .start();
        // A regular left join pads a left row at once: the partition thread then waits in the handler
        // with the three other slots free, and each row below is followed by its generated watermark.
        assertEquals(Publisher.PUBLISHED, engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, row(0, 0), 0, 0));
        final Publisher publisher = engine.publisher().generateWatermarks(0, 1, 1);
        assertTrue(handlerEntered.await(10, TimeUnit.SECONDS));
        int published = 0;
        int code;
        while ((code = publisher.tryPublish(Side.LEFT, ChangeKind.INSERT, buffer, 0, row(published + 1, 0).length(),
            published + 1, published + 2, System.nanoTime())) == Publisher.PUBLISHED)
        {
            published++;
            assertTrue(published <= 8, "a ring of 4 cannot take more");
        }
        assertEquals(Publisher.BACK_PRESSURED, code);
        release.countDown();
        engine.close();
        assertEquals(1 + published, engine.metrics().get(0).rowsIn, "every row tryPublish accepted arrived");
    }

    @Test
    void shouldRefuseAPublisherUsedFromASecondThread() throws Exception
    {
        final AtomicInteger results = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(leftJoin()).config(config(true))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .start();
        final Publisher publisher = engine.publisher();
        assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, row(1, 1), 0, 0));
        final RowView other = new RowView().wrap(buffer, 0, row.length());
        final Throwable thrown = onAnotherThread(() -> publisher.publish(Side.LEFT, ChangeKind.INSERT, other, 0, 1));
        engine.close();
        assertTrue(thrown instanceof IllegalStateException, String.valueOf(thrown));
        assertTrue(thrown.getMessage().contains(Thread.currentThread().getName()), thrown.getMessage());
        assertEquals(1, results.get(), "nothing was claimed for the refused call");
    }

    @Test
    void shouldRefuseASecondPublishingThreadOnASingleProducerEngine() throws Exception
    {
        final AtomicInteger results = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(leftJoin()).config(config(false))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .start();
        assertEquals(Publisher.PUBLISHED, engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, row(1, 1), 0, 0));
        final Publisher second = engine.publisher();
        final RowView other = new RowView().wrap(buffer, 0, row.length());
        final Throwable thrown = onAnotherThread(() -> second.publish(Side.LEFT, ChangeKind.INSERT, other, 0, 1));
        final Throwable watermark = onAnotherThread(() -> engine.publisher().watermark(5, 2));
        engine.close();
        assertTrue(thrown instanceof IllegalStateException, String.valueOf(thrown));
        assertTrue(thrown.getMessage().contains("multiProducer"), thrown.getMessage());
        assertTrue(watermark instanceof IllegalStateException, String.valueOf(watermark));
        assertEquals(1, results.get(), "nothing was claimed for the refused calls");
    }

    @Test
    void shouldAcceptOnePublisherPerThreadOnAMultiProducerEngine() throws Exception
    {
        final AtomicInteger results = new AtomicInteger();
        final JoinEngine engine = JoinEngine.builder(leftJoin()).config(config(true))
            .resultHandler((kind, left, right, ts, step) -> results.incrementAndGet())
            .start();
        assertEquals(Publisher.PUBLISHED, engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, row(1, 1), 0, 0));
        final RowView other = new RowView().wrap(buffer, 0, row.length());
        final AtomicInteger code = new AtomicInteger(Integer.MIN_VALUE);
        assertNull(onAnotherThread(() -> code.set(engine.publisher().publish(Side.LEFT, ChangeKind.INSERT, other, 0, 1))));
        engine.close();
        assertEquals(Publisher.PUBLISHED, code.get());
        assertEquals(2, results.get());
    }

    private static Throwable onAnotherThread(final Runnable action) throws InterruptedException
    {
        final AtomicReference<Throwable> thrown = new AtomicReference<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                action.run();
            }
            catch (final Throwable t)
            {
                thrown.set(t);
            }
        }, "second-producer");
        thread.start();
        thread.join();
        return thrown.get();
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
