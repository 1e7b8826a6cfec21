package io.junction.tools.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.JoinKind;
import io.junction.json.JoinSpecException;
import io.junction.json.JoinSpecJson;
import io.junction.metrics.PartitionSnapshot;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the replay format: the worked cases' specs and event logs, mutated as a hostile or broken
 * producer would (bytes flipped, invalid UTF-8, extreme and non-integral numbers, unknown ops, nested
 * values, huge strings, many fields, lines dropped, duplicated and reordered, watermarks at the ends
 * of the long range), replayed through the real runtime with one and with three partitions.
 *
 * <p>Each run must end (no hang), report no partition error, account for every line (each reached
 * the engine or was dead-lettered at the door: none is lost silently), and give the same output and
 * dead letters per step with one partition as with three (none is lost or duplicated by
 * partitioning). A mutated spec may be rejected, but only as a {@link JoinSpecException}.
 *
 * <p>Seeded and bounded: {@code -Djunction.fuzz.seed=N} replays one seed's sequence,
 * {@code -Djunction.fuzz.seconds=S} sets the time budget (default 20 s, so that CI stays well
 * inside its minute for both fuzz tests). A failure names the seed and the iteration.
 */
class ReplayFuzzTest
{
    private static final long SEED = Long.getLong("junction.fuzz.seed", 0x5EED_F00DL);
    private static final long BUDGET_NANOS = Duration.ofSeconds(Long.getLong("junction.fuzz.seconds", 20)).toNanos();
    private static final int MIN_ITERATIONS = 8;

    private static final String[] NUMBERS = {
        "-9223372036854775808", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
        "9007199254740992", "9007199254740992.0", "9007199254740993.0", "1e308", "-1e308", "1e400",
        "-0.0", "0", "1.00000000000000001", "1e0", "NaN", "0x10", "01", "1.5e-400", "12345678901234567890123",
    };
    private static final String[] TOKENS = {
        "null", "true", "false", "\"\"", "[]", "{}", "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]", "\"\\u0000\"",
        "\"\\ud800\"", "\"\u00e9\u4e2d\ud83d\ude00\"", "{\"a\":{\"b\":{\"c\":1}}}",
    };
    private static final Pattern NUMBER = Pattern.compile("([:\\[,]\\s*)(-?[0-9][0-9.eE+-]*)");
    private static final String[] OPS = {"+I", "-D", "+U", "-U", "+X", "", "I", "+i"};

    @Test
    void mutatedScenariosNeverCrashHangOrLoseLines()
    {
        final List<String> names = Cases.names();
        assertTrue(names.size() > 10, "cases found: " + names);
        final Random random = new Random(SEED);
        final long deadline = System.nanoTime() + BUDGET_NANOS;
        int iterations = 0;
        int rejectedSpecs = 0;
        long lines = 0;
        while (iterations < MIN_ITERATIONS || System.nanoTime() - deadline < 0)
        {
            final String name = names.get(random.nextInt(names.size()));
            final String original = String.join("\n", Cases.lines(name, "join.json"));
            String spec = original;
            if (random.nextInt(8) == 0)
            {
                spec = mutateNumbers(spec, random);
            }
            // Only a spec that really changed may be rejected: a worked case's own spec must always run.
            final boolean mutated = !spec.equals(original);
            final List<byte[]> events = mutate(Cases.lines(name, "events.jsonl"), random);
            lines += events.size();
            final byte[] log = join(events);
            final String where = "seed " + SEED + ", iteration " + iterations + ", case " + name;
            try
            {
                final ReplayResult one = run(1, spec, log, where);
                final ReplayResult three = run(3, spec, log, where);
                check(one, three, where, spec, log);
            }
            catch (final JoinSpecException e)
            {
                if (!mutated)
                {
                    throw new AssertionError("an unmutated spec was rejected: " + where, e);
                }
                rejectedSpecs++;
            }
            iterations++;
        }
        // Rejected specs run nothing: enough scenarios must have been replayed, not just attempted.
        assertTrue(iterations - rejectedSpecs >= MIN_ITERATIONS / 2,
            "scenarios replayed: " + (iterations - rejectedSpecs) + " of " + iterations);
        System.out.printf("replay fuzz: seed %d, %d scenarios, %d event lines, %d mutated specs rejected%n",
            SEED, iterations, lines, rejectedSpecs);
    }

    private static ReplayResult run(final int partitions, final String spec, final byte[] log, final String where)
    {
        return assertTimeoutPreemptively(Duration.ofSeconds(60),
            () -> new Replay(Replay.config(partitions)).run(JoinSpecJson.parse(spec), () -> new ByteArrayInputStream(log)),
            () -> "replay hung: " + where);
    }

    private static byte[] join(final List<byte[]> lines)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] line : lines)
        {
            out.writeBytes(line);
            out.write('\n');
        }
        return out.toByteArray();
    }

    private static void check(final ReplayResult one, final ReplayResult three, final String where,
        final String spec, final byte[] log)
    {
        final String context = where + "\nspec: " + spec + "\nevents:\n" + new String(log, StandardCharsets.UTF_8);
        assertEquals(0, one.errorCount(), () -> "partition errors " + one.errors() + ": " + context);
        assertEquals(0, three.errorCount(), () -> "partition errors " + three.errors() + ": " + context);
        for (final PartitionSnapshot snapshot : three.metrics())
        {
            assertTrue(!snapshot.failed, () -> "a partition died: " + context);
        }
        // Every line is accounted for: with one partition, each non-blank line is one ring event (a
        // row or a watermark) unless it was dead-lettered at the door; the end of input is one more.
        // A row expanded before the join (SEMANTICS 12) is as many events as the rows it made (none
        // for an empty expansion); the standalone kind expands on the partition, one event per row.
        final PartitionSnapshot only = one.metrics().get(0);
        final long doorDeadLetters = one.deadLetters().size() - only.deadLetters();
        final long[] expansions = one.expansions();
        final long fanOut = JoinSpecJson.parse(spec).kind() == JoinKind.EXPAND ? 0 : expansions[1] - expansions[0];
        assertEquals(one.steps() + 1 + fanOut, only.events + doorDeadLetters,
            () -> "lines neither processed nor dead-lettered: " + context);
        final ReplayComparison outputs = ReplayComparison.outputs(ReplayComparison.Mode.STEP, null,
            one.resultLines(), three.resultLines());
        assertTrue(outputs.matches(), () -> "1 vs 3 partitions: " + outputs.describe() + "\n" + context);
        final ReplayComparison deadLetters = ReplayComparison.deadLetters(one.deadLetterLines(), three.deadLetterLines());
        assertTrue(deadLetters.matches(), () -> "dead letters, 1 vs 3 partitions: " + deadLetters.describe() + "\n" + context);
    }

    private static List<byte[]> mutate(final List<String> original, final Random random)
    {
        final List<String> lines = new ArrayList<>(original);
        final List<Integer> invalid = new ArrayList<>();
        final int mutations = 1 + random.nextInt(Math.max(1, lines.size()));
        for (int m = 0; m < mutations && !lines.isEmpty(); m++)
        {
            final int i = random.nextInt(lines.size());
            final String line = lines.get(i);
            switch (random.nextInt(14))
            {
                case 0 -> lines.set(i, flipByte(line, random));
                case 1 -> lines.set(i, mutateNumbers(line, random));
                case 2 -> lines.set(i, line.replaceFirst("\"op\":\"[^\"]*\"", "\"op\":\"" + OPS[random.nextInt(OPS.length)] + "\""));
                case 3 -> lines.set(i, replaceValue(line, TOKENS[random.nextInt(TOKENS.length)], random));
                case 4 -> lines.add(random.nextInt(lines.size() + 1), line);
                case 5 -> lines.remove(i);
                case 6 ->
                {
                    final int j = random.nextInt(lines.size());
                    lines.set(i, lines.get(j));
                    lines.set(j, line);
                }
                case 7 -> lines.set(i, line.substring(0, random.nextInt(line.length() + 1)));
                case 8 -> lines.add(i, "{\"watermark\":" + NUMBERS[random.nextInt(NUMBERS.length)] +
                    (random.nextBoolean() ? "" : ",\"side\":\"" + (random.nextBoolean() ? "left" : "right") + "\"") + "}");
                case 9 -> lines.set(i, line.replaceFirst("\"row\":\\{", "\"row\":{\"big\":\"" + "x".repeat(random.nextInt(3000)) + "\","));
                case 10 -> lines.set(i, line.replaceFirst("\"row\":\\{", "\"row\":{" + manyFields(random) ));
                case 11 -> lines.set(i, line.replaceFirst("\"side\":\"(left|right)\"", "\"side\":\"" + (random.nextBoolean() ? "middle" : "LEFT") + "\""));
                case 12 -> invalid.add(i);
                default -> lines.set(i, line.replaceFirst("\"ts\":-?[0-9]+", "\"ts\":" + NUMBERS[random.nextInt(NUMBERS.length)]));
            }
        }
        final List<byte[]> bytes = new ArrayList<>(lines.size());
        for (final String line : lines)
        {
            bytes.add(line.getBytes(StandardCharsets.UTF_8));
        }
        for (final int i : invalid)
        {
            if (i < bytes.size())
            {
                bytes.set(i, invalidUtf8(bytes.get(i), random));
            }
        }
        return bytes;
    }

    private static String flipByte(final String line, final Random random)
    {
        if (line.isEmpty())
        {
            return line;
        }
        final char[] chars = line.toCharArray();
        chars[random.nextInt(chars.length)] = (char) (32 + random.nextInt(95));
        return new String(chars);
    }

    /** Replaces one number of the line by an extreme or odd one. */
    private static String mutateNumbers(final String line, final Random random)
    {
        final Matcher numbers = NUMBER.matcher(line);
        int count = 0;
        while (numbers.find())
        {
            count++;
        }
        if (count == 0)
        {
            return line;
        }
        final int target = random.nextInt(count);
        numbers.reset();
        for (int n = 0; numbers.find(); n++)
        {
            if (n == target)
            {
                return line.substring(0, numbers.start(2)) + NUMBERS[random.nextInt(NUMBERS.length)] + line.substring(numbers.end(2));
            }
        }
        return line;
    }

    private static String replaceValue(final String line, final String token, final Random random)
    {
        final String replaced = line.replaceFirst("(?<=\":)(\"[^\"]*\"|-?[0-9][0-9.eE+-]*|null|true|false)", token);
        return random.nextBoolean() ? replaced : line.replaceFirst("\\{", "{\"extra\":" + token + ",");
    }

    private static String manyFields(final Random random)
    {
        final StringBuilder sb = new StringBuilder();
        final int n = 1 + random.nextInt(random.nextBoolean() ? 50 : 5000);
        for (int f = 0; f < n; f++)
        {
            sb.append("\"f").append(random.nextInt(100_000)).append("\":").append(f).append(',');
        }
        return sb.toString();
    }

    /** The line's bytes with an invalid UTF-8 sequence spliced in. */
    private static byte[] invalidUtf8(final byte[] utf8, final Random random)
    {
        final byte[][] bad = {{(byte) 0xFF}, {(byte) 0xC3, (byte) 0x28}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}};
        final byte[] splice = bad[random.nextInt(bad.length)];
        final int at = random.nextInt(utf8.length + 1);
        final byte[] out = new byte[utf8.length + splice.length];
        System.arraycopy(utf8, 0, out, 0, at);
        System.arraycopy(splice, 0, out, at, splice.length);
        System.arraycopy(utf8, at, out, at + splice.length, utf8.length - at);
        return out;
    }

    @Test
    void theAccountingInvariantHoldsOnAnUnmutatedCase()
    {
        // The invariant the fuzz test relies on, on a plain case: every line is one ring event or one
        // door dead letter, and the end of input is one more event.
        final String name = Cases.names().get(0);
        final String spec = String.join("\n", Cases.lines(name, "join.json"));
        final String log = String.join("\n", Cases.lines(name, "events.jsonl"));
        final ReplayResult one = new Replay(Replay.config(1)).run(spec, log);
        final PartitionSnapshot only = one.metrics().get(0);
        final long door = one.deadLetters().size() - only.deadLetters();
        assertEquals(one.steps() + 1, only.events + door);
    }
}
