package io.junction.metrics;

import io.junction.api.Row;
import io.junction.api.Side;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * A running engine's answer to "why does this row (not) join?" (docs/SEMANTICS.md 14): each stored row of the
 * other side under the row's key with the code its pair would get if the row came now, and the row's own fate so
 * far. The codes are those of docs/SEMANTICS.md 13 ({@code MATCHED}, {@code FILTER_FAILED},
 * {@code CONDITION_FAILED}, {@code OUTSIDE_INTERVAL}; fates {@code MATCHED}, {@code PENDING}, {@code NO_MATCH},
 * {@code NO_ROW_WITH_KEY}, {@code NULL_KEY}). At most a cap of pairs is listed; {@link #morePairs} counts the
 * rest. Immutable.
 */
public final class RowExplanation
{
    /** One stored row of the other side and the code of its pair with the explained row. */
    public record Pair(int partition, Side side, Row row, long ts, String code, String detail)
    {
        /** @return the pair as a JSON object: partition, side, ts, code, detail, row. */
        public String toJson()
        {
            final StringBuilder out = new StringBuilder(160);
            out.append("{\"partition\":").append(partition).append(",\"side\":\"").append(side.name().toLowerCase(Locale.ROOT))
                .append("\",\"ts\":").append(ts).append(",\"code\":\"").append(code).append("\",\"detail\":");
            KeyState.JsonText.appendString(out, detail);
            out.append(",\"row\":");
            KeyState.JsonText.appendRow(out, row);
            return out.append('}').toString();
        }
    }

    /** Fates in the order a merge of several partitions' answers prefers them: the first any partition gives. */
    private static final List<String> FATE_ORDER = List.of("NULL_KEY", "MATCHED", "PENDING", "NO_MATCH", "NO_ROW_WITH_KEY");

    private final String refusal;
    private final List<Pair> pairs;
    /** Pairs beyond the cap, not listed. */
    public final long morePairs;
    private final String fate;
    private final String fateDetail;

    private RowExplanation(final String refusal, final List<Pair> pairs, final long morePairs, final String fate,
        final String fateDetail)
    {
        this.refusal = refusal;
        this.pairs = Collections.unmodifiableList(new ArrayList<>(pairs));
        this.morePairs = morePairs;
        this.fate = fate;
        this.fateDetail = fateDetail;
    }

    /**
     * @param pairs      the pairs listed.
     * @param morePairs  pairs beyond the cap.
     * @param fate       the row's fate code.
     * @param fateDetail the sentence that says why.
     * @return an answer.
     */
    public static RowExplanation of(final List<Pair> pairs, final long morePairs, final String fate, final String fateDetail)
    {
        return new RowExplanation(null, pairs, morePairs, fate, fateDetail);
    }

    /**
     * @param why the sentence that says why.
     * @return the answer of an operator that cannot explain its rows.
     */
    public static RowExplanation unsupported(final String why)
    {
        return new RowExplanation(why, List.of(), 0, null, null);
    }

    /**
     * Merges the partitions' answers: their pairs, at most {@code cap}, and the fate the first of
     * {@code NULL_KEY, MATCHED, PENDING, NO_MATCH, NO_ROW_WITH_KEY} any partition gives (a key lives in one partition;
     * the others hold nothing of it).
     *
     * @param parts the partitions' answers.
     * @param cap   the most pairs listed.
     * @return one answer; unsupported when any part is.
     */
    public static RowExplanation merge(final List<RowExplanation> parts, final int cap)
    {
        final List<Pair> pairs = new ArrayList<>();
        long more = 0;
        RowExplanation decided = null;
        for (final RowExplanation part : parts)
        {
            if (part.refusal != null)
            {
                return part;
            }
            for (final Pair pair : part.pairs)
            {
                if (pairs.size() < cap)
                {
                    pairs.add(pair);
                }
                else
                {
                    more++;
                }
            }
            more += part.morePairs;
            if (decided == null || FATE_ORDER.indexOf(part.fate) < FATE_ORDER.indexOf(decided.fate))
            {
                decided = part;
            }
        }
        return decided == null ? of(pairs, more, "NO_ROW_WITH_KEY", "the engine has no partition")
            : of(pairs, more, decided.fate, decided.fateDetail);
    }

    /** @return whether the join's kind can explain a row; when not, {@link #refusal()} says why. */
    public boolean supported()
    {
        return refusal == null;
    }

    /** @return why the kind cannot explain a row, or null. */
    public String refusal()
    {
        return refusal;
    }

    /** @return the pairs listed. */
    public List<Pair> pairs()
    {
        return pairs;
    }

    /** @return the row's fate code, or null when unsupported. */
    public String fate()
    {
        return fate;
    }

    /** @return the sentence that says why it has that fate. */
    public String fateDetail()
    {
        return fateDetail;
    }

    /** @return {@code {"pairs":[..],"morePairs":N,"fate":"CODE","detail":"..."}}, or {@code {"unsupported":"why"}}. */
    public String toJson()
    {
        final StringBuilder out = new StringBuilder(256);
        if (refusal != null)
        {
            out.append("{\"unsupported\":");
            KeyState.JsonText.appendString(out, refusal);
            return out.append('}').toString();
        }
        out.append("{\"pairs\":[");
        for (int i = 0; i < pairs.size(); i++)
        {
            out.append(i == 0 ? "" : ",").append(pairs.get(i).toJson());
        }
        out.append("],\"morePairs\":").append(morePairs).append(",\"fate\":\"").append(fate).append("\",\"detail\":");
        KeyState.JsonText.appendString(out, fateDetail);
        return out.append('}').toString();
    }

    @Override
    public String toString()
    {
        return toJson();
    }
}
