package io.junction.examples;

import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.api.WindowSpec;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;

/**
 * docs/JAVA_API.md's window coGroup example, as a program the build compiles and runs (the lines between the
 * {@code README:begin cogroup} and {@code README:end cogroup} markers are the README's block, word for
 * word): views and clicks per user and minute. It prints one computed row, ann's 2 views and 1 click;
 * bob clicked without a view, and a left coGroup calls only groups with a view.
 */
public final class CoGroupExample
{
    private CoGroupExample()
    {
    }

    public static void main(final String[] args)
    {
        // README:begin cogroup
        Schema events = Schema.of("user", "page");
        JoinSpec spec = JoinSpec.builder(JoinKind.WINDOW, JoinType.LEFT)             // groups with at least one view
            .schemas(events, events).leftKey("user").rightKey("user")
            .window(WindowSpec.tumbling(60_000, 0))
            .coGroup((views, clicks, start, end, out) ->
            {                                                                        // cursors: reused, no garbage
                views.next();                                                        // a left group has a view
                out.row().putField(0, views.row(), 0)                                // user
                    .putLong(1, views.count()).putLong(2, clicks.count());
                out.emitRow();
            }, Schema.of("user", "views", "clicks"))
            .build();
        CollectingResultHandler results = new CollectingResultHandler(spec);        // computed rows: onCoGroupResult
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2))
            .resultHandler(results).start())
        {
            Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("user", "ann", "page", "/a"), 1_000, 0);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("user", "ann", "page", "/b"), 2_000, 1);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("user", "ann", "page", "/b"), 3_000, 2);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("user", "bob", "page", "/a"), 4_000, 3);
            p.endOfInput(4);                                                         // fires the window [0, 60000)
        }
        results.results().forEach(r -> System.out.println(r.row() + " in [" + r.windowStart() + ", " + r.windowEnd() + ")"));
        // README:end cogroup
    }
}
