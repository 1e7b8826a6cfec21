package io.junction.runtime;

import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The temporal and lookup joins through the runtime: the README's example (orders joined with the
 * currency rate valid at their time), and the same random log with 1 and with 4 partitions giving the
 * same output per step (rows are routed by the key's hash, watermarks go to every partition).
 */
class TemporalJoinEngineTest
{
    @Test
    void ordersJoinTheRateValidAtTheirTime()
    {
        final AtomicLong late = new AtomicLong();
        final CollectingResultHandler results;
        // README:begin temporal
        Schema orders = Schema.of("order_id", "currency", "amount");
        Schema rates = Schema.of("currency", "rate");
        JoinSpec spec = JoinSpec.builder(JoinKind.TEMPORAL, JoinType.LEFT)           // or LOOKUP: the current rate
            .schemas(orders, rates)
            .leftKey("currency").rightKey("currency")                                // the rate table's primary key
            .build();
        results = new CollectingResultHandler(spec);                                 // typed results, for the example
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandlers(partition -> results).deadLetterHandler((side, kind, row, ts, step, reason) -> late.incrementAndGet())
            .start())
        {
            Publisher p = engine.publisher();
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("currency", "EUR", "rate", 114), 1000, 0);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 1, "currency", "EUR", "amount", 2), 1500, 1);
            p.publish(Side.RIGHT, ChangeKind.UPDATE_AFTER, Row.of("currency", "EUR", "rate", 116), 2000, 2);
            p.publish(Side.RIGHT, ChangeKind.UPDATE_AFTER, Row.of("currency", "EUR", "rate", 115), 1800, 3); // out of order
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 2, "currency", "EUR", "amount", 3), 1900, 4);
            p.watermark(2500, 5);                       // both orders are emitted here: rate 114, then 115
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 3, "currency", "EUR", "amount", 4), 2400, 6); // late
            p.endOfInput(7);
        }
        // README:end temporal
        final List<String> out = new ArrayList<>();
        for (final CollectingResultHandler.Result r : results.results())
        {
            out.add(r.step() + " " + r.left().get("order_id") + " " + r.right().get("rate"));
        }
        out.sort(null);
        assertEquals(List.of("5 1 114", "5 2 115"), out);
        assertEquals(1, late.get(), "order 3 is below the watermark");
    }

    @ParameterizedTest
    @EnumSource(value = JoinKind.class, names = {"TEMPORAL", "LOOKUP"})
    void oneAndFourPartitionsGiveTheSameOutputPerStep(final JoinKind kind)
    {
        final Map<Long, List<String>> one = run(kind, 1);
        final Map<Long, List<String>> four = run(kind, 4);
        assertEquals(one, four);
        final long rows = one.values().stream().mapToLong(List::size).sum();
        assertTrue(rows > 500, "output rows: " + rows);
    }

    /** @return the output per step, each step's lines sorted (order within a step is free). */
    private static Map<Long, List<String>> run(final JoinKind kind, final int partitions)
    {
        final Schema schema = Schema.of("k", "id", "v");
        final JoinSpec spec = JoinSpec.builder(kind, JoinType.LEFT).schemas(schema, schema).leftKey("k").rightKey("k").build();
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        final Random random = new Random(0xC0FFEE);
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(partitions))
            .resultHandlers(p -> results).start())
        {
            final Publisher p = engine.publisher();
            long now = 0;
            long step = 0;
            for (int i = 0; i < 4000; i++)
            {
                now += random.nextInt(3);
                final long ts = now - random.nextInt(30);
                final int dice = random.nextInt(100);
                final Object key = random.nextInt(40) == 0 ? null : (long)random.nextInt(64);
                if (dice < 45)
                {
                    p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("k", key, "id", "L" + i, "v", 0), ts, step++);
                }
                else if (dice < 90)
                {
                    final ChangeKind op = dice < 70 ? ChangeKind.INSERT : dice < 80 ? ChangeKind.UPDATE_AFTER :
                        dice < 85 ? ChangeKind.UPDATE_BEFORE : ChangeKind.DELETE;
                    p.publish(Side.RIGHT, op, Row.of("k", key, "id", "R" + i, "v", 1), ts, step++);
                }
                else
                {
                    p.watermark(now - 40, step++);
                }
            }
            p.endOfInput(step);
        }
        final Map<Long, List<String>> byStep = new TreeMap<>();
        for (final CollectingResultHandler.Result r : results.results())
        {
            byStep.computeIfAbsent(r.step(), s -> new ArrayList<>())
                .add(r.kind().shortString() + " " + r.left().get("id") + " " + (r.right() == null ? null : r.right().get("id")));
        }
        byStep.values().forEach(lines -> lines.sort(null));
        return byStep;
    }
}
