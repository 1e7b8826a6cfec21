package io.junction.examples;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import io.junction.runtime.WaitStrategyKind;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * docs/JAVA_API.md's flyweight "Java API in one screen", as a program the build compiles and runs. The lines between
 * the {@code README:begin} and {@code README:end} markers are the README's code block, word for word
 * ({@code ReadmeSnippetTest} fails when the two differ), so the README never shows code that does not
 * compile. It prints each partition's metrics and then {@code results 2}: the click joined to its
 * show, and the show nobody clicked, padded when the input ends.
 */
public final class QuickStart
{
    private QuickStart()
    {
    }

    public static void main(final String[] args)
    {
        // README:begin
        Schema schema = Schema.of("log_id", "ts", "show_params", "click_params");
        JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT)        // or REGULAR / WINDOW
            .schemas(schema, schema)
            .leftKey("log_id").rightKey("log_id")                                  // composite keys: several fields
            .interval(IntervalBounds.inclusive(-30_000, 30_000))                   // right.ts in [left.ts-30s, left.ts+30s]
            .leftFilter("show_params", CompareOp.NE, Literal.of(""))               // pre-join filter, one side
            .condition("ts", CompareOp.LE, "ts")                                   // post-join condition, both sides
            .build();                                                              // validated: errors name the field

        AtomicLong results = new AtomicLong();
        JoinEngine engine = JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(2).withWaitStrategy(WaitStrategyKind.SLEEPING))
            .resultHandlers(partition -> (kind, left, right, ts, step) -> results.incrementAndGet()) // one per partition thread
            .deadLetterHandler((side, kind, row, ts, step, reason) -> { /* late rows, bad retractions */ })
            .start();                                                              // handlers see flyweight rows; null = padded side
        try (engine)                                                               // close(): drain, stop, free state
        {
            Publisher publisher = engine.publisher();                              // one per producing thread
            RowWriter writer = new RowWriter();                                    // rows: binary, flyweight-read
            UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(1024)); // any Agrona buffer, reused
            int length = writer.wrap(buffer, 0, 1024, 4).putAscii(0, "id-1").putLong(1, 1000).putAscii(2, "shown").finish();
            while (publisher.tryPublish(Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 1000, 1, System.nanoTime()) == Publisher.BACK_PRESSURED)
            {
                Thread.onSpinWait();                                               // ring full: retry, drop, or publish() which waits
            }
            length = writer.wrap(buffer, 0, 1024, 4).putAscii(0, "id-1").putLong(1, 1500).putAscii(3, "clicked").finish();
            publisher.publish(Side.RIGHT, ChangeKind.INSERT, buffer, 0, length, 1500, 2, System.nanoTime());
            length = writer.wrap(buffer, 0, 1024, 4).putAscii(0, "id-2").putLong(1, 2000).putAscii(2, "shown").finish();
            publisher.publish(Side.LEFT, ChangeKind.INSERT, buffer, 0, length, 2000, 3, System.nanoTime()); // never clicked
            publisher.watermark(5000, 4);                                          // both inputs; or watermark(Side, ...)
            publisher.endOfInput(5);                                               // flushes pending windows/outer rows
        }
        engine.metrics().forEach(System.out::println);                             // rows in/out, late, bad, live rows, off-heap bytes, ring
        System.out.println("results " + results.get() + ", p99 ns " + engine.sampleLatency().getValueAtPercentile(99));
        // README:end
    }
}
