package io.junction.examples;

import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;

import java.util.concurrent.atomic.AtomicLong;

/**
 * docs/JAVA_API.md's temporal-join example, as a program the build compiles and runs (the lines between the
 * {@code README:begin temporal} and {@code README:end temporal} markers are the README's block, word for
 * word): orders joined with the currency rate valid at their time, one rate arriving out of order and
 * one order arriving late. It prints {@code order 1 rate 114}, {@code order 2 rate 115} and {@code late 1}.
 */
public final class TemporalJoinExample
{
    private TemporalJoinExample()
    {
    }

    public static void main(final String[] args)
    {
        // README:begin temporal
        Schema orders = Schema.of("order_id", "currency", "amount");
        Schema rates = Schema.of("currency", "rate");
        JoinSpec spec = JoinSpec.builder(JoinKind.TEMPORAL, JoinType.LEFT)           // or LOOKUP: the current rate
            .schemas(orders, rates)
            .leftKey("currency").rightKey("currency")                                // the rate table's primary key
            .build();
        CollectingResultHandler results = new CollectingResultHandler(spec);        // typed copies, for the example
        AtomicLong late = new AtomicLong();
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandler(results).deadLetterHandler((side, kind, row, ts, step, reason) -> late.incrementAndGet())
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
        results.results().forEach(r -> System.out.println("order " + r.left().get("order_id") + " rate " + r.right().get("rate")));
        System.out.println("late " + late.get());
        // README:end temporal
    }
}
