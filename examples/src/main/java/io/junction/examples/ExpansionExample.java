package io.junction.examples;

import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.Expansion;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;

import java.util.List;

/**
 * docs/JAVA_API.md's row expansion (the lines between {@code README:begin expand} and
 * {@code README:end expand}): a show carries the ads it displayed, and each ad meets its own click. It
 * prints {@code 0 +I ad1 null}, {@code 0 +I ad2 null}, {@code 1 -D ad2 null}, {@code 1 +I ad2 c1} and
 * {@code 2 +I null null} (the show without ads, kept by {@code outer(true)}), one line each, sorted.
 */
public final class ExpansionExample
{
    private ExpansionExample()
    {
    }

    public static void main(final String[] args)
    {
        // README:begin expand
        Schema schema = Schema.of("log_id", "ad_ids", "ad_id", "click");
        JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT)
            .schemas(schema, schema)
            .leftKey("log_id", "ad_id").rightKey("log_id", "ad_id")
            .leftExpand(Expansion.unnest("ad_ids", "ad_id").outer(true))   // one left row per ad id
            .build();
        CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandler(results).start())
        {
            Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", "1", "ad_ids", List.of("ad1", "ad2")), 0, 0);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("log_id", "1", "ad_id", "ad2", "click", "c1"), 0, 1);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", "2", "ad_ids", List.of()), 0, 2);
            p.endOfInput(3);
        }
        results.results().stream()
            .map(r -> r.step() + " " + r.kind().shortString() + " " + r.left().get("ad_id") + " " +
                (r.right() == null ? null : r.right().get("click")))
            .sorted().forEach(System.out::println);
        // README:end expand
    }
}
