package io.junction.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.ChangeKind;
import io.junction.api.RowView;
import io.junction.api.Side;
import io.junction.join.JoinOperator;
import io.junction.join.JoinOperators;
import io.junction.join.StateConfig;
import io.junction.tools.JunctionCli;
import io.junction.tools.perf.ShapingJoin.Config;
import io.junction.tools.workload.EncodedRows;
import io.junction.tools.workload.EventTape;
import io.junction.tools.workload.RegularJoinCounts;
import io.junction.tools.workload.SplitMix64;
import io.junction.tools.workload.Workload;
import io.junction.tools.workload.Workloads;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import java.util.Locale;

/**
 * The changelog-shaping work's measurements at small sizes: W1-seed's configurations (SEMANTICS 4.5-4.7) and W2's upsert output
 * give the counting model's line counts ({@link ShapingJoin#expectedLines}), operator-direct and through
 * the runtime with 1 and 2 partitions; a padded-row delay of 60 s emits one line per show, as the
 * interval join does, while a click later than 60 s still joins; and the model agrees with the operator
 * on random show/click tapes with and without a state TTL.
 */
class ShapingFiguresTest
{

    /** Shows every second from ts 0 to 300 s (key = ts / 1000 + 1), clicks as given, a watermark 1 s behind after every event. */
    private static EventTape tape(final long[][] clicks)
    {
        final List<long[]> events = new ArrayList<>();
        for (int i = 0; i <= 300; i++)
        {
            events.add(new long[] {i * 1000L, 0, i + 1, i});
        }
        for (int c = 0; c < clicks.length; c++)
        {
            events.add(new long[] {clicks[c][1], 1, clicks[c][0], c});
        }
        return merge(events, 1000, 1);
    }

    /** Events {ts, side, key, f1} in ts order (a show before a click at equal ts), a watermark max ts - lag after every k-th event. */
    private static EventTape merge(final List<long[]> events, final long lag, final int every)
    {
        events.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        final EventTape tape = new EventTape();
        long max = Long.MIN_VALUE;
        long last = Long.MIN_VALUE;
        int n = 0;
        for (final long[] e : events)
        {
            tape.row((int) e[1], e[2], e[0], e[3]);
            max = Math.max(max, e[0]);
            if (++n % every == 0 && max - lag > last)
            {
                last = max - lag;
                tape.watermark(last);
            }
        }
        tape.end();
        return tape;
    }

    /** The output of a configuration on a tape, through the operator: each line as "kind leftKey rightKey" (0 = padded). */
    private static List<String> lines(final EventTape tape, final Config config, final long stateTtl)
    {
        final List<String> lines = new ArrayList<>();
        final EncodedRows rows = EncodedRows.encode(tape);
        try (JoinOperator join = JoinOperators.create(ShapingJoin.spec(Workload.W1, config, stateTtl), StateConfig.defaults().withMaxKeys(1 << 12),
            (kind, left, right, ts, step) -> lines.add(kind.shortString() + " " + (left == null ? 0 : left.getLong(0)) + " " +
                (right == null ? 0 : right.getLong(0))),
            (side, kind, row, ts, step, reason) -> lines.add("dead " + reason)))
        {
            final RowView row = new RowView();
            for (int i = 0; i < tape.size(); i++)
            {
                final byte type = tape.type(i);
                if (type == EventTape.TYPE_LEFT || type == EventTape.TYPE_RIGHT)
                {
                    row.wrap(rows.buffer(i), rows.offset(i), rows.rowLength());
                    join.onRow(type == EventTape.TYPE_LEFT ? Side.LEFT : Side.RIGHT, ChangeKind.INSERT, row, tape.ts(i), i);
                }
                else if (type == EventTape.TYPE_WATERMARK)
                {
                    join.onWatermark(tape.ts(i), i);
                }
                else
                {
                    join.onEndOfInput(i);
                }
            }
        }
        return lines;
    }

    private static List<String> linesOfShow(final List<String> lines, final long key)
    {
        final List<String> of = new ArrayList<>();
        for (final String line : lines)
        {
            if (line.split(" ")[1].equals(Long.toString(key)))
            {
                of.add(line);
            }
        }
        return of;
    }

    @Test
    void paddedDelayEmitsOneLinePerShowWithinTheDelayAndStillJoinsLateClicks()
    {
        // show 1 (ts 0) clicked after 10 s; show 2 (ts 1 s) after 62 s, past its delay (the watermark is 62 s);
        // show 3 (ts 2 s) after 198 s; show 6 (ts 5 s) after 61 s, the watermark then 65 s = ts + 60 s: still inside
        final EventTape tape = tape(new long[][] {{1, 10_000}, {2, 63_000}, {3, 200_000}, {6, 66_000}});
        final List<String> padded = lines(tape, Config.PADDED_DELAY, 0);
        assertEquals(List.of("+I 1 1"), linesOfShow(padded, 1));
        assertEquals(List.of("+I 2 0", "-D 2 0", "+I 2 2"), linesOfShow(padded, 2), "a late click still joins");
        assertEquals(List.of("+I 3 0", "-D 3 0", "+I 3 3"), linesOfShow(padded, 3), "a late click still joins");
        assertEquals(List.of("+I 6 6"), linesOfShow(padded, 6), "the watermark must pass ts + 60 s");
        assertEquals(List.of("+I 4 0"), linesOfShow(padded, 4));
        assertEquals(301 + 4, padded.size());

        final List<String> interval = lines(tape, Config.INTERVAL, 0);
        assertEquals(301, interval.size(), "the interval join: one line per show");
        assertEquals(List.of("+I 2 0"), linesOfShow(interval, 2), "the interval join loses the late click");
        assertEquals(List.of("+I 6 0"), linesOfShow(interval, 6), "61 s is outside [0, 60 s]");

        final List<String> upsert = lines(tape, Config.UPSERT, 0);
        assertEquals(List.of("+U 2 0", "+U 2 2"), linesOfShow(upsert, 2), "an upsert per step and show");
        assertEquals(List.of("+U 1 0", "+U 1 1"), linesOfShow(upsert, 1));
        final List<String> paddedUpsert = lines(tape, Config.PADDED_UPSERT, 0);
        assertEquals(List.of("+U 1 1"), linesOfShow(paddedUpsert, 1));
        assertEquals(List.of("+U 3 0", "+U 3 3"), linesOfShow(paddedUpsert, 3));

        final List<String> retraction = lines(tape, Config.RETRACTION, 0);
        assertEquals(List.of("+I 1 0", "-D 1 0", "+I 1 1"), linesOfShow(retraction, 1));
        assertEquals(301 + 8, retraction.size());

        final long[] modelLines = {309, 305, 305, 303, 301};
        for (final Config c : Config.values())
        {
            final ShapingJoin.Expected expected = ShapingJoin.expectedLines(Workload.W1, c, tape, 0);
            assertEquals(modelLines[c.ordinal()], expected.lines, c.toString());
            assertEquals(lines(tape, c, 0).size(), expected.lines, c.toString());
            assertEquals(c == Config.INTERVAL ? 1 : 4, expected.joinedPairs, c.toString());
        }
        // with a state TTL of 100 s the click after 198 s finds no show
        assertEquals(List.of("+I 3 0"), linesOfShow(lines(tape, Config.PADDED_DELAY, 100_000), 3));
        assertEquals(301 + 2, ShapingJoin.expectedLines(Workload.W1, Config.PADDED_DELAY, tape, 100_000).lines);
    }

    private static ShapingFigures.Options options(final Workload w, final boolean direct, final int partitions, final long stateTtl,
                                                  final Config... configs)
    {
        final ShapingFigures.Options o = new ShapingFigures.Options();
        o.workload = w;
        o.configs.addAll(List.of(configs));
        o.runs = 1;
        o.warmupRounds = 0;
        o.direct = direct;
        o.partitions = partitions;
        o.stateTtl = stateTtl;
        return o;
    }

    private static String runFigures(final EventTape tape, final ShapingFigures.Options o)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final int status = ShapingFigures.run(tape, o, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, out);
        return out;
    }

    @Test
    void w1SeedGivesTheModelsCountsDirectAndThroughTheRuntime()
    {
        // W1's rule at 15,000 shows (WORKLOADS.md W1: the seed workload's events)
        final EventTape tape = new EventTape();
        Workloads.w1(15_000, tape);
        final long shows = tape.rows() - countRight(tape);
        final long clicks = countRight(tape);
        assertTrue(clicks > 2400, "a fifth clicked: " + clicks);
        assertEquals(shows + 2 * clicks, ShapingJoin.expectedLines(Workload.W1, Config.RETRACTION, tape, 0).lines);
        assertEquals(shows, ShapingJoin.expectedLines(Workload.W1, Config.PADDED_DELAY, tape, 0).lines,
            "every W1 click comes within 30 s: one line per show");
        assertEquals(shows, ShapingJoin.expectedLines(Workload.W1, Config.INTERVAL, tape, 0).lines);
        assertEquals(shows + clicks, ShapingJoin.expectedLines(Workload.W1, Config.UPSERT, tape, 0).lines);
        assertEquals(shows, ShapingJoin.expectedLines(Workload.W1, Config.PADDED_UPSERT, tape, 0).lines);

        final String direct = runFigures(tape, options(Workload.W1, true, 1, 0, Config.values()));
        assertTrue(direct.contains("| padded-delay |") && direct.contains(String.format(Locale.ROOT, "| %,d |", clicks)), direct);
        runFigures(tape, options(Workload.W1, false, 2, 0, Config.values()));
        // a TTL shorter than W1's clicks wait: some find no show
        final ShapingJoin.Expected ttl = ShapingJoin.expectedLines(Workload.W1, Config.RETRACTION, tape, 10_000);
        assertTrue(ttl.joinedPairs < clicks && ttl.joinedPairs > 0, ttl.toString());
        runFigures(tape, options(Workload.W1, false, 2, 10_000, Config.RETRACTION, Config.PADDED_DELAY, Config.UPSERT));
    }

    @Test
    void w1SeedsCountsAtFullSizeAreWorkloadsMdsNumbers()
    {
        // WORKLOADS.md "W1-seed": the model's counts on the whole of W1 (the engine agrees with the model above)
        final EventTape tape = EventTape.of(Workload.W1);
        final long[] lines = {2_797_898, 2_000_000, 2_398_949, 2_000_000, 2_000_000};
        for (final Config c : Config.values())
        {
            final ShapingJoin.Expected e = ShapingJoin.expectedLines(Workload.W1, c, tape, 0);
            assertEquals(lines[c.ordinal()], e.lines, c.toString());
            assertEquals(398_949L, e.joinedPairs, c.toString());
        }
        assertEquals(2_398_949L, tape.rows());
    }

    private static long countRight(final EventTape tape)
    {
        long right = 0;
        for (int i = 0; i < tape.size(); i++)
        {
            if (tape.type(i) == EventTape.TYPE_RIGHT)
            {
                right++;
            }
        }
        return right;
    }

    @Test
    void w2UpsertOutputWritesAsManyLinesAsTheRetractionChangelog()
    {
        // W2 at 10,000 rows per side over 2,000 keys: both ids key the result, so no step folds two lines
        final EventTape tape = new EventTape();
        Workloads.w2(10_000, 2_000, tape);
        final RegularJoinCounts counts = RegularJoinCounts.of(tape);
        assertEquals(W2_SMALL_CHANGELOG, counts.leftChangelog());
        final ShapingFigures.Options o = options(Workload.W2, true, 1, 0, Config.RETRACTION, Config.UPSERT);
        for (final Config c : o.configs)
        {
            final ShapingFigures.Figures f = new ShapingFigures.Figures(c, ShapingJoin.expectedLines(Workload.W2, c, tape, 0), 1);
            ShapingFigures.count(tape, EncodedRows.encode(tape), o, f);
            assertEquals(W2_SMALL_CHANGELOG, f.lines, c.toString());
            assertEquals(counts.inner(), f.joinedPairs, c + ": the inner join's rows");
            assertEquals(f.expected.lines, f.lines);
        }
        final String out = runFigures(tape, options(Workload.W2, false, 2, 0, Config.RETRACTION, Config.UPSERT));
        assertTrue(out.contains("| upsert |"), out);
    }

    /** W2 at 10,000 rows per side over 2,000 keys: the left join's changelog lines (retraction and upsert alike). */
    private static final long W2_SMALL_CHANGELOG = 54_203L;

    @Test
    void theModelAgreesWithTheOperatorOnRandomShowClickTapes()
    {
        final SplitMix64 random = new SplitMix64(0x24_5EEDL);
        final long[] ttls = {0, 20_000, 90_000, 200_000};
        for (int scenario = 0; scenario < 200; scenario++)
        {
            final List<long[]> events = new ArrayList<>();
            final int shows = 5 + (int) (random.nextDouble() * 40);
            long ts = 0;
            int clicks = 0;
            for (int s = 0; s < shows; s++)
            {
                ts += (long) (random.nextDouble() * 8000);
                events.add(new long[] {ts, 0, s + 1, s});
                if (random.nextDouble() < 0.6)
                {
                    final long delay = random.nextDouble() < 0.3 ? 60_000 + (long) (random.nextDouble() * 3) - 1
                        : (long) (random.nextDouble() * 150_000);
                    events.add(new long[] {ts + delay, 1, s + 1, clicks++});
                }
            }
            final long lag = (long) (random.nextDouble() * 5000);
            final int every = 1 + (int) (random.nextDouble() * 3);
            final EventTape tape = merge(events, lag, every);
            final long ttl = ttls[scenario % ttls.length];
            for (final Config c : Config.values())
            {
                final ShapingJoin.Expected expected = ShapingJoin.expectedLines(Workload.W1, c, tape, ttl);
                final List<String> lines = lines(tape, c, c == Config.INTERVAL ? 0 : ttl);
                final String where = "scenario " + scenario + " " + c + " ttl " + ttl;
                assertEquals(expected.lines, lines.size(), where + ": " + lines);
                assertEquals(expected.joinedPairs, finalPairs(lines), where + ": " + lines);
            }
            if (scenario % 50 == 0)
            {
                final ShapingFigures.Options o = options(Workload.W1, false, 2, ttl, Config.RETRACTION, Config.PADDED_DELAY, Config.UPSERT,
                    Config.PADDED_UPSERT);
                runFigures(tape, o);
            }
        }
    }

    /** The joined (show, click) pairs the lines leave, applied as a table (upsert/delete) or a multiset (+/-). */
    private static long finalPairs(final List<String> lines)
    {
        final Map<String, Integer> table = new HashMap<>();
        for (final String line : lines)
        {
            final String[] f = line.split(" ");
            if (f[0].equals("dead"))
            {
                continue;
            }
            final String pair = f[1] + " " + f[2];
            if (f[0].equals("+U"))
            {
                table.keySet().removeIf(k -> k.startsWith(f[1] + " "));
                table.put(pair, 1);
            }
            else
            {
                table.merge(pair, f[0].equals("+I") ? 1 : -1, Integer::sum);
            }
        }
        long pairs = 0;
        for (final Map.Entry<String, Integer> e : table.entrySet())
        {
            if (!e.getKey().endsWith(" 0"))
            {
                pairs += e.getValue();
            }
        }
        return pairs;
    }

    @Test
    void theCommandsRunAndCheckTheSeedJoin()
    {
        assertEquals(0, cli("shaping", "--shows", "10000", "--runs", "1", "--warmup-rounds", "0", "--direct"));
        assertEquals(0, cli("loadgen", "--workload", "W1", "--shaping", "padded-delay", "--events", "20000", "--direct", "--quiet"));
        assertEquals(2, cli("shaping", "--workload", "W2", "--configs", "padded-delay"));
        assertEquals(2, cli("shaping", "--workload", "W2", "--shows", "100"));
        assertEquals(2, cli("loadgen", "--workload", "W3", "--shaping", "upsert", "--quiet"));
        assertThrows(IllegalArgumentException.class, () -> ShapingJoin.Config.parse("compacted"));
    }

    private static int cli(final String... args)
    {
        final CommandLine cli = JunctionCli.commandLine();
        cli.setOut(new PrintWriter(new StringWriter(), true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        return cli.execute(args);
    }
}
