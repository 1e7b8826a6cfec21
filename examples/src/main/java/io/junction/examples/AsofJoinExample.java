package io.junction.examples;

// README:begin asof-imports
import io.junction.api.AsofSpec;
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
// README:end asof-imports

/**
 * The ASOF-join example of docs/SEMANTICS.md section 11.6, as a program the build compiles and runs (the lines
 * between the {@code README:begin asof} and {@code README:end asof} markers are that section's block, word
 * for word): trades joined, eagerly, with the latest quote of their symbol at or before their time, within
 * one second. Trade 1 sees quote 100 at once, then a correction to quote 101 when that quote arrives out of
 * order; trade 2 has no quote within the tolerance. It prints {@code +I trade 1 bid 100},
 * {@code -U trade 1 bid 100}, {@code +U trade 1 bid 101} and {@code +I trade 2 bid null}.
 */
public final class AsofJoinExample
{
    private AsofJoinExample()
    {
    }

    public static void main(final String[] args)
    {
        // README:begin asof
        Schema trades = Schema.of("symbol", "trade_id", "qty");
        Schema quotes = Schema.of("symbol", "bid");
        JoinSpec spec = JoinSpec.builder(JoinKind.ASOF, JoinType.LEFT)
            .schemas(trades, quotes)
            .leftKey("symbol").rightKey("symbol")
            .asof(AsofSpec.of(AsofSpec.Direction.BACKWARD)                         // the quote in force at the trade
                .withTolerance(1_000)                                              // at most 1 s old
                .withEmit(AsofSpec.Emit.EAGER))                                    // at once, corrected with -U/+U
            .build();
        CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandler(results).start())
        {
            Publisher p = engine.publisher();
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("symbol", "ACME", "bid", 100), 1000, 0);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("symbol", "ACME", "trade_id", 1, "qty", 5), 1500, 1); // +I with bid 100
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("symbol", "ACME", "bid", 101), 1400, 2); // closer: -U bid 100, +U bid 101
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("symbol", "ACME", "trade_id", 2, "qty", 7), 3000, 3); // no quote within 1 s
            p.watermark(3500, 4);                       // both trades are final: their state is freed
            p.endOfInput(5);
        }
        results.results().forEach(r -> System.out.println(r.kind().shortString() + " trade " + r.left().get("trade_id") +
            " bid " + (r.right() == null ? null : r.right().get("bid"))));
        // README:end asof
    }
}
