package io.junction.metrics;

import io.junction.api.Row;
import io.junction.api.Side;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a running engine holds of one join key (docs/SEMANTICS.md 14, "Asking a running engine"): the stored
 * rows of each side with their match counts and due times, read by the partition thread between two events.
 * At most a cap of rows is listed per side; {@link #moreLeft} and {@link #moreRight} count the rest. Immutable.
 */
public final class KeyState
{
    /** A due time of a row that nothing expires (no TTL, no interval): it stays until retracted. */
    public static final long NEVER_DUE = Long.MAX_VALUE;

    /** A match count of a kind that keeps none (its count field holds flags): {@code null} in JSON. */
    public static final int NOT_COUNTED = -1;

    /** One stored row: its match count is {@link #NOT_COUNTED} for the temporal, lookup and ASOF kinds. */
    public record StoredRow(int partition, Side side, Row row, long ts, int matches, long due)
    {
        /** @return the row as a JSON object: partition, side, ts, matches, due (null when never due), row. */
        public String toJson()
        {
            final StringBuilder out = new StringBuilder(128);
            out.append("{\"partition\":").append(partition).append(",\"side\":\"").append(side.name().toLowerCase(Locale.ROOT))
                .append("\",\"ts\":").append(ts).append(",\"matches\":").append(matches == NOT_COUNTED ? "null" : Integer.toString(matches))
                .append(",\"due\":")
                .append(due == NEVER_DUE ? "null" : Long.toString(due)).append(",\"row\":");
            JsonText.appendRow(out, row);
            return out.append('}').toString();
        }
    }

    private final boolean supported;
    private final String refusal;
    private final List<StoredRow> left;
    private final List<StoredRow> right;
    /** Stored rows of the left side beyond the cap, not listed. */
    public final long moreLeft;
    /** Stored rows of the right side beyond the cap, not listed. */
    public final long moreRight;

    private KeyState(final boolean supported, final String refusal, final List<StoredRow> left, final List<StoredRow> right,
        final long moreLeft, final long moreRight)
    {
        this.supported = supported;
        this.refusal = refusal;
        this.left = Collections.unmodifiableList(new ArrayList<>(left));
        this.right = Collections.unmodifiableList(new ArrayList<>(right));
        this.moreLeft = moreLeft;
        this.moreRight = moreRight;
    }

    /**
     * @param left      the left rows listed.
     * @param right     the right rows listed.
     * @param moreLeft  left rows beyond the cap.
     * @param moreRight right rows beyond the cap.
     * @return a key's state.
     */
    public static KeyState of(final List<StoredRow> left, final List<StoredRow> right, final long moreLeft, final long moreRight)
    {
        return new KeyState(true, null, left, right, moreLeft, moreRight);
    }

    /**
     * @param why the sentence that says why (the kind that keeps its state another way).
     * @return the answer of an operator that cannot list a key's rows.
     */
    public static KeyState unsupported(final String why)
    {
        return new KeyState(false, why, List.of(), List.of(), 0, 0);
    }

    /**
     * Merges the answers of several partitions, keeping at most {@code cap} rows per side.
     *
     * @param parts the partitions' answers.
     * @param cap   the most rows listed per side.
     * @return one answer; unsupported when any part is.
     */
    public static KeyState merge(final List<KeyState> parts, final int cap)
    {
        final List<StoredRow> left = new ArrayList<>();
        final List<StoredRow> right = new ArrayList<>();
        long moreLeft = 0;
        long moreRight = 0;
        for (final KeyState part : parts)
        {
            if (!part.supported)
            {
                return part;
            }
            moreLeft += take(part.left, left, cap) + part.moreLeft;
            moreRight += take(part.right, right, cap) + part.moreRight;
        }
        return of(left, right, moreLeft, moreRight);
    }

    private static long take(final List<StoredRow> from, final List<StoredRow> into, final int cap)
    {
        long left = 0;
        for (final StoredRow row : from)
        {
            if (into.size() < cap)
            {
                into.add(row);
            }
            else
            {
                left++;
            }
        }
        return left;
    }

    /** @return whether the join's kind can list a key's rows; when not, {@link #refusal()} says why. */
    public boolean supported()
    {
        return supported;
    }

    /** @return why the kind cannot list a key's rows, or null. */
    public String refusal()
    {
        return refusal;
    }

    /** @return the left rows listed, in the order the state keeps them. */
    public List<StoredRow> left()
    {
        return left;
    }

    /** @return the right rows listed, in the order the state keeps them. */
    public List<StoredRow> right()
    {
        return right;
    }

    /**
     * @param side a side.
     * @return the rows listed of that side.
     */
    public List<StoredRow> rows(final Side side)
    {
        return side == Side.LEFT ? left : right;
    }

    /**
     * @return the answer as one JSON object: {@code {"left":[..],"moreLeft":N,"right":[..],"moreRight":N}}, or
     *         {@code {"unsupported":"why"}}.
     */
    public String toJson()
    {
        final StringBuilder out = new StringBuilder(256);
        if (!supported)
        {
            out.append("{\"unsupported\":");
            JsonText.appendString(out, refusal);
            return out.append('}').toString();
        }
        out.append("{\"left\":");
        appendRows(out, left);
        out.append(",\"moreLeft\":").append(moreLeft).append(",\"right\":");
        appendRows(out, right);
        return out.append(",\"moreRight\":").append(moreRight).append('}').toString();
    }

    private static void appendRows(final StringBuilder out, final List<StoredRow> rows)
    {
        out.append('[');
        for (int i = 0; i < rows.size(); i++)
        {
            out.append(i == 0 ? "" : ",").append(rows.get(i).toJson());
        }
        out.append(']');
    }

    @Override
    public String toString()
    {
        return toJson();
    }

    /** JSON text of row values: strings, numbers, booleans, null, lists and maps of them. */
    static final class JsonText
    {
        private JsonText()
        {
        }

        static void appendRow(final StringBuilder out, final Row row)
        {
            appendValue(out, row.fields());
        }

        static void appendValue(final StringBuilder out, final Object value)
        {
            if (value == null)
            {
                out.append("null");
            }
            else if (value instanceof String s)
            {
                appendString(out, s);
            }
            else if (value instanceof Map<?, ?> map)
            {
                out.append('{');
                boolean first = true;
                for (final Map.Entry<?, ?> e : map.entrySet())
                {
                    out.append(first ? "" : ",");
                    first = false;
                    appendString(out, String.valueOf(e.getKey()));
                    out.append(':');
                    appendValue(out, e.getValue());
                }
                out.append('}');
            }
            else if (value instanceof List<?> list)
            {
                out.append('[');
                for (int i = 0; i < list.size(); i++)
                {
                    out.append(i == 0 ? "" : ",");
                    appendValue(out, list.get(i));
                }
                out.append(']');
            }
            else if (value instanceof Double d && (d.isNaN() || d.isInfinite()))
            {
                appendString(out, d.toString());
            }
            else
            {
                out.append(value);
            }
        }

        static void appendString(final StringBuilder out, final String s)
        {
            out.append('"');
            for (int i = 0; i < s.length(); i++)
            {
                final char c = s.charAt(i);
                switch (c)
                {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default ->
                    {
                        if (c < 0x20)
                        {
                            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                        }
                        else
                        {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        }
    }
}
