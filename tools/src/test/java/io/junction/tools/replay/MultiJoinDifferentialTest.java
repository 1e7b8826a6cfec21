package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import io.junction.join.IndexKind;
import io.junction.runtime.EngineConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SEMANTICS 10 against a brute-force model ({@link MultiJoinModel}: the chain of binary regular joins over the
 * inputs' current contents, recomputed at every step): random multi-way joins of 2 to 5 inputs, mixed
 * inner and left, filters, conditions over named input fields, retractions ({@code -D}, {@code -U}, and
 * some of rows not in state), duplicates, keys of mixed types ({@code "1"}, {@code 1}, {@code 1.0}, null,
 * missing), two-field keys, state TTL with watermarks of one input or all. Every scenario runs through the
 * replay (the real runtime) with 1 and with 4 partitions; at every step the output must equal the model's
 * difference exactly, which is both the materialized result being right and the changelog being minimal
 * (a step that emitted both signs of one combination would differ from the difference). On both key indexes
 * ({@link IndexKind}): the multi-way join keeps its buckets in the partition state's index as every kind does.
 */
class MultiJoinDifferentialTest
{
    /** 200 by default; {@code -Djunction.multi.scenarios=N} runs a longer sweep. */
    private static final int SCENARIOS = Integer.getInteger("junction.multi.scenarios", 200);

    private static EngineConfig config(final int partitions, final IndexKind index)
    {
        final EngineConfig config = Replay.config(partitions);
        return config.withState(config.state().withIndex(index));
    }

    @ParameterizedTest
    @EnumSource(IndexKind.class)
    void randomScenariosMatchTheChainOfBinaryJoinsAtEveryStep(final IndexKind index)
    {
        final Replay one = new Replay(config(1, index));
        final Replay four = new Replay(config(4, index));
        int nonEmpty = 0;
        int withRetractions = 0;
        for (int seed = 0; seed < SCENARIOS; seed++)
        {
            final Random random = new Random(0x5EED_0000L + seed);
            final int inputs = 2 + random.nextInt(4);
            final String spec = spec(random, inputs);
            final String events = events(random, inputs);
            final MultiJoinModel.Expected expected = new MultiJoinModel(spec).run(events);
            if (!expected.results().isEmpty())
            {
                nonEmpty++;
            }
            if (expected.results().stream().anyMatch(l -> l.contains("\"-D\"")))
            {
                withRetractions++;
            }
            for (final Replay replay : List.of(one, four))
            {
                final ReplayResult actual = replay.run(spec, events);
                final String where = "seed " + seed + ", " + index + ", " + replay.engineConfig().partitions() + " partition(s)\nspec: " + spec +
                    "\nevents:\n" + events;
                assertEquals(0, actual.errorCount(), () -> where + "\nerrors: " + actual.errors());
                final ReplayComparison output = ReplayComparison.outputs(
                    ReplayComparison.Mode.STEP, JoinKind.MULTI, expected.results(), actual.resultLines());
                assertTrue(output.matches(), () -> where + "\n" + output.describe());
                final ReplayComparison dead = ReplayComparison.deadLetters(expected.deadLetters(), actual.deadLetterLines());
                assertTrue(dead.matches(), () -> where + "\ndead letters: " + dead.describe());
            }
        }
        // the generator exercises what it claims to
        assertTrue(nonEmpty > SCENARIOS * 3 / 4, "scenarios with output: " + nonEmpty);
        assertTrue(withRetractions > SCENARIOS / 2, "scenarios with retractions in the output: " + withRetractions);
    }

    static String spec(final Random random, final int inputs)
    {
        final boolean twoFieldKey = random.nextInt(7) == 0;
        final boolean anyTtl = random.nextInt(3) == 0;
        final StringBuilder sb = new StringBuilder("{\"join\":\"multi\",\"inputs\":[");
        for (int i = 0; i < inputs; i++)
        {
            if (i > 0)
            {
                sb.append(',');
            }
            sb.append("{\"name\":\"i").append(i).append('"');
            final String keyField = i == 0 ? "id" : "ref";
            sb.append(",\"key\":[\"").append(keyField).append('"').append(twoFieldKey ? ",\"g\"" : "").append(']');
            if (i > 0)
            {
                sb.append(",\"type\":\"").append(random.nextBoolean() ? "left" : "inner").append('"');
            }
            if (random.nextInt(5) == 0)
            {
                sb.append(random.nextBoolean() ? ",\"filter\":[{\"field\":\"a\",\"op\":\">=\",\"value\":1}]"
                    : ",\"filter\":[{\"field\":\"b\",\"op\":\"!=\",\"value\":2}]");
            }
            if (anyTtl && random.nextInt(2) == 0)
            {
                sb.append(",\"stateTtl\":").append(10 + random.nextInt(30));
            }
            sb.append('}');
        }
        sb.append(']');
        final int terms = random.nextInt(3);
        if (terms > 0)
        {
            final String[] ops = {"==", "!=", "<", "<=", ">", ">="};
            sb.append(",\"condition\":[");
            for (int t = 0; t < terms; t++)
            {
                final int later = 1 + random.nextInt(inputs - 1);
                final int earlier = random.nextInt(6) == 0 ? later : random.nextInt(later);
                String left = "\"i" + earlier + ".a\"";
                String right = "\"i" + later + ".b\"";
                if (random.nextBoolean())
                {
                    final String swap = left;
                    left = right;
                    right = swap;
                }
                sb.append(t > 0 ? "," : "").append("{\"left\":").append(left).append(",\"op\":\"")
                    .append(ops[random.nextInt(ops.length)]).append("\",\"right\":").append(right).append('}');
            }
            sb.append(']');
        }
        return sb.append('}').toString();
    }

    static String events(final Random random, final int inputs)
    {
        final List<List<String>> live = new ArrayList<>();
        for (int i = 0; i < inputs; i++)
        {
            live.add(new ArrayList<>());
        }
        final StringBuilder sb = new StringBuilder();
        final int count = 20 + random.nextInt(41);
        long ts = 0;
        long watermark = 0;
        for (int e = 0; e < count; e++)
        {
            if (random.nextInt(12) == 0)
            {
                watermark += random.nextInt(20);
                sb.append("{\"watermark\":").append(watermark);
                if (random.nextBoolean())
                {
                    sb.append(",\"side\":\"i").append(random.nextInt(inputs)).append('"');
                }
                sb.append("}\n");
                continue;
            }
            ts += random.nextInt(8);
            final int input = random.nextInt(inputs);
            final List<String> rows = live.get(input);
            final int choice = random.nextInt(100);
            String op;
            String row;
            if (choice < 22 && !rows.isEmpty())
            {
                row = rows.remove(random.nextInt(rows.size()));
                op = random.nextBoolean() ? "-D" : "-U";
            }
            else if (choice < 25)
            {
                row = row(random, input);
                op = "-D";
            }
            else
            {
                row = random.nextInt(8) == 0 && !rows.isEmpty() ? rows.get(random.nextInt(rows.size())) : row(random, input);
                rows.add(row);
                op = random.nextInt(5) == 0 ? "+U" : "+I";
            }
            final long eventTs = Math.max(0, ts - random.nextInt(10));
            sb.append("{\"side\":\"i").append(input).append("\",\"op\":\"").append(op).append("\",\"ts\":").append(eventTs)
                .append(",\"row\":").append(row).append("}\n");
        }
        return sb.toString();
    }

    private static String row(final Random random, final int input)
    {
        final StringBuilder sb = new StringBuilder("{");
        final int k = random.nextInt(100);
        final String key = k < 72 ? String.valueOf(random.nextInt(3)) : k < 80 ? "\"1\"" : k < 87 ? "null" : k < 92 ? null
            : k < 96 ? "1.0" : "2.0";
        boolean first = true;
        if (key != null)
        {
            sb.append('"').append(input == 0 ? "id" : "ref").append("\":").append(key);
            first = false;
        }
        sb.append(first ? "" : ",").append("\"g\":").append(random.nextInt(2));
        sb.append(",\"a\":").append(random.nextInt(10) == 0 ? "null" : String.valueOf(random.nextInt(4)));
        sb.append(",\"b\":").append(random.nextInt(10) == 0 ? "null" : String.valueOf(random.nextInt(4)));
        sb.append(",\"x\":").append(random.nextInt(3));
        return sb.append('}').toString();
    }
}
