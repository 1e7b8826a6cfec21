package io.junction.examples;

// README:begin json-spec-imports
import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.JoinSpec;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.json.JoinSpecJson;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;

import java.io.IOException;
import java.nio.file.Path;
// README:end json-spec-imports

/**
 * docs/JAVA_API.md's "A spec file in Java": the join spec the README's replay runs
 * ({@code examples/replay/shows.join.json}, the CLI's format), loaded with {@link JoinSpecJson} (module
 * {@code junction-json}) and run in an engine on the replay's events. The lines between
 * {@code README:begin json-spec} and {@code README:end json-spec} are that page's block, word for word. It
 * prints the README replay's two results: the click joined to its show, and the show nobody clicked, padded.
 *
 * <p>Argument: the spec file (default {@code examples/replay/shows.join.json}, from the repository root).
 */
public final class JsonSpecExample
{
    private JsonSpecExample()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        String file = args.length > 0 ? args[0] : "examples/replay/shows.join.json";
        // README:begin json-spec
        JoinSpecJson.Parsed parsed = JoinSpecJson.read(Path.of(file));          // checked as `junction replay` checks it
        Schema schema = Schema.of("log_id", "show", "click");                  // or parsed.spec(): the file's "schema"
        JoinSpec spec = parsed.spec(schema);                                   // a name the schema lacks fails here
        CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(1))
            .resultHandler(results).start())
        {
            Publisher p = engine.publisher();
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", "1", "show", "a"), 1000, 0);
            p.publish(Side.RIGHT, ChangeKind.INSERT, Row.of("log_id", "1", "click", "x"), 1500, 1);
            p.publish(Side.LEFT, ChangeKind.INSERT, Row.of("log_id", "2", "show", "b"), 2000, 2);
            p.watermark(60_000, 3);
            p.endOfInput(4);
        }
        results.results().forEach(r -> System.out.println(r.kind().shortString() + " " + r.left() + " " + r.right()));
        // README:end json-spec
    }
}
