package io.junction.join;

import io.junction.api.ChangeKind;
import io.junction.api.CompareOp;
import io.junction.api.Side;

/**
 * The random scenarios of the interval and window differential tests: their events and filters,
 * each able to print itself in the replay format (SPEC 1), so that a failing scenario can be
 * replayed with {@code junction replay}.
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
}
