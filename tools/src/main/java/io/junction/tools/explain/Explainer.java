package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.ConditionTerm;
import io.junction.api.Expansion;
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
 * log, and the engine's output per step does not depend on partitions). A row of an expanded input
 * (docs/SEMANTICS.md section 12) is explained through the rows it made, each decided as a row of its input;
 * the standalone expand kind is {@link ExpandExplain}'s. Not thread safe.
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

    /** How many made rows a fate's detail names one by one. */
    private static final int MADE_SHOWN = 8;

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
        if (m != null && kind == JoinKind.EXPAND)
        {
            throw new ExplainArgumentException("--with " + with + ": a standalone expand join has one input, so a row " +
                "pairs only with the rows it makes; explain --step " + step + " alone");
        }
        if (kind != JoinKind.EXPAND)
        {
            final int inputs = parsed.inputNames() == null ? 2 : parsed.inputNames().size();
            final Expansion[] expansions = new Expansion[inputs];
            final boolean[] outer = new boolean[inputs];
            for (int i = 0; i < inputs; i++)
            {
                expansions[i] = expansion(i);
                outer[i] = expansions[i] != null && expansions[i].outer();
            }
            log.expand(expansions, outer);
        }
        final ReplayResult result = new Replay(config).run(parsed, Replay.events(events));
        partitionErrors = result.errors();
        partitionErrorCount = result.errorCount();
        log.attach(result);
        if (kind == JoinKind.EXPAND)
        {
            return new ExpandExplain(spec, log, this).explain(n);
        }
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

    /** A pair line's other row: its step (a retraction's own, when --with names one) and its made position (-1: none). */
    private record PairKey(long with, int withMade) implements Comparable<PairKey>
    {
        @Override
        public int compareTo(final PairKey o)
        {
            return with != o.with ? Long.compare(with, o.with) : Integer.compare(withMade, o.withMade);
        }
    }

    /** A pair's verdict and the row of the other input it was decided against (null: none, it made no rows). */
    private record Pair(Verdict verdict, LogRow other)
    {
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
        // an expanded row is explained through the rows it made, each decided as a row of its input (section 12)
        final List<LogRow> selves = n.joining();
        final List<TreeMap<PairKey, Pair>> pairsOf = new ArrayList<>();
        final List<String> lines = new ArrayList<>();
        for (final LogRow self : selves)
        {
            final TreeMap<PairKey, Pair> pairs = pairs(self, with);
            pairsOf.add(pairs);
            for (final Map.Entry<PairKey, Pair> e : pairs.entrySet())
            {
                lines.add(pairLine(asked.step, self, e.getKey(), e.getValue().verdict()));
            }
        }
        if (selves.isEmpty() && with != null)
        {
            lines.add(pairLine(asked.step, n, new PairKey(with.step, -1), new Verdict("NO_MATCH", "this row takes part in " +
                "no pair: " + n.noRows)));
        }
        lines.add(fate(asked, n, prefix, selves, pairsOf));
        return lines;
    }

    private static String pairLine(final long step, final LogRow self, final PairKey key, final Verdict v)
    {
        final StringBuilder sb = new StringBuilder("{\"step\":").append(step).append(",\"with\":").append(key.with());
        if (self.made >= 0)
        {
            sb.append(",\"made\":").append(self.made);
        }
        if (key.withMade() >= 0)
        {
            sb.append(",\"withMade\":").append(key.withMade());
        }
        sb.append(",\"code\":\"").append(v.code()).append("\",\"detail\":");
        RowJson.appendString(sb, v.detail());
        if (v.outputStep() >= 0)
        {
            sb.append(",\"outputStep\":").append(v.outputStep());
        }
        return sb.append('}').toString();
    }

    /** The pairs of one row that joins (a log row, or a row it made): candidates of its key, and the --with row's. */
    private TreeMap<PairKey, Pair> pairs(final LogRow n, final LogRow with)
    {
        final JsonNode[] key = key(n);
        final TreeMap<PairKey, Pair> pairs = new TreeMap<>();
        for (final LogRow other : log.joinRows)
        {
            if (other.input == n.input || !other.accumulates() || other.step == n.step)
            {
                continue;
            }
            final JsonNode[] otherKey = key(other);
            if (ExplainValues.nullField(key) < 0 && ExplainValues.nullField(otherKey) < 0 &&
                (ExplainValues.keysEqual(key, otherKey) || ExplainValues.keysDifferOnlyInType(key, otherKey)))
            {
                pairs.put(new PairKey(other.step, other.made), new Pair(pair(n, other), other));
            }
        }
        if (with == null)
        {
            return pairs;
        }
        // a retraction pairs as the row it took back
        final Long taken = model.retracts.get(with.step);
        final LogRow of = taken == null ? with : log.rows.get(taken);
        final String retraction = taken == null ? "" : "step " + with.step + " retracts the " + inputName(with.input) +
            " row of step " + taken + "; of that row: ";
        if (of.joining().isEmpty() && !pairs.containsKey(new PairKey(with.step, -1)))
        {
            final Verdict own = ownFate(n, true);
            pairs.put(new PairKey(with.step, -1), new Pair(own != null ? own : new Verdict("NO_MATCH", retraction + "the " +
                inputName(of.input) + " row of step " + of.step + " takes part in no pair: " + of.noRows), null));
        }
        for (final LogRow o : of.joining())
        {
            final PairKey k = new PairKey(with.step, o.made);
            if (!pairs.containsKey(k))
            {
                final Verdict v = pair(n, o);
                pairs.put(k, new Pair(new Verdict(v.code(), retraction + v.detail(), v.outputStep()), o));
            }
        }
        return pairs;
    }

    /** What the replay's output says of one joining row: the steps that carry it, its padding, whether it had a partner. */
    private final class Carried
    {
        final List<Long> outputs = new ArrayList<>();
        long padded = -1;
        boolean partnered;

        void add(final LogRow n)
        {
            final boolean semiAnti = spec.type() == JoinType.SEMI || spec.type() == JoinType.ANTI;
            for (final OutLine out : log.outputs)
            {
                if (out.step < n.step || !n.canonical.equals(out.rows[n.input]))
                {
                    continue;
                }
                if (!outputs.contains(out.step))
                {
                    outputs.add(out.step);
                }
                boolean alone = true;
                for (int i = 0; i < out.rows.length; i++)
                {
                    alone &= i == n.input || out.rows[i] == null;
                }
                if (out.plus && alone && !out.computed && spec.type() != JoinType.SEMI && (padded < 0 || out.step < padded))
                {
                    padded = out.step;
                }
                partnered |= out.plus && !alone && !semiAnti;
            }
            outputs.sort(null);
        }
    }

    private String fate(final LogRow asked, final LogRow n, final String prefix, final List<LogRow> selves,
        final List<TreeMap<PairKey, Pair>> pairsOf)
    {
        final Carried carried = new Carried();
        final boolean[] selfMatched = new boolean[selves.size()];
        final boolean[] selfKeyed = new boolean[selves.size()];
        final List<Long> with = new ArrayList<>();
        final List<Long> typed = new ArrayList<>();
        boolean matched = false;
        boolean keyed = false;
        for (int i = 0; i < selves.size(); i++)
        {
            final LogRow self = selves.get(i);
            final Carried own = new Carried();
            own.add(self);
            carried.add(self);
            final JsonNode[] key = key(self);
            for (final Pair p : pairsOf.get(i).values())
            {
                final String code = p.verdict().code();
                selfMatched[i] |= "MATCHED".equals(code);
                if ("MATCHED".equals(code) && !with.contains(p.other().step))
                {
                    with.add(p.other().step);
                }
                if ("KEY_TYPE_DIFFERS".equals(code) && !typed.contains(p.other().step))
                {
                    typed.add(p.other().step);
                }
                selfKeyed[i] |= p.other() != null && ExplainValues.nullField(key) < 0 && ExplainValues.keysEqual(key, key(p.other()));
            }
            selfMatched[i] |= own.partnered || spec.type() == JoinType.SEMI && self.input == 0 && !own.outputs.isEmpty();
            matched |= selfMatched[i];
            keyed |= selfKeyed[i];
        }
        with.sort(null);
        typed.sort(null);
        final boolean expanded = n.madeRows != null && n.accepted();
        // an expanded row's key is its made rows' (the input row may lack the key field the expansion adds)
        Verdict fate = expanded && asked.accepted() ? null : ownFate(asked.accepted() ? n : asked, true);
        LogRow dead = !asked.accepted() ? asked : !n.accepted() ? n : null;
        if (fate == null && expanded)
        {
            if (selves.isEmpty())
            {
                fate = new Verdict("NO_MATCH", n.noRows + ", so the row takes part in no pair");
            }
            else if (!matched)
            {
                fate = sharedOwnFate(selves);
                dead = fate != null && !selves.get(0).accepted() ? selves.get(0) : null;
            }
        }
        if (fate == null && matched)
        {
            fate = new Verdict("MATCHED", "the row took part in an output pair" +
                (with.isEmpty() ? "" : " with the " + (with.size() == 1 ? "row of step " : "rows of steps ") + join(with)) +
                (carried.outputs.isEmpty() ? "" : "; output lines carry it at step(s) " + join(carried.outputs)));
        }
        else if (fate == null && !expanded)
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
                fate = new Verdict("NO_ROW_WITH_KEY", "no row of " + otherInputs(n.input) + " has the key " +
                    ExplainValues.showKey(keyFields(n.input), key(n)) + typedNote(typed) + why);
            }
        }
        else if (fate == null)
        {
            fate = new Verdict(keyed ? "NO_MATCH" : "NO_ROW_WITH_KEY", (keyed ? "rows of the key of a row it made existed, " +
                "but none matched (the pair lines say why)" : "no row of " + otherInputs(n.input) + " has the key of a row it made") +
                typedNote(typed));
        }
        String detail = fate.detail();
        if (expanded && !selves.isEmpty())
        {
            detail = madeSummary(n, selves, selfMatched, selfKeyed) + detail;
        }
        final StringBuilder sb = new StringBuilder("{\"step\":").append(asked.step).append(",\"fate\":\"").append(fate.code())
            .append("\",\"input\":");
        RowJson.appendString(sb, inputName(asked.input)).append(",\"detail\":");
        RowJson.appendString(sb, prefix + detail);
        if (dead != null)
        {
            sb.append(",\"deadLetter\":\"").append(dead.deadLetterCode).append('"');
        }
        if (n.madeRows != null)
        {
            sb.append(",\"made\":").append(n.accepted() ? n.madeRows.size() : 0);
        }
        sb.append(",\"padded\":").append(carried.padded < 0 ? "null" : Long.toString(carried.padded)).append(",\"outputs\":[");
        for (int i = 0; i < carried.outputs.size(); i++)
        {
            sb.append(i == 0 ? "" : ",").append(carried.outputs.get(i));
        }
        return sb.append("]}").toString();
    }

    private static String typedNote(final List<Long> typed)
    {
        return typed.isEmpty() ? "" : "; the row(s) of step(s) " + join(typed) + " hold the same value as another JSON type, " +
            "which is another key: send the key as one type on both inputs";
    }

    /** The fate every row an input row made has of its own (all late, all null keys), or null when they differ or have none. */
    private Verdict sharedOwnFate(final List<LogRow> selves)
    {
        String code = null;
        for (final LogRow self : selves)
        {
            final Verdict v = ownFate(self, true);
            if (v == null || code != null && !code.equals(v.code()))
            {
                return null;
            }
            code = v.code();
        }
        final Verdict first = ownFate(selves.get(0), true);
        return new Verdict(code, (selves.size() == 1 ? "" : "every row it made: ") + first.detail());
    }

    /** What became of each row an input row made, for its fate's detail (the first few rows). */
    private String madeSummary(final LogRow n, final List<LogRow> selves, final boolean[] matched, final boolean[] keyed)
    {
        final StringBuilder sb = new StringBuilder("it made ").append(selves.size()).append(selves.size() == 1 ? " row" : " rows")
            .append(" (").append(ExplainExpansion.name(expansion(n.input))).append(")");
        final int shown = Math.min(selves.size(), MADE_SHOWN);
        for (int i = 0; i < shown; i++)
        {
            final LogRow self = selves.get(i);
            final Verdict own = ownFate(self, true);
            sb.append(i == 0 ? ": " : "; ").append("made row ").append(self.made).append(" (")
                .append(ExplainValues.showKey(keyFields(self.input), key(self))).append(") ")
                .append(matched[i] ? "took part in an output pair" : own != null ? ownWords(self, own) : keyed[i]
                    ? "met rows of its key, none matched" : "has no row of its key");
        }
        sb.append(selves.size() > shown ? "; ..." : "");
        if (n.noRows != null)
        {
            sb.append(" (").append(n.noRows).append(", so the outer expansion made its padded row 0)");
        }
        return sb.append(". ").toString();
    }

    private static String ownWords(final LogRow r, final Verdict own)
    {
        switch (own.code())
        {
            case "LATE":
                return "was late";
            case "NULL_KEY":
                return "has a null key";
            default:
                return "was a dead letter '" + r.deadLetterCode + "'";
        }
    }

    /** @return the expansion of an input's rows before the join (section 12), or null */
    Expansion expansion(final int input)
    {
        if (spec.kind() == JoinKind.MULTI)
        {
            return spec.multi().expansion(input);
        }
        return spec.kind() == JoinKind.EXPAND ? null : spec.expansion(input == 0 ? Side.LEFT : Side.RIGHT);
    }

    /**
     * The fate of a row that decides every pair it is in, or null: a dead letter (late or bad input) or a null key.
     *
     * @param self true for the explained row ("this row"), false for the other row of a pair
     */
    Verdict ownFate(final LogRow r, final boolean self)
    {
        final String who = self ? (r.made >= 0 ? "made row " + r.made + " of this row" : "this row") : rowName(r);
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
            final String self = n.made >= 0 ? "made row " + n.made + " of this " + inputName(n.input) + " row"
                : "this " + inputName(n.input) + " row";
            final String shown = self + " has " + typedKey(keyFields(n.input), a) + ", " + rowName(m) + " has " +
                typedKey(keyFields(m.input), b);
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

    /** @return "the right row of step 3", naming a made row's position too */
    String rowName(final LogRow r)
    {
        return "the " + inputName(r.input) + " row of step " + r.step + (r.made >= 0 ? " (made row " + r.made + ")" : "");
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
