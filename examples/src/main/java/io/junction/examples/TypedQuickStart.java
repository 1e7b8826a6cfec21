package io.junction.examples;

// README:begin typed-imports
import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.Field;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Row;
import io.junction.api.RowResultHandler;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
// README:end typed-imports

/**
 * The README's first example: the typed path (schemas with types, rows as objects, results as
 * {@link Row}s). Its imports (between {@code README:begin typed-imports} and {@code README:end typed-imports})
 * and the lines between {@code README:begin typed} and {@code README:end typed} are the README's first two
 * code blocks, word for word ({@code ReadmeSnippetTest}). It prints, in this order, that the mistyped payment
 * was refused, the paid order joined to its payment, and the unpaid order padded when the input ends.
 */
public final class TypedQuickStart
{
    private TypedQuickStart()
    {
    }

    public static void main(final String[] args)
    {
        // README:begin typed
        Schema orders = Schema.of(Field.longField("order_id").required(), Field.string("method"), Field.doubleField("amount"));
        Schema payments = Schema.of(Field.longField("order_id").required(), Field.string("status"));
        JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT)
            .schemas(orders, payments)
            .leftKey("order_id").rightKey("order_id")
            .interval(IntervalBounds.inclusive(0, 60_000))                         // paid within a minute of the order
            .rightFilter("status", CompareOp.EQ, Literal.of("paid"))
            .build();                                                              // a misspelt field or a type clash fails here
        try (JoinEngine engine = JoinEngine.builder(spec)
            .config(EngineConfig.defaults().withPartitions(1))                    // one partition thread: lines in order
            .resultHandler(RowResultHandler.of(spec, (kind, order, payment, ts, step) ->
                System.out.println(kind.shortString() + " " + order + " " + payment)))  // payment null: never paid
            .start())
        {
            Publisher publisher = engine.publisher();
            publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 1L, "method", "card", "amount", 9.5), 1_000, 1);
            publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("order_id", 2L, "method", "cash", "amount", 20.0), 2_000, 2);
            int code = publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("order_id", "2", "status", "paid"), 30_000, 3);
            System.out.println("mistyped order_id refused: " + (code == Publisher.SCHEMA_MISMATCH)); // refused before the ring
            publisher.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("order_id", 1L, "status", "paid"), 31_000, 4);
            publisher.endOfInput(5);
        }
        // README:end typed
    }
}
