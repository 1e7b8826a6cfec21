package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.junction.json.JoinSpecJson;
import io.junction.json.RowJson;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Row expansion before a join against its definition (docs/SEMANTICS.md 12): a join whose left rows are
 * expanded gives, step by step, what the same join gives over a log in which each left row is replaced, by
 * a brute-force expansion written here, by the rows it makes (each on its own line, mapped back to the input
 * row's step), at 1 and 3 partitions, for regular (with retractions), interval, window, ASOF and temporal
 * joins, unnest and split, outer or not, with and without an ordinality.
 */
final class ExpansionDifferentialTest
{
    private static final long SEED = Long.getLong("junction.expansion.seed", 20261204L);
    private static final String[] KEYS = {"a", "b", "c", "1"};

    @Test
    void expandedJoinIsTheJoinOfTheExpandedRows() throws Exception
    {
        final Random random = new Random(SEED);
        int outputs = 0;
        final String[] kinds = {"regular", "interval", "window", "asof", "temporal"};
        for (int iteration = 0; iteration < 75; iteration++)
        {
            final String kind = kinds[iteration % kinds.length];
            final boolean split = random.nextBoolean();
            final boolean outer = random.nextBoolean();
            final boolean ordinality = random.nextBoolean();
            final String type = kind.equals("regular") ? new String[] {"inner", "left", "right", "full"}[random.nextInt(4)]
                : random.nextBoolean() ? "inner" : "left";
            final String base = "\"type\":\"" + type + "\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]" +
                (kind.equals("interval") ? ",\"interval\":{\"lower\":-500,\"upper\":500}" : "") +
                (kind.equals("window") ? ",\"window\":{\"kind\":\"tumbling\",\"size\":1000}" : "") +
                (kind.equals("asof") ? ",\"asof\":{\"direction\":\"backward\"}" : "");
            final String expansion = (split ? "{\"function\":\"split\",\"args\":[\"ks\",\"|\"],\"as\":\"k\""
                : "{\"unnest\":\"ks\",\"as\":\"k\"") + (ordinality ? ",\"ordinality\":\"pos\"" : "") +
                ",\"outer\":" + outer + "}";
            final String expandedSpec = "{\"join\":\"" + kind + "\"," + base + ",\"leftExpand\":" + expansion + "}";
            final String plainSpec = "{\"join\":\"" + kind + "\"," + base + "}";

            final List<String> log = new ArrayList<>();
            final List<String> expandedLog = new ArrayList<>();
            final List<Long> stepOf = new ArrayList<>();
            final List<ObjectNode> inserted = new ArrayList<>();
            long ts = 0;
            final int events = 10 + random.nextInt(20);
            for (int step = 0; step < events; step++)
            {
                ts += random.nextInt(400);
                final int what = random.nextInt(10);
                if (what < 4)
                {
                    final ObjectNode row = leftRow(random, step, split);
                    final String op = kind.equals("regular") && !inserted.isEmpty() && random.nextInt(4) == 0 ? "-D" : "+I";
                    final ObjectNode used = op.equals("-D") ? inserted.remove(random.nextInt(inserted.size())) : row;
                    if (op.equals("+I"))
                    {
                        inserted.add(row);
                    }
                    log.add(event("left", op, ts, used));
                    for (final ObjectNode made : expand(used, split, outer, ordinality))
                    {
                        expandedLog.add(event("left", op, ts, made));
                        stepOf.add((long)step);
                    }
                }
                else if (what < 8)
                {
                    final ObjectNode row = RowJson.mapper().createObjectNode();
                    row.put("k", KEYS[random.nextInt(KEYS.length)]).put("v", step);
                    log.add(event("right", "+I", ts, row));
                    expandedLog.add(log.get(log.size() - 1));
                    stepOf.add((long)step);
                }
                else
                {
                    log.add("{\"watermark\":" + (ts - random.nextInt(300)) + "}");
                    expandedLog.add(log.get(log.size() - 1));
                    stepOf.add((long)step);
                }
            }
            stepOf.add((long)events); // the end of the log
            final List<String> expected = mapSteps(run(1, plainSpec, expandedLog).resultLines(), stepOf);
            for (final int partitions : new int[] {1, 3})
            {
                final ReplayResult actual = run(partitions, expandedSpec, log);
                assertEquals(0, actual.errorCount(), () -> "errors " + actual.errors());
                final ReplayComparison comparison = ReplayComparison.outputs(ReplayComparison.Mode.STEP, null,
                    expected, actual.resultLines());
                final int p = partitions;
                assertTrue(comparison.matches(), () -> p + " partition(s): " + comparison.describe() + "\nspec: " +
                    expandedSpec + "\nevents:\n" + String.join("\n", log));
            }
            outputs += expected.size();
        }
        assertTrue(outputs > 200, "the scenarios produced too little output to mean anything: " + outputs);
    }

    private static ObjectNode leftRow(final Random random, final int step, final boolean split)
    {
        final ObjectNode row = RowJson.mapper().createObjectNode();
        row.put("id", step);
        final int shape = random.nextInt(8);
        if (shape == 0)
        {
            return row; // missing
        }
        if (shape == 1)
        {
            row.putNull("ks");
            return row;
        }
        final int n = shape == 2 ? 0 : 1 + random.nextInt(3);
        if (split)
        {
            final StringBuilder text = new StringBuilder();
            for (int i = 0; i < n; i++)
            {
                text.append(i > 0 ? "|" : "").append(random.nextInt(6) == 0 ? "" : KEYS[random.nextInt(KEYS.length)]);
            }
            row.put("ks", text.toString());
        }
        else
        {
            final ArrayNode ks = row.putArray("ks");
            for (int i = 0; i < n; i++)
            {
                if (random.nextInt(6) == 0)
                {
                    ks.addNull();
                }
                else
                {
                    ks.add(KEYS[random.nextInt(KEYS.length)]);
                }
            }
        }
        return row;
    }

    /** The definition, by brute force: each element (or piece) is the input row plus the new fields. */
    private static List<ObjectNode> expand(final ObjectNode row, final boolean split, final boolean outer, final boolean ordinality)
    {
        final List<String> values = new ArrayList<>();
        final JsonNode source = row.get("ks");
        if (source != null && !source.isNull())
        {
            if (split)
            {
                final String text = source.textValue();
                int from = 0;
                while (true)
                {
                    final int at = text.indexOf('|', from);
                    values.add(text.substring(from, at < 0 ? text.length() : at));
                    if (at < 0)
                    {
                        break;
                    }
                    from = at + 1;
                }
            }
            else
            {
                for (final JsonNode element : source)
                {
                    values.add(element.isNull() ? null : element.textValue());
                }
            }
        }
        final List<ObjectNode> made = new ArrayList<>();
        for (int i = 0; i < values.size(); i++)
        {
            final ObjectNode copy = row.deepCopy();
            copy.put("k", values.get(i));
            if (ordinality)
            {
                copy.put("pos", i + 1);
            }
            made.add(copy);
        }
        if (made.isEmpty() && outer)
        {
            final ObjectNode copy = row.deepCopy();
            copy.putNull("k");
            if (ordinality)
            {
                copy.putNull("pos");
            }
            made.add(copy);
        }
        return made;
    }

    private static String event(final String side, final String op, final long ts, final ObjectNode row)
    {
        return "{\"side\":\"" + side + "\",\"op\":\"" + op + "\",\"ts\":" + ts + ",\"row\":" + row + "}";
    }

    private static ReplayResult run(final int partitions, final String spec, final List<String> log) throws Exception
    {
        final byte[] bytes = String.join("\n", log).getBytes(StandardCharsets.UTF_8);
        return new Replay(Replay.config(partitions)).run(JoinSpecJson.parse(spec), () -> new ByteArrayInputStream(bytes));
    }

    private static List<String> mapSteps(final List<String> lines, final List<Long> stepOf) throws Exception
    {
        final List<String> mapped = new ArrayList<>();
        for (final String line : lines)
        {
            final ObjectNode node = (ObjectNode)RowJson.mapper().readTree(line);
            node.put("step", stepOf.get(node.get("step").intValue()));
            mapped.add(node.toString());
        }
        return mapped;
    }
}
