package io.junction.examples;

// README:begin multi-imports
import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.Field;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.ResultHandler;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
// README:end multi-imports

/**
 * The multi-way join example of docs/SEMANTICS.md ("Multi-way joins"), as a program the build compiles and
 * runs (the lines between the {@code README:begin multi} and {@code README:end multi} markers are the docs'
 * block, word for word): orders, payments and shipments on the order id in one operator. It prints
 * {@code 1 +I p1 -}, {@code 2 +I p1 s1} and {@code 2 -D p1 -}: the shipment replaces the padded row in
 * one step, and the payment larger than its order meets no ON clause.
 */
public final class MultiJoinExample
{
    private MultiJoinExample()
    {
    }

    public static void main(final String[] args)
    {
        // README:begin multi
        Schema schema = Schema.of("id", "amt", "order_id", "pid", "sh");
        JoinSpec spec = JoinSpec.multi(MultiJoinSpec.builder(schema)
            .input("orders", "id")                                    // input 0: no type
            .input("payments", JoinType.INNER, "order_id")            // input 1: inner, on the common key
            .input("shipments", JoinType.LEFT, "order_id")            // input 2: left, on orders' key too
            .condition("orders.amt", CompareOp.GE, "payments.amt")    // in payments' ON clause
            .build());
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        ResultHandler results = new ResultHandler()
        {
            @Override
            public void onResult(ChangeKind kind, RowView left, RowView right, long timestamp, long step)
            {
                // the binary joins' callback: a multi-way join calls onMultiResult
            }

            @Override
            public void onMultiResult(ChangeKind kind, RowView[] rows, long timestamp, long step)
            {
                // one view per input, null for a padded one, valid during the call only
                lines.add(step + " " + kind.shortString() + " " + RowCodec.decode(schema, rows[1]).get("pid") + " " +
                    (rows[2] == null ? "-" : RowCodec.decode(schema, rows[2]).get("sh")));
            }
        };
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandler(results).start())
        {
            Publisher p = engine.publisher();
            p.publishInput(0, ChangeKind.INSERT, Row.of("id", 1, "amt", 100), 0, 0);
            p.publishInput(1, ChangeKind.INSERT, Row.of("order_id", 1, "pid", "p1", "amt", 100), 0, 1);  // +I p1 -
            p.publishInput(2, ChangeKind.INSERT, Row.of("order_id", 1, "sh", "s1"), 0, 2);              // -D p1 -, +I p1 s1
            p.publishInput(1, ChangeKind.INSERT, Row.of("order_id", 1, "pid", "p2", "amt", 500), 0, 3); // above the order: none
            p.endOfInput(4);
        }
        lines.stream().sorted().forEach(System.out::println);
        // README:end multi
    }

    /**
     * docs/JAVA_API.md's multi-way join whose inputs have schemas of their own (the lines between
     * {@code README:begin multi-schemas} and {@code README:end multi-schemas}). It prints
     * {@code 1 +I order 1 paid 100}: the payment joins its order; a condition names each input's own field.
     */
    static void perInputSchemas()
    {
        // README:begin multi-schemas
        Schema orders = Schema.of(Field.longField("id").required(), Field.longField("amt"));
        Schema payments = Schema.of(Field.longField("order_id").required(), Field.string("pid"), Field.longField("paid"));
        MultiJoinSpec multi = MultiJoinSpec.builder(orders)                     // the schema of inputs that name none
            .input("orders", "id")
            .input("payments", payments, JoinType.INNER, "order_id")          // its own schema, checked at publish
            .condition("orders.amt", CompareOp.GE, "payments.paid")           // each side's field, by input name
            .build();
        JoinSpec spec = JoinSpec.multi(multi);
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        ResultHandler results = new ResultHandler()
        {
            @Override
            public void onResult(ChangeKind kind, RowView left, RowView right, long timestamp, long step)
            {
                // the binary joins' callback: a multi-way join calls onMultiResult
            }

            @Override
            public void onMultiResult(ChangeKind kind, RowView[] rows, long timestamp, long step)
            {
                // rows[i] is input i's row, read with input i's schema: multi.schema(i)
                lines.add(step + " " + kind.shortString() + " order " + RowCodec.decode(multi.schema(0), rows[0]).get("id") +
                    " paid " + RowCodec.decode(multi.schema(1), rows[1]).get("paid"));
            }
        };
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler(results).start())
        {
            Publisher p = engine.publisher();
            p.publishInput(0, ChangeKind.INSERT, Row.of("id", 1L, "amt", 100L), 0, 0);
            p.publishInput(1, ChangeKind.INSERT, Row.of("order_id", 1L, "pid", "p1", "paid", 100L), 0, 1); // +I
            p.publishInput(1, ChangeKind.INSERT, Row.of("order_id", 1L, "pid", "p2", "paid", 500L), 0, 2); // above the order
            p.endOfInput(3);
        }
        lines.forEach(System.out::println);
        // README:end multi-schemas
    }
}
