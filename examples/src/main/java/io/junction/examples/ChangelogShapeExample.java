package io.junction.examples;

// README:begin shape-imports
import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.OutputMode;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.UpsertHandler;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
// README:end shape-imports

/**
 * docs/JAVA_API.md's "Changelog shapes" examples, as programs the build compiles and runs (the lines between
 * the {@code README:begin padded-delay} / {@code README:begin upsert} markers and their ends are that page's
 * blocks, word for word). {@link #paddedDelay()} prints {@code +I s1 c1}, {@code +I s2 null},
 * {@code -D s2 null} and {@code +I s2 c2}: the click inside the delay joins without a padded row first, the one
 * after it retracts the padded row. {@link #upsert()} prints one upsert or delete per step and key.
 */
public final class ChangelogShapeExample
{
    private ChangelogShapeExample()
    {
    }

    public static void main(final String[] args)
    {
        paddedDelay();
        upsert();
    }

    static void paddedDelay()
    {
        // README:begin padded-delay
        Schema schema = Schema.of("log_id", "show", "click");
        JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT)
            .schemas(schema, schema)
            .leftKey("log_id").rightKey("log_id")
            .paddedDelay(50)                                                   // pad a show once the watermark passes ts + 50
            .build();
        CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler(results).start())
        {
            Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", 1, "show", "s1"), 100, 0);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", 2, "show", "s2"), 110, 1);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("log_id", 1, "click", "c1"), 130, 2); // in the delay: +I s1 c1 only
            p.watermark(161, 3);                                               // above 110 + 50: +I s2 null
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("log_id", 2, "click", "c2"), 170, 4); // -D s2 null, +I s2 c2
            p.endOfInput(5);
        }
        results.results().forEach(r -> System.out.println(r.kind().shortString() + " " + r.left().get("show") + " " +
            (r.right() == null ? null : r.right().get("click"))));
        // README:end padded-delay
    }

    static void upsert()
    {
        // README:begin upsert
        Schema schema = Schema.of("log_id", "show", "click");
        JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT)
            .schemas(schema, schema)
            .leftKey("log_id").rightKey("log_id")
            .leftUniqueKey("log_id").rightUniqueKey("log_id")                  // one show and one click per log_id
            .output(OutputMode.UPSERT)                                         // so the result is keyed by the show's log_id
            .build();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        UpsertHandler upserts = new UpsertHandler()
        {
            @Override
            public void onUpsert(RowView left, RowView right, long timestamp, long step)
            {
                lines.add(step + " upsert " + RowCodec.decode(schema, left) + " " + (right == null ? null : RowCodec.decode(schema, right)));
            }

            @Override
            public void onDelete(RowView left, RowView right, long timestamp, long step)
            {
                lines.add(step + " delete " + RowCodec.decode(schema, left));      // the deleted row names the key
            }
        };
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler(upserts).start())
        {
            Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", 1, "show", "s1"), 0, 0);   // upsert (s1, null)
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("log_id", 1, "click", "c1"), 0, 1); // upsert (s1, c1): no -U/+U pair
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", 2, "show", "s2"), 0, 2);   // upsert (s2, null)
            p.publish(Side.LEFT, ChangeKind.DELETE, Row.of("log_id", 2, "show", "s2"), 0, 3);   // delete of key 2
            p.endOfInput(4);
        }
        lines.forEach(System.out::println);
        // README:end upsert
    }
}
