package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.ConditionTerm;
import io.junction.api.FieldFilter;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.api.Side;
import io.junction.json.JoinSpecJson;
import io.junction.json.RowJson;
import io.junction.runtime.EngineConfig;
import io.junction.tools.explain.ExplainLog.LineKind;
import io.junction.tools.explain.ExplainLog.LogRow;
import io.junction.tools.explain.ExplainLog.OutLine;
import io.junction.tools.replay.Replay;
import io.junction.tools.replay.ReplayResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code junction explain} (docs/SEMANTICS.md, "Explaining a join"): why the row of one log line did or did
 * not match. The log runs through the real replay ({@link Replay}), so the output steps, the padding and
 * every dead letter are the engine's own; a model over the parsed log (keys, filters, conditions, bounds,
 * windows, versions, ASOF selection, retractions and state TTL, as docs/SEMANTICS.md defines them) says for
 * each row the explained row was or could have been paired with which rule decided. The answer is one JSON
 * line per such row and one for the row's own fate, the same at any partition count (the model reads the
 * log, and the engine's output per step does not depend on partitions). Not thread safe.
 */
public final class Explainer
{
    /** A pair's or a row's decision: a code, a sentence, and the output step of a match (or -1). */
    record Verdict(String code, String detail, long outputStep)
    {
        Verdict(final String code, final String detail)
        {
            this(code, detail, -1);
        }
    }

    /** An argument that names no row to explain: the message names the line (exit 2). */
    public static final class ExplainArgumentException extends IllegalArgumentException
    {
        private static final long serialVersionUID = 1L;

        ExplainArgumentException(final String message)
        {
            super(message);
        }
    }

    private final JoinSpecJson.Parsed parsed;
    private final EngineConfig config;
    private JoinSpec spec;
    private ExplainLog log;
    private PairModel model;
    private List<String> partitionErrors = List.of();
    private long partitionErrorCount;

    /**
     * @param parsed the join spec
     * @param config the engine configuration the replay runs with
     */
    public Explainer(final JoinSpecJson.Parsed parsed, final EngineConfig config)
    {
        this.parsed = parsed;
        this.config = config;
    }

    /**
     * Explains one row.
     *
     * @param events the event log
     * @param step   the step of the row to explain
     * @param with   the step of a row to pair it with as well, or -1
     * @return the pair lines (by the other row's step) and then the fate line
     * @throws IOException                   when the log cannot be read
     * @throws ExplainArgumentException      when a step is beyond the log, a watermark, not a row, or (with) of the same input
     * @throws io.junction.json.JoinSpecException when the spec is rejected against the log's fields
     */
    public List<String> explain(final Path events, final long step, final long with) throws IOException
    {
        spec = parsed.spec();
        final JoinKind kind = spec.kind();
        final boolean tsRequired = kind == JoinKind.INTERVAL || kind == JoinKind.WINDOW || kind == JoinKind.TEMPORAL ||
            kind == JoinKind.ASOF;
        log = ExplainLog.read(events, tsRequired, parsed.inputNames());
        final LogRow n = rowAt("--step", step);
        final LogRow m = with < 0 ? null : rowAt("--with", with);
        if (m != null && m.input == n.input)
        {
            throw new ExplainArgumentException("--with " + with + " (line " + m.line + ") is a row of the same input (" +
                inputName(m.input) + ") as --step " + step + ": a pair is a row of another input");
        }
        final ReplayResult result = new Replay(config).run(parsed, Replay.events(events));
        partitionErrors = result.errors();
        partitionErrorCount = result.errorCount();
        log.attach(result);
        model = new PairModel(spec, log, this);
        return explain(n, m);
    }

    /** @return how many errors the last explain's replay counted in partition threads (its output may be incomplete) */
    public long partitionErrorCount()
    {
        return partitionErrorCount;
    }

    /** @return the first of those errors, as text */
    public List<String> partitionErrors()
    {
        return partitionErrors;
    }

    private LogRow rowAt(final String option, final long step)
    {
        if (step < 0 || step >= log.steps())
        {
            throw new ExplainArgumentException(option + " " + step + ": beyond the log, which has " + log.steps() +
                " step(s)" + (log.steps() == 0 ? "" : " (0 to " + (log.steps() - 1) + ")"));
        }
        final long line = log.lineNumbers.get((int) step);
        final LineKind lineKind = log.kinds.get((int) step);
        if (lineKind == LineKind.WATERMARK)
        {
            throw new ExplainArgumentException(option + " " + step + " (line " + line + ") is a watermark line, not a row");
        }
        if (lineKind == LineKind.BAD)
        {
            throw new ExplainArgumentException(option + " " + step + " (line " + line + ") is not a row event: " +
                log.badReasons.get(step));
        }
        return log.rows.get(step);
    }

    private List<String> explain(final LogRow asked, final LogRow with)
    {
        // a retraction is explained as the row it took back (its pairs are that row's)
        LogRow n = asked;
        String prefix = "";
        final Long target = model.retracts.get(asked.step);
        if (target != null)
        {
            n = log.rows.get(target);
            prefix = "step " + asked.step + " retracts the " + inputName(n.input) + " row of step " + n.step + "; of that row: ";
        }
        final JsonNode[] key = key(n);
        final TreeMap<Long, Verdict> pairs = new TreeMap<>();
        for (final LogRow other : log.rowList)
        {
            if (other.input == n.input || !other.accumulates() || other.step == n.step || pairs.containsKey(other.step))
            {
                continue;
            }
            final JsonNode[] otherKey = key(other);
            if (ExplainValues.nullField(key) < 0 && ExplainValues.nullField(otherKey) < 0 &&
                (ExplainValues.keysEqual(key, otherKey) || ExplainValues.keysDifferOnlyInType(key, otherKey)))
            {
                pairs.put(other.step, pair(n, other));
            }
        }
        if (with != null && !pairs.containsKey(with.step))
        {
            // a retraction pairs as the row it took back
            final Long taken = model.retracts.get(with.step);
            if (taken == null)
            {
                pairs.put(with.step, pair(n, with));
            }
            else
            {
                final Verdict v = pair(n, log.rows.get(taken));
                pairs.put(with.step, new Verdict(v.code(), "step " + with.step + " retracts the " + inputName(with.input) +
                    " row of step " + taken + "; of that row: " + v.detail(), v.outputStep()));
            }
        }
        final List<String> lines = new ArrayList<>();
        boolean matched = false;
        boolean keyed = false;
        for (final Map.Entry<Long, Verdict> e : pairs.entrySet())
        {
            final Verdict v = e.getValue();
            matched |= "MATCHED".equals(v.code());
            keyed |= ExplainValues.nullField(key) < 0 && ExplainValues.keysEqual(key, key(log.rows.get(e.getKey())));
            final StringBuilder sb = new StringBuilder("{\"step\":").append(asked.step).append(",\"with\":").append(e.getKey())
                .append(",\"code\":\"").append(v.code()).append("\",\"detail\":");
            RowJson.appendString(sb, v.detail());
            if (v.outputStep() >= 0)
            {
                sb.append(",\"outputStep\":").append(v.outputStep());
            }
            lines.add(sb.append('}').toString());
        }
        lines.add(fate(asked, n, prefix, pairs, matched, keyed));
        return lines;
    }

    private String fate(final LogRow asked, final LogRow n, final String prefix, final TreeMap<Long, Verdict> pairs,
        final boolean matchedPair, final boolean keyed)
    {
        final List<Long> outputs = new ArrayList<>();
        long padded = -1;
        boolean partnered = false;
        final boolean semiAnti = spec.type() == JoinType.SEMI || spec.type() == JoinType.ANTI;
        for (final OutLine out : log.outputs)
        {
            if (out.step < n.step || !n.canonical.equals(out.rows[n.input]))
            {
                continue;
            }
            if (outputs.isEmpty() || outputs.get(outputs.size() - 1) != out.step)
            {
                outputs.add(out.step);
            }
            boolean alone = true;
            for (int i = 0; i < out.rows.length; i++)
            {
                alone &= i == n.input || out.rows[i] == null;
            }
            if (out.plus && alone && !out.computed && spec.type() != JoinType.SEMI && padded < 0)
            {
                padded = out.step;
            }
            partnered |= out.plus && !alone && !semiAnti;
        }
        final Verdict own = ownFate(asked.accepted() ? n : asked, true);
        final Verdict fate;
        if (own != null)
        {
            fate = own;
        }
        else if (matchedPair || partnered || spec.type() == JoinType.SEMI && n.input == 0 && !outputs.isEmpty())
        {
            final List<Long> with = new ArrayList<>();
            for (final Map.Entry<Long, Verdict> e : pairs.entrySet())
            {
                if ("MATCHED".equals(e.getValue().code()))
                {
                    with.add(e.getKey());
                }
            }
            fate = new Verdict("MATCHED", "the row took part in an output pair" +
                (with.isEmpty() ? "" : " with the " + (with.size() == 1 ? "row of step " : "rows of steps ") + join(with)) +
                (outputs.isEmpty() ? "" : "; output lines carry it at step(s) " + join(outputs)));
        }
        else
        {
            final String ownFilter = ownFilter(n);
            final String why = ownFilter == null ? "" : "; " + ownFilter + ", so it matches nothing";
            if (keyed)
            {
                fate = new Verdict("NO_MATCH", "rows of its key " + ExplainValues.showKey(keyFields(n.input), key(n)) +
                    " existed, but none matched (the pair lines say why)" + why);
            }
            else
            {
                final List<Long> typed = new ArrayList<>();
                for (final Map.Entry<Long, Verdict> e : pairs.entrySet())
                {
                    if ("KEY_TYPE_DIFFERS".equals(e.getValue().code()))
                    {
                        typed.add(e.getKey());
                    }
                }
                fate = new Verdict("NO_ROW_WITH_KEY", "no row of " + otherInputs(n.input) + " has the key " +
                    ExplainValues.showKey(keyFields(n.input), key(n)) + (typed.isEmpty() ? "" :
                    "; the row(s) of step(s) " + join(typed) + " hold the same value as another JSON type, which is another key: send the key as one type on both inputs") + why);
            }
        }
        final StringBuilder sb = new StringBuilder("{\"step\":").append(asked.step).append(",\"fate\":\"").append(fate.code())
            .append("\",\"input\":");
        RowJson.appendString(sb, inputName(asked.input)).append(",\"detail\":");
        RowJson.appendString(sb, prefix + fate.detail());
        final LogRow dead = !asked.accepted() ? asked : !n.accepted() ? n : null;
        if (dead != null)
        {
            sb.append(",\"deadLetter\":\"").append(dead.deadLetterCode).append('"');
        }
        sb.append(",\"padded\":").append(padded < 0 ? "null" : Long.toString(padded)).append(",\"outputs\":[");
        for (int i = 0; i < outputs.size(); i++)
        {
            sb.append(i == 0 ? "" : ",").append(outputs.get(i));
        }
        return sb.append("]}").toString();
    }

    /**
     * The fate of a row that decides every pair it is in, or null: a dead letter (late or bad input) or a null key.
     *
     * @param self true for the explained row ("this row"), false for the other row of a pair
     */
    Verdict ownFate(final LogRow r, final boolean self)
    {
        final String who = self ? "this row" : "the " + inputName(r.input) + " row of step " + r.step;
        if (!r.accepted())
        {
            if ("late".equals(r.deadLetterCode) || "late_window".equals(r.deadLetterCode))
            {
                return new Verdict("LATE", who + " was late: " + lateness(r) + " (dead letter '" + r.deadLetterCode + "')");
            }
            return new Verdict("BAD_INPUT", who + " was a dead letter '" + r.deadLetterCode + "': " + r.deadLetterReason);
        }
        final JsonNode[] key = key(r);
        final int nullField = ExplainValues.nullField(key);
        if (nullField >= 0)
        {
            final String field = keyFields(r.input).get(nullField);
            return new Verdict("NULL_KEY", who + " has a null key: key field '" + field + "' is " +
                (r.row.has(field) ? "null" : "absent") + ", and a null key matches nothing");
        }
        return null;
    }

    private String lateness(final LogRow r)
    {
        final long w = log.watermarkBefore(r.step);
        if (spec.kind() == JoinKind.WINDOW)
        {
            return "every window of its ts " + ExplainValues.time(r.ts) + " had fired (join watermark " +
                ExplainValues.time(w) + " at step " + r.step + ")";
        }
        final long a = spec.kind() == JoinKind.MULTI ? 0 : spec.allowedLateness();
        return "its ts " + ExplainValues.time(r.ts) + " is below the join watermark " + ExplainValues.time(w) +
            (a == 0 ? "" : " minus allowedLateness " + ExplainValues.time(a)) + " at step " + r.step +
            (a == 0 ? "" : " (" + ExplainValues.time(ExplainValues.saturatedAdd(w, -a)) + ")") +
            " by " + ExplainValues.time(ExplainValues.saturatedAdd(ExplainValues.saturatedAdd(w, -a), -r.ts)) + " ms; an " +
            "allowedLateness of " + ExplainValues.time(ExplainValues.saturatedAdd(w, -r.ts)) + " ms or more would have let it in";
    }

    /** The verdict of the explained row {@code n} with the row {@code m} of another input. */
    private Verdict pair(final LogRow n, final LogRow m)
    {
        Verdict v = ownFate(n, true);
        if (v != null)
        {
            return v;
        }
        v = ownFate(m, false);
        if (v != null)
        {
            return v;
        }
        final JsonNode[] a = key(n);
        final JsonNode[] b = key(m);
        if (!ExplainValues.keysEqual(a, b))
        {
            final String shown = "this " + inputName(n.input) + " row has " + typedKey(keyFields(n.input), a) + ", the " +
                inputName(m.input) + " row of step " + m.step + " has " + typedKey(keyFields(m.input), b);
            if (ExplainValues.keysDifferOnlyInType(a, b))
            {
                return new Verdict("KEY_TYPE_DIFFERS", "the keys differ only in JSON type: " + shown +
                    "; values of different JSON types are different keys (docs/SEMANTICS.md 2.2): send the key as one type on both inputs");
            }
            return new Verdict("KEY_DIFFERS", "the keys differ: " + shown);
        }
        return model.decide(n, m);
    }

    private static String typedKey(final List<String> fields, final JsonNode[] key)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < key.length; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(fields.get(i)).append(' ').append(ExplainValues.show(key[i]))
                .append(" (a ").append(ExplainValues.typeName(key[i])).append(')');
        }
        return sb.toString();
    }

    /** @return the first own-filter failure of a row as a sentence, or null */
    String ownFilter(final LogRow r)
    {
        return ExplainValues.failedFilter(inputName(r.input), filters(r.input), r.row);
    }

    String inputName(final int input)
    {
        return log.inputNames != null ? log.inputNames.get(input) : input == 0 ? "left" : "right";
    }

    private String otherInputs(final int input)
    {
        if (log.inputNames == null)
        {
            return "the " + inputName(1 - input) + " input";
        }
        final List<String> names = new ArrayList<>(log.inputNames);
        names.remove(input);
        return "the other inputs " + names;
    }

    List<String> keyFields(final int input)
    {
        if (spec.kind() == JoinKind.MULTI)
        {
            return spec.multi().key(input);
        }
        return input == 0 ? spec.leftKey() : spec.rightKey();
    }

    List<FieldFilter> filters(final int input)
    {
        if (spec.kind() == JoinKind.MULTI)
        {
            return spec.multi().filter(input);
        }
        return input == 0 ? spec.leftFilter() : spec.rightFilter();
    }

    JsonNode[] key(final LogRow r)
    {
        return ExplainValues.key(r.row, keyFields(r.input));
    }

    long stateTtl(final int input)
    {
        return spec.kind() == JoinKind.MULTI ? spec.multi().stateTtl(input) : spec.stateTtl(input == 0 ? Side.LEFT : Side.RIGHT);
    }

    /** @return the built-in coGroup of a window coGroup, by its spec name, or null for a join */
    String coGroupName()
    {
        return spec.coGroupBuiltin() == null ? null : spec.coGroupBuiltin().jsonName();
    }

    /** @return the condition terms of a binary join */
    List<ConditionTerm> condition()
    {
        return spec.condition();
    }

    /** @return a multi-way join's terms over exactly these two inputs */
    List<MultiJoinSpec.Condition> conditions(final int i, final int j)
    {
        final List<MultiJoinSpec.Condition> terms = new ArrayList<>();
        for (final MultiJoinSpec.Condition c : spec.multi().conditions())
        {
            if (c.leftInput() == i && c.rightInput() == j || c.leftInput() == j && c.rightInput() == i)
            {
                terms.add(c);
            }
        }
        return terms;
    }

    static String join(final List<Long> steps)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < steps.size(); i++)
        {
            sb.append(i == 0 ? "" : ", ").append(steps.get(i));
        }
        return sb.toString();
    }
}
