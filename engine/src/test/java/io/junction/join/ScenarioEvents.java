package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.Side;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The random scenarios of the interval and window differential tests: their events and filters,
 * each able to print itself in the replay format (SEMANTICS 1), so that a failing scenario can be
 * replayed with {@code junction replay}; the random draws both generators share (each draws from
 * the scenario's own {@link SplittableRandom}, so a seed still replays the same scenario); and the
 * comparison of expected and actual output lines.
 */
final class ScenarioEvents
{
    static final Object ABSENT = IntervalTestRows.ABSENT;

    private ScenarioEvents()
    {
    }

    enum EventKind
    {
        ROW, WATERMARK_BOTH, WATERMARK_LEFT, WATERMARK_RIGHT
    }

    record Event(EventKind kind, Side side, ChangeKind op, long ts, Object key, Object v, String id)
    {
        String json()
        {
            switch (kind)
            {
                case ROW:
                    final StringBuilder row = new StringBuilder("{");
                    if (key != ABSENT)
                    {
                        row.append("\"k\":").append(jsonValue(key)).append(',');
                    }
                    row.append("\"id\":\"").append(id).append('"');
                    if (v != ABSENT)
                    {
                        row.append(",\"v\":").append(jsonValue(v));
                    }
                    row.append('}');
                    return "{\"side\":\"" + side.jsonName() + "\",\"op\":\"" + op.shortString() + "\",\"ts\":" + ts +
                        ",\"row\":" + row + "}";
                case WATERMARK_BOTH:
                    return "{\"watermark\":" + ts + "}";
                case WATERMARK_LEFT:
                    return "{\"watermark\":" + ts + ",\"side\":\"left\"}";
                default:
                    return "{\"watermark\":" + ts + ",\"side\":\"right\"}";
            }
        }

        private static String jsonValue(final Object value)
        {
            return value instanceof String ? "\"" + value + "\"" : String.valueOf(value);
        }
    }

    record Filter(CompareOp op, long value)
    {
        String json(final String what)
        {
            return "\"" + what + "\":[{\"field\":\"v\",\"op\":\"" + op.symbol() + "\",\"value\":" + value + "}]";
        }
    }

    /** An expected or actual output line of a differential test: what is compared, ignoring steps. */
    interface Text
    {
        String text();
    }

    /** @return the random generator of one combination's sequence seeds: its i-th draw seeds sequence i. */
    static SplittableRandom sequenceSeeds(final long base, final long combination)
    {
        // Not base ^ n * 0x9E3779B97F4A7C15L: that is SplittableRandom's own gamma, which would make the
        // combinations replay the same sequences shifted by a few places.
        return new SplittableRandom(base ^ Long.rotateLeft(combination * 0xC2B2AE3D27D4EB4FL, 31));
    }

    static CompareOp randomOp(final SplittableRandom random)
    {
        // the six comparisons (IN takes a list, drawn separately), in their fixed order so the seeds replay
        return CompareOp.values()[random.nextInt(CompareOp.IN.ordinal())];
    }

    /** @return a filter on {@code v} with a chance of {@code chanceInTen} in 10, else null. */
    static Filter randomFilter(final SplittableRandom random, final int chanceInTen)
    {
        return random.nextInt(10) < chanceInTen ? new Filter(randomOp(random), random.nextLong(0, 4)) : null;
    }

    /** @return mostly {@code +I}; 4 in 100 a retraction or update, which an append-only join dead-letters. */
    static ChangeKind randomRowOp(final SplittableRandom random)
    {
        return random.nextInt(100) < 4 ?
            new ChangeKind[] {ChangeKind.DELETE, ChangeKind.UPDATE_BEFORE, ChangeKind.UPDATE_AFTER}[random.nextInt(3)] :
            ChangeKind.INSERT;
    }

    /** @return a watermark on both inputs (4 in 10), the left (3 in 10) or the right (3 in 10). */
    static EventKind randomWatermarkKind(final SplittableRandom random)
    {
        final int which = random.nextInt(10);
        return which < 4 ? EventKind.WATERMARK_BOTH : which < 7 ? EventKind.WATERMARK_LEFT : EventKind.WATERMARK_RIGHT;
    }

    /** @return a key: null ({@code nullPercent} in 100), absent (3 in 100), the string "1" (up to 16 in 100) or 0..3. */
    static Object randomKey(final SplittableRandom random, final int nullPercent)
    {
        final int dice = random.nextInt(100);
        if (dice < nullPercent)
        {
            return null;
        }
        if (dice < nullPercent + 3)
        {
            return ABSENT;
        }
        if (dice < 16)
        {
            return "1";
        }
        return random.nextLong(0, 4);
    }

    /** @return a value of {@code v}: null (8 in 100), absent (3 in 100) or 0..3. */
    static Object randomValue(final SplittableRandom random)
    {
        final int dice = random.nextInt(100);
        if (dice < 8)
        {
            return null;
        }
        if (dice < 11)
        {
            return ABSENT;
        }
        return random.nextLong(0, 4);
    }

    /** @return the multiset of output texts, ignoring steps. */
    static TreeMap<String, Integer> multiset(final List<? extends Text> lines)
    {
        final TreeMap<String, Integer> counts = new TreeMap<>();
        for (final Text line : lines)
        {
            counts.merge(line.text(), 1, Integer::sum);
        }
        return counts;
    }

    /** @return what {@code a} holds more often than {@code b}, once per extra copy. */
    static List<String> difference(final Map<String, Integer> a, final Map<String, Integer> b)
    {
        final List<String> out = new ArrayList<>();
        for (final Map.Entry<String, Integer> e : a.entrySet())
        {
            final int extra = e.getValue() - b.getOrDefault(e.getKey(), 0);
            for (int i = 0; i < extra; i++)
            {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** @return one indented line per element. */
    static String lines(final List<?> lines)
    {
        final StringBuilder sb = new StringBuilder();
        for (final Object line : lines)
        {
            sb.append("  ").append(line).append('\n');
        }
        return sb.toString();
    }

    /**
     * @return the models' SQL comparison of two {@code v} values: true only for two longs that satisfy
     *         {@code op} (null, absent and strings never match).
     */
    static boolean compare(final CompareOp op, final Object a, final Object b)
    {
        if (!(a instanceof Long) || !(b instanceof Long))
        {
            return false;
        }
        final int c = Long.compare((Long)a, (Long)b);
        switch (op)
        {
            case EQ:
                return c == 0;
            case NE:
                return c != 0;
            case LT:
                return c < 0;
            case LE:
                return c <= 0;
            case GT:
                return c > 0;
            default:
                return c >= 0;
        }
    }
}
