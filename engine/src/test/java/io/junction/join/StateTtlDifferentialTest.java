package io.junction.join;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.testing.JoinHarness;
import io.junction.testing.Output;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * State TTL per side against a model that follows the regular join's algorithm over plain lists
 * (RegularJoin's class comment): each side's rows expire, silently and keeping the counts of the rows
 * they matched, when the watermark passes their own side's ts + TTL; a row arriving already expired
 * by its side's TTL is joined and not stored; a retraction of an expired row is a dead letter.
 * Random scenarios of inserts, retractions and watermarks over a few keys, every outer type, both
 * key indexes, TTLs drawn per side (0 = forever).
 */
class StateTtlDifferentialTest
{
    private static final Schema SCHEMA = Schema.of("id", "v");

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final JoinType type : new JoinType[] {JoinType.INNER, JoinType.LEFT, JoinType.RIGHT, JoinType.FULL})
        {
            for (final IndexKind index : IndexKind.values())
            {
                cases.add(Arguments.of(type, index));
            }
        }
        return cases.stream();
    }

    /** A stored row of the model. */
    private static final class Entry
    {
        final long id;
        final long v;
        final long ts;
        int count;

        Entry(final long id, final long v, final long ts)
        {
            this.id = id;
            this.v = v;
            this.ts = ts;
        }
    }

    private static String row(final long id, final long v)
    {
        return "{id=" + id + ", v=" + v + "}";
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void eachSideExpiresByItsOwnTtl(final JoinType type, final IndexKind index)
    {
        final Random random = new Random(type.ordinal() * 31L + index.ordinal());
        for (int scenario = 0; scenario < 300; scenario++)
        {
            final long[] ttl = {random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(30), random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(30)};
            final JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, type).schemas(SCHEMA, SCHEMA).leftKey("id").rightKey("id")
                .stateTtl(Side.LEFT, ttl[0]).stateTtl(Side.RIGHT, ttl[1]).build();
            final List<List<Entry>> stored = List.of(new ArrayList<>(), new ArrayList<>());
            long watermark = Long.MIN_VALUE;
            long time = 0;
            final List<String> log = new ArrayList<>();
            try (JoinHarness h = new JoinHarness(spec, StateConfig.defaults().withMaxKeys(64).withIndex(index)))
            {
                for (int event = 0; event < 60; event++)
                {
                    final int what = random.nextInt(10);
                    if (what < 2)
                    {
                        time += random.nextInt(15);
                        final long w = time - random.nextInt(10);
                        log.add("watermark " + w);
                        final List<Output> actual = h.watermark(w);
                        assertEquals(List.of(), actual, "expiry is silent: " + log);
                        if (w > watermark)
                        {
                            watermark = w;
                            for (int s = 0; s < 2; s++)
                            {
                                final long t = ttl[s];
                                final long wm = watermark;
                                stored.get(s).removeIf(e -> t > 0 && e.ts + t < wm);
                            }
                        }
                        continue;
                    }
                    final int s = random.nextInt(2);
                    final Side side = s == 0 ? Side.LEFT : Side.RIGHT;
                    final List<Entry> own = stored.get(s);
                    final List<Entry> other = stored.get(1 - s);
                    final boolean retract = what < 4 && !own.isEmpty();
                    final long id;
                    final long v;
                    final long ts;
                    final Entry retracted;
                    if (retract)
                    {
                        // Mostly a stored row; sometimes one that expired or never was (a dead letter).
                        final Entry e = own.get(random.nextInt(own.size()));
                        retracted = random.nextInt(5) == 0 ? null : e;
                        id = retracted == null ? random.nextInt(3) : e.id;
                        v = retracted == null ? 100 + random.nextInt(3) : e.v;
                        ts = time;
                    }
                    else
                    {
                        retracted = null;
                        id = random.nextInt(3);
                        v = random.nextInt(1000);
                        ts = time - random.nextInt(40);
                    }
                    log.add(side + (retract ? " -D " : " +I ") + row(id, v) + " @" + ts);
                    final List<Output> actual = h.row(side, retract ? "-D" : "+I", ts, "id", id, "v", v);
                    final List<String> expected = new ArrayList<>();
                    final boolean ownOuter = type.padsUnmatched(side);
                    final boolean otherOuter = type.padsUnmatched(side.other());
                    if (retract)
                    {
                        Entry found = null;
                        for (final Entry e : own)
                        {
                            if (e.id == id && e.v == v)
                            {
                                found = e;
                                break;
                            }
                        }
                        if (found == null)
                        {
                            assertEquals(List.of(), actual, "a retraction of a row not in state emits nothing: " + log);
                            continue;
                        }
                        for (final Entry o : other)
                        {
                            if (o.id != id)
                            {
                                continue;
                            }
                            expected.add(pair('-', side, row(id, v), row(o.id, o.v)));
                            o.count--;
                            if (otherOuter && o.count == 0)
                            {
                                expected.add(padded('+', side.other(), row(o.id, o.v)));
                            }
                        }
                        if (found.count == 0 && ownOuter)
                        {
                            expected.add(padded('-', side, row(id, v)));
                        }
                        own.remove(found);
                    }
                    else
                    {
                        int matches = 0;
                        for (final Entry o : other)
                        {
                            if (o.id != id)
                            {
                                continue;
                            }
                            matches++;
                            if (otherOuter && o.count == 0)
                            {
                                expected.add(padded('-', side.other(), row(o.id, o.v)));
                            }
                            o.count++;
                            expected.add(pair('+', side, row(id, v), row(o.id, o.v)));
                        }
                        if (matches == 0 && ownOuter)
                        {
                            expected.add(padded('+', side, row(id, v)));
                        }
                        if (!(ttl[s] > 0 && ts + ttl[s] < watermark))
                        {
                            final Entry e = new Entry(id, v, ts);
                            e.count = matches;
                            own.add(e);
                        }
                    }
                    final List<String> got = new ArrayList<>();
                    for (final Output o : actual)
                    {
                        got.add(o.signed());
                    }
                    assertEquals(expected, got, "ttl " + ttl[0] + "/" + ttl[1] + ": " + String.join("; ", log));
                }
                assertEquals(stored.get(0).size() + stored.get(1).size(), h.counters().liveLeft() + h.counters().liveRight(),
                    "live rows: " + log);
            }
        }
    }

    private static String pair(final char sign, final Side side, final String row, final String other)
    {
        return sign + (side == Side.LEFT ? row + " " + other : other + " " + row);
    }

    private static String padded(final char sign, final Side side, final String row)
    {
        return sign + (side == Side.LEFT ? row + " null" : "null " + row);
    }
}
