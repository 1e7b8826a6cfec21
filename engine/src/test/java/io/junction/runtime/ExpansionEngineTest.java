package io.junction.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.ChangeKind;
import io.junction.api.CollectingResultHandler;
import io.junction.api.CompareOp;
import io.junction.api.Expansion;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Row;
import io.junction.api.Schema;
import io.junction.api.Side;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** Row expansion through the Java API of a running engine (docs/SEMANTICS.md 12): results, refusals, JMX. */
final class ExpansionEngineTest
{
    private static final Schema SHOWS = Schema.of("log_id", "ad_ids", "ad_id", "click");

    @Test
    void eachAdOfAShowMeetsItsClickAcrossPartitionsAndJmxCountsTheExpansion() throws Exception
    {
        final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.LEFT).schemas(SHOWS, SHOWS)
            .leftKey("log_id", "ad_id").rightKey("log_id", "ad_id")
            .leftExpand(Expansion.unnest("ad_ids", "ad_id").ordinality("pos").outer(true))
            .build();
        assertTrue(spec.leftSchema().indexOf("pos") >= 0, "the ordinality is appended to the left schema");
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).name("expansion-jmx").config(EngineConfig.defaults().withPartitions(3)
            .withRingSize(1024)).resultHandler(results).start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT,
                Row.of("log_id", "1", "ad_ids", List.of("ad1", "ad2", "ad3")), 0, 0));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.RIGHT, ChangeKind.INSERT,
                Row.of("log_id", "1", "ad_id", "ad2", "click", "c"), 0, 1));
            assertEquals(Publisher.EXPANSION_FAILED, publisher.publish(Side.LEFT, ChangeKind.INSERT,
                Row.of("log_id", "2", "ad_ids", "ad9"), 0, 2));
            assertTrue(publisher.lastRefusal().toString().contains("field 'ad_ids' is a string, not an array"),
                publisher.lastRefusal().toString());
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT,
                Row.of("log_id", "3", "ad_ids", List.of()), 0, 3));
            assertEquals(Publisher.PUBLISHED, publisher.endOfInput(4));
            assertEquals(2, engine.expansions().inputs());
            assertEquals(4, engine.expansions().rows());
            assertEquals(1, engine.expansions().failed());
            final ObjectName bean = new ObjectName("io.junction:type=JoinEngine,name=expansion-jmx");
            assertEquals(4L, ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "ExpandedRows"));
            assertEquals(1L, ManagementFactory.getPlatformMBeanServer().getAttribute(bean, "FailedExpansions"));
        }
        final List<String> lines = new ArrayList<>();
        for (final CollectingResultHandler.Result r : results.results())
        {
            lines.add(r.step() + " " + r.kind().shortString() + " " + r.left().get("ad_id") + "/" + r.left().get("pos") +
                " " + (r.right() == null ? "-" : r.right().get("click")));
        }
        lines.sort(null);
        assertEquals(List.of("0 +I ad1/1 -", "0 +I ad2/2 -", "0 +I ad3/3 -", "1 +I ad2/2 c", "1 -D ad2/2 -", "3 +I null/null -"), lines);
    }

    @Test
    void theStandaloneKindRunsATableFunctionAndItsOnClause()
    {
        final Schema words = Schema.of("id", "text");
        final JoinSpec spec = JoinSpec.builder(JoinKind.EXPAND, JoinType.LEFT).schemas(words, words)
            .expand(Expansion.function((row, schema, out) ->
            {
                final String text = row.getString(schema.indexOf("text"));
                if (text.equals("boom"))
                {
                    throw new IllegalArgumentException("no");
                }
                for (final String w : text.split(" "))
                {
                    out.row().putString(0, w).putLong(1, w.length());
                }
            }, "word", "len"))
            .condition("id", CompareOp.LT, "len")
            .build();
        final CollectingResultHandler results = new CollectingResultHandler(spec);
        try (JoinEngine engine = JoinEngine.builder(spec).config(EngineConfig.defaults().withPartitions(2).withRingSize(1024))
            .resultHandler(results).start())
        {
            final Publisher publisher = engine.publisher();
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 2, "text", "a bcd ef"), 0, 0));
            assertEquals(Publisher.PUBLISHED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 9, "text", "short"), 0, 1));
            assertEquals(Publisher.EXPANSION_FAILED, publisher.publish(Side.LEFT, ChangeKind.INSERT, Row.of("id", 1, "text", "boom"), 0, 2));
            assertEquals(Publisher.PUBLISHED, publisher.endOfInput(3));
        }
        final List<String> lines = new ArrayList<>();
        for (final CollectingResultHandler.Result r : results.results())
        {
            lines.add(r.step() + " " + r.left().get("text") + " " + (r.right() == null ? "-" : r.right().get("word")));
        }
        lines.sort(null);
        assertEquals(List.of("0 a bcd ef bcd", "1 short -"), lines);
    }
}
