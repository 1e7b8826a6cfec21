package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.AsofSpec;
import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import io.junction.tools.explain.Explainer.Verdict;
import io.junction.tools.explain.ExplainLog.LogRow;
import io.junction.tools.explain.ExplainLog.OutLine;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

import static io.junction.tools.explain.ExplainValues.time;

/**
 * The per-kind rules that decide a pair of rows with equal keys (docs/SEMANTICS.md sections 4-7, 10, 11),
 * over the parsed log and the replay's real output: filters, the condition, the interval, windows and
 * sessions, the version or ASOF match selected, retractions and state TTL. Built once per explained log.
 * Not thread safe.
 */
final class PairModel
{
    private final JoinSpec spec;
    private final ExplainLog log;
    private final Explainer ex;
    /** Regular and multi-way joins: the retraction that took back an accumulating row, and the reverse. */
    final Map<LogRow, Long> retractedAt = new HashMap<>();
    final Map<Long, Long> retracts = new HashMap<>();
    /** Regular and multi-way joins: the step at which a row left state by stateTtl (its own step: never stored). */
    private final Map<Long, Long> expiredAt = new HashMap<>();
    private final WindowModel windows;

    PairModel(final JoinSpec spec, final ExplainLog log, final Explainer ex)
    {
        this.spec = spec;
        this.log = log;
        this.ex = ex;
        if (spec.kind() == JoinKind.REGULAR || spec.kind() == JoinKind.MULTI)
        {
            changelog();
        }
        windows = spec.kind() == JoinKind.WINDOW ? new WindowModel(spec.window(), log, ex) : null;
    }

    /** Expiry by stateTtl, then which accumulating copy each accepted retraction took back (the oldest live one). */
    private void changelog()
    {
        for (final LogRow r : log.joinRows)
        {
            final long ttl = ex.stateTtl(r.input);
            if (!r.accepted() || !r.accumulates() || ttl <= 0)
            {
                continue;
            }
            final long limit = ExplainValues.saturatedAdd(r.ts, ttl);
            if (log.watermarkBefore(r.step) != Long.MIN_VALUE && limit < log.watermarkBefore(r.step))
            {
                expiredAt.put(r.step, r.step);
            }
            else if (limit < Long.MAX_VALUE)
            {
                final long s = log.stepReaching(r.step, limit + 1);
                if (s < log.steps())
                {
                    expiredAt.put(r.step, s);
                }
            }
        }
        final Map<String, ArrayDeque<LogRow>> live = new HashMap<>();
        for (final LogRow r : log.joinRows)
        {
            if (!r.accepted())
            {
                continue;
            }
            final String id = r.input + ":" + r.canonical;
            if (r.accumulates())
            {
                live.computeIfAbsent(id, k -> new ArrayDeque<>()).add(r);
                continue;
            }
            final ArrayDeque<LogRow> copies = live.get(id);
            while (copies != null && !copies.isEmpty())
            {
                final LogRow copy = copies.poll();
                final Long expired = expiredAt.get(copy.step);
                if (expired == null || expired > r.step)
                {
                    retractedAt.put(copy, r.step);
                    retracts.put(r.step, copy.step);
                    break;
                }
            }
        }
    }

    /** Decides a pair whose keys are equal and whose rows were both accepted. */
    Verdict decide(final LogRow n, final LogRow m)
    {
        switch (spec.kind())
        {
            case MULTI:
                return multi(n, m);
            case TEMPORAL:
            case LOOKUP:
                return versioned(n.input == 0 ? n : m, n.input == 0 ? m : n);
            case ASOF:
                return asof(n.input == 0 ? n : m, n.input == 0 ? m : n);
            default:
                return binary(n, m);
        }
    }

    private String who(final LogRow r)
    {
        return "the " + ex.inputName(r.input) + " row (step " + r.step + (r.made >= 0 ? ", made row " + r.made : "") + ", ts " +
            time(r.ts) + ")";
    }

    /** The first + output line that carries both rows, at or after the later one's step; -1 when none. */
    long outputWith(final LogRow a, final LogRow b)
    {
        final long from = Math.max(a.step, b.step);
        for (final OutLine out : log.outputs)
        {
            if (out.plus && out.step >= from && a.canonical.equals(out.rows[a.input]) && b.canonical.equals(out.rows[b.input]))
            {
                return out.step;
            }
        }
        return -1;
    }

    private long lastOutputWith(final LogRow a, final LogRow b)
    {
        long last = -1;
        for (final OutLine out : log.outputs)
        {
            if (out.plus && out.step >= Math.max(a.step, b.step) && a.canonical.equals(out.rows[a.input]) &&
                b.canonical.equals(out.rows[b.input]))
            {
                last = out.step;
            }
        }
        return last;
    }

    private Verdict filters(final LogRow n, final LogRow m)
    {
        for (final LogRow r : new LogRow[] {n, m})
        {
            final String failed = ex.ownFilter(r);
            if (failed != null)
            {
                return new Verdict("FILTER_FAILED", failed + " in " + ex.rowName(r) + ", so that row matches nothing");
            }
        }
        return null;
    }

    private Verdict condition(final LogRow l, final LogRow r)
    {
        final String failed = ExplainValues.failedCondition(ex.condition(), l.row, r.row);
        return failed == null ? null : new Verdict("CONDITION_FAILED", failed + " (left step " + l.step + ", right step " + r.step + ")");
    }

    /** Regular, interval and window joins (and coGroup). */
    private Verdict binary(final LogRow n, final LogRow m)
    {
        final LogRow l = n.input == 0 ? n : m;
        final LogRow r = n.input == 0 ? m : n;
        final boolean pairsInOutput = spec.type() != JoinType.SEMI && spec.type() != JoinType.ANTI && spec.coGroup() == null;
        if (pairsInOutput)
        {
            final long out = outputWith(l, r);
            if (out >= 0)
            {
                final Verdict window = spec.kind() == JoinKind.WINDOW ? windows.decide(l, r) : null;
                return new Verdict("MATCHED", (window != null && "MATCHED".equals(window.code()) ? window.detail() + "; "
                    : "keys equal, filters and condition hold: ") + "the output line of step " + out + " carries both rows", out);
            }
        }
        Verdict v = filters(n, m);
        if (v == null)
        {
            v = condition(l, r);
        }
        if (v != null)
        {
            return v;
        }
        switch (spec.kind())
        {
            case INTERVAL:
                v = interval(l, r);
                break;
            case WINDOW:
                return windows.decide(l, r);
            default:
                v = timing(n, m);
                break;
        }
        if (v != null)
        {
            return v;
        }
        final long at = Math.max(l.step, r.step);
        return new Verdict("MATCHED", "keys equal, filters and condition hold" +
            (spec.kind() == JoinKind.INTERVAL ? ", inside the interval" : "") + ": paired at step " + at, at);
    }

    private Verdict interval(final LogRow l, final LogRow r)
    {
        final IntervalBounds bounds = spec.interval();
        final long d = ExplainValues.saturatedAdd(r.ts, r.ts == Long.MIN_VALUE && l.ts == Long.MIN_VALUE ? 0 : -l.ts);
        final long lo = bounds.inclusiveLower();
        final long hi = bounds.inclusiveUpper();
        final String where = "the right row (step " + r.step + ", ts " + time(r.ts) + ") is " + time(Math.abs(d)) +
            " ms " + (d >= 0 ? "after" : "before") + " the left row (step " + l.step + ", ts " + time(l.ts) + ")";
        if (d < lo)
        {
            return new Verdict("OUTSIDE_INTERVAL", where + "; the interval's lower bound is " + time(lo) +
                " ms (inclusive), so it is outside by " + time(ExplainValues.saturatedAdd(lo, -d)) + " ms");
        }
        if (d > hi)
        {
            return new Verdict("OUTSIDE_INTERVAL", where + "; the interval's upper bound is " + time(hi) +
                " ms (inclusive), so it is outside by " + time(ExplainValues.saturatedAdd(d, -hi)) + " ms");
        }
        return null;
    }

    /** Regular and multi-way joins: the earlier row left state (retracted, expired) before the later one came. */
    private Verdict timing(final LogRow n, final LogRow m)
    {
        final LogRow early = n.step < m.step ? n : m;
        final LogRow late = early == n ? m : n;
        final Long retracted = retractedAt.get(early);
        if (retracted != null && retracted < late.step)
        {
            return new Verdict("RETRACTED", who(early) + " was retracted at step " + retracted + ", before " + who(late) +
                " came at step " + late.step);
        }
        final Long expired = expiredAt.get(early.step);
        if (expired != null && expired == early.step && early.step < late.step)
        {
            return new Verdict("EXPIRED", who(early) + " arrived already past its stateTtl of " +
                time(ex.stateTtl(early.input)) + " ms (ts " + time(early.ts) + " + " + time(ex.stateTtl(early.input)) +
                " is below the join watermark " + time(log.watermarkBefore(early.step)) + "), so it joined what was stored " +
                "then and was not stored for " + who(late) + " to find at step " + late.step);
        }
        if (expired != null && expired < late.step)
        {
            return new Verdict("EXPIRED", who(early) + " had left state at step " + expired + " by its stateTtl of " +
                time(ex.stateTtl(early.input)) + " ms (ts " + time(early.ts) + " + " + time(ex.stateTtl(early.input)) +
                " is below the join watermark " + time(log.watermarkAfter(expired)) + "), before " + who(late) +
                " came at step " + late.step);
        }
        final Long lateExpired = expiredAt.get(late.step);
        if (spec.kind() == JoinKind.MULTI && lateExpired != null && lateExpired == late.step)
        {
            return new Verdict("EXPIRED", who(late) + " arrived already past its input's stateTtl of " +
                time(ex.stateTtl(late.input)) + " ms (join watermark " + time(log.watermarkBefore(late.step)) +
                "), so it never joined its input");
        }
        return null;
    }

    private Verdict multi(final LogRow n, final LogRow m)
    {
        final long out = outputWith(n, m);
        if (out >= 0)
        {
            return new Verdict("MATCHED", "joined: the output line of step " + out + " carries both rows", out);
        }
        Verdict v = filters(n, m);
        if (v != null)
        {
            return v;
        }
        for (final MultiJoinSpec.Condition c : ex.conditions(n.input, m.input))
        {
            final LogRow a = c.leftInput() == n.input ? n : m;
            final LogRow b = a == n ? m : n;
            final JsonNode left = a.row.get(c.leftField());
            final JsonNode right = b.row.get(c.rightField());
            if (!ExplainValues.holds(left, 0, c.op(), right))
            {
                return new Verdict("CONDITION_FAILED", "condition " + ex.inputName(a.input) + "." + c.leftField() + " " +
                    c.op().symbol() + " " + ex.inputName(b.input) + "." + c.rightField() + " failed: " +
                    ex.inputName(a.input) + "." + c.leftField() + " was " + ExplainValues.show(left) + ", " +
                    ex.inputName(b.input) + "." + c.rightField() + " was " + ExplainValues.show(right) +
                    ExplainValues.reasonOf(left, right, 0));
            }
        }
        v = timing(n, m);
        if (v != null)
        {
            return v;
        }
        return new Verdict("NO_MATCH", "the two rows meet each other's key, filters and condition, but no combination " +
            "of the chain holds both: " + chainGap(n, m));
    }

    /** Why no combination of a multi-way chain holds two rows that accept each other: an input they need. */
    private String chainGap(final LogRow n, final LogRow m)
    {
        final MultiJoinSpec multi = spec.multi();
        for (int k = 0; k < multi.inputs(); k++)
        {
            if (k == n.input || k == m.input || k > 0 && multi.type(k) != JoinType.INNER)
            {
                continue;
            }
            boolean any = false;
            for (final LogRow r : log.joinRows)
            {
                any |= r.input == k && r.accepted() && r.accumulates() && ExplainValues.keysEqual(ex.key(r), ex.key(n)) &&
                    ex.ownFilter(r) == null;
            }
            if (!any)
            {
                return (k == 0 ? "the first input '" : "the inner input '") + multi.names().get(k) +
                    "' has no row of this key that passes its filter";
            }
        }
        return "the rows of the inputs they need (" + (n.input == 0 || m.input == 0 ? "the inner inputs" : "the first input and the inner inputs") +
            ") fail a condition with them or left before both were there";
    }

    // ---------------------------------------------------------------- temporal and lookup

    private boolean sameKey(final LogRow a, final LogRow b)
    {
        return ExplainValues.nullField(ex.key(a)) < 0 && ExplainValues.keysEqual(ex.key(a), ex.key(b));
    }

    /** The step at which a temporal left row is emitted (the join watermark reaches its ts, or its own step). */
    private long emitStep(final LogRow l)
    {
        if (ex.ownFilter(l) != null || log.watermarkBefore(l.step) >= l.ts)
        {
            return l.step;
        }
        return log.stepReaching(l.step, l.ts);
    }

    private Verdict versioned(final LogRow l, final LogRow r)
    {
        final boolean lookup = spec.kind() == JoinKind.LOOKUP;
        final String failedLeft = ex.ownFilter(l);
        if (failedLeft != null)
        {
            return new Verdict("FILTER_FAILED", failedLeft + " in the left row of step " + l.step + ", so it matches no version");
        }
        if (r.kind == ChangeKind.UPDATE_BEFORE)
        {
            return new Verdict("NOT_SELECTED", "a -U changes no version (the +U after it carries the change)");
        }
        final long emit = lookup ? l.step : emitStep(l);
        LogRow selected = null;
        for (final LogRow c : log.joinRows)
        {
            if (c.input != 1 || !c.accepted() || c.kind == ChangeKind.UPDATE_BEFORE || c.step >= emit || !sameKey(c, l))
            {
                continue;
            }
            if (lookup ? selected == null || c.step > selected.step
                : c.ts <= l.ts && (selected == null || c.ts > selected.ts || c.ts == selected.ts && c.step > selected.step))
            {
                selected = c;
            }
        }
        final String chosen = selected == null ? "no version was in force"
            : selected.kind == ChangeKind.DELETE ? "the -D of step " + selected.step + " (ts " + time(selected.ts) + ") had ended the key's version"
            : "the version of step " + selected.step + " (ts " + time(selected.ts) + ") was chosen";
        if (lookup)
        {
            if (r.step > l.step)
            {
                return new Verdict("NOT_SELECTED", "the right row came at step " + r.step + ", after the left row (step " +
                    l.step + "): a lookup join reads the key's version current at the left row's own step, and " + chosen);
            }
            if (selected != r)
            {
                return new Verdict("NOT_SELECTED", "the change of step " + selected.step + " replaced the right row of step " +
                    r.step + " before the left row came at step " + l.step + ": " + chosen + " (the latest change received)");
            }
        }
        else
        {
            if (r.ts > l.ts)
            {
                return new Verdict("NOT_SELECTED", "the right row (step " + r.step + ") is a version from ts " + time(r.ts) +
                    " on, after the left row's ts " + time(l.ts) + "; " + chosen + " for ts " + time(l.ts));
            }
            if (r.step > emit)
            {
                return new Verdict("NOT_SELECTED", "the right row came at step " + r.step + ", after the left row was emitted at step " +
                    emit + " (the join watermark reached its ts " + time(l.ts) + "); " + chosen);
            }
            if (selected != r)
            {
                final long freed = freedStep(r);
                if (freed < l.step)
                {
                    return new Verdict("EXPIRED", "the version of step " + r.step + " (ts " + time(r.ts) + ") had left state at step " +
                        freed + ", superseded by a newer change of its key at or below the join watermark, before the left row came at step " +
                        l.step + "; " + chosen);
                }
                return new Verdict("NOT_SELECTED", chosen + ": it is the newest change at or before the left row's ts " +
                    time(l.ts) + ", and the right row of step " + r.step + " (ts " + time(r.ts) + ") is older");
            }
        }
        if (r.kind == ChangeKind.DELETE)
        {
            return new Verdict("NOT_SELECTED", "this -D (ts " + time(r.ts) + ") ended the key's version: the left row of step " +
                l.step + " found no version");
        }
        final String failedRight = ex.ownFilter(r);
        if (failedRight != null)
        {
            return new Verdict("FILTER_FAILED", "the version of step " + r.step + " was chosen, but " + failedRight + ", so the left row has no match");
        }
        final Verdict v = condition(l, r);
        if (v != null)
        {
            return v;
        }
        final long out = outputWith(l, r);
        final long at = out >= 0 ? out : emit;
        return new Verdict("MATCHED", "the version in force " + (lookup ? "at the left row's step" : "at ts " + time(l.ts)) +
            ": paired at step " + at, at);
    }

    /** The step at which a temporal version left state: a newer change of its key reached by the join watermark. */
    private long freedStep(final LogRow r)
    {
        long freed = Long.MAX_VALUE;
        for (final LogRow c : log.joinRows)
        {
            if (c.input != 1 || !c.accepted() || c.kind == ChangeKind.UPDATE_BEFORE || !sameKey(c, r) ||
                !(c.ts > r.ts || c.ts == r.ts && c.step > r.step))
            {
                continue;
            }
            final long after = Math.max(c.step, r.step);
            final long reached = log.watermarkAfter(after) >= c.ts ? after : log.stepReaching(after, c.ts);
            freed = Math.min(freed, reached);
        }
        return freed;
    }

    // ---------------------------------------------------------------- asof

    private Verdict asof(final LogRow l, final LogRow r)
    {
        final AsofSpec asof = spec.asof();
        final String failedLeft = ex.ownFilter(l);
        if (failedLeft != null)
        {
            return new Verdict("FILTER_FAILED", failedLeft + " in the left row of step " + l.step + ", so it has no candidate");
        }
        final String failedRight = ex.ownFilter(r);
        if (failedRight != null)
        {
            return new Verdict("FILTER_FAILED", failedRight + " in the right row of step " + r.step + ", so it is no candidate");
        }
        Verdict v = condition(l, r);
        if (v != null)
        {
            return v;
        }
        v = asofRange(l, r, asof);
        if (v != null)
        {
            return v;
        }
        final long[] finalStep = new long[1];
        final LogRow best = best(l, finalStep);
        if (r.step > finalStep[0])
        {
            return new Verdict("NOT_SELECTED", "the right row came at step " + r.step + ", after the left row was final at step " +
                finalStep[0] + (best == null ? "" : "; the right row of step " + best.step + " (ts " + time(best.ts) + ") was its match"));
        }
        if (best == r)
        {
            final long out = lastOutputWith(l, r);
            final long at = out >= 0 ? out : finalStep[0];
            return new Verdict("MATCHED", "the best " + asof.direction().jsonName() + " candidate of the left row: paired at step " + at, at);
        }
        return new Verdict("NOT_SELECTED", "the right row of step " + best.step + " (ts " + time(best.ts) + ") wins: " +
            whyBetter(best, r, l, asof));
    }

    private Verdict asofRange(final LogRow l, final LogRow r, final AsofSpec asof)
    {
        final long d = ExplainValues.saturatedAdd(r.ts, -l.ts);
        final String where = "the right row (step " + r.step + ", ts " + time(r.ts) + ") is " + time(Math.abs(d)) + " ms " +
            (d >= 0 ? "after" : "before") + " the left row (step " + l.step + ", ts " + time(l.ts) + ")";
        final long t = asof.hasTolerance() ? asof.tolerance() : Long.MAX_VALUE;
        switch (asof.direction())
        {
            case BACKWARD:
                if (d > 0)
                {
                    return new Verdict("OUTSIDE_INTERVAL", where + "; a backward match is at or before the left row's ts, so it is outside by " + time(d) + " ms");
                }
                break;
            case FORWARD:
                if (d < 0)
                {
                    return new Verdict("OUTSIDE_INTERVAL", where + "; a forward match is at or after the left row's ts, so it is outside by " + time(-d) + " ms");
                }
                break;
            default:
                break;
        }
        if (Math.abs(d) > t)
        {
            return new Verdict("OUTSIDE_INTERVAL", where + "; the tolerance is " + time(t) + " ms, so it is outside by " +
                time(Math.abs(d) - t) + " ms");
        }
        return null;
    }

    private boolean candidate(final LogRow l, final LogRow r)
    {
        return r.input == 1 && r.accepted() && r.accumulates() && sameKey(r, l) && ex.ownFilter(r) == null &&
            ExplainValues.failedCondition(ex.condition(), l.row, r.row) == null && asofRange(l, r, spec.asof()) == null;
    }

    private static boolean better(final LogRow c, final LogRow b, final LogRow l, final AsofSpec.Direction direction)
    {
        if (b == null)
        {
            return true;
        }
        switch (direction)
        {
            case BACKWARD:
                return c.ts > b.ts || c.ts == b.ts && c.step > b.step;
            case FORWARD:
                return c.ts < b.ts || c.ts == b.ts && c.step > b.step;
            default:
                final long dc = Math.abs(ExplainValues.saturatedAdd(c.ts, -l.ts));
                final long db = Math.abs(ExplainValues.saturatedAdd(b.ts, -l.ts));
                return dc < db || dc == db && (c.ts < b.ts || c.ts == b.ts && c.step > b.step);
        }
    }

    /** The left row's match when it became final, and (out) the step at which it did. */
    private LogRow best(final LogRow l, final long[] finalStep)
    {
        final AsofSpec asof = spec.asof();
        LogRow best = null;
        finalStep[0] = log.steps();
        if (ex.ownFilter(l) != null)
        {
            finalStep[0] = l.step;
            return null;
        }
        for (final LogRow r : log.joinRows)
        {
            if (r.step < l.step && candidate(l, r) && better(r, best, l, asof.direction()))
            {
                best = r;
            }
        }
        for (long s = l.step; s < log.steps(); s++)
        {
            for (final LogRow r : log.joinRowsAt(s))
            {
                if (s > l.step && candidate(l, r) && better(r, best, l, asof.direction()))
                {
                    best = r;
                }
            }
            final long w = log.watermarkAfter(s);
            if ((s == l.step || log.rows.get(s) == null) && w != Long.MIN_VALUE &&
                ExplainValues.saturatedAdd(w, -spec.allowedLateness()) > finalTs(l, best, asof))
            {
                finalStep[0] = s;
                return best;
            }
        }
        return best;
    }

    private static long finalTs(final LogRow l, final LogRow best, final AsofSpec asof)
    {
        final long t = asof.hasTolerance() ? asof.tolerance() : -1;
        switch (asof.direction())
        {
            case BACKWARD:
                return l.ts;
            case FORWARD:
                return best != null ? best.ts : t >= 0 ? ExplainValues.saturatedAdd(l.ts, t) : Long.MAX_VALUE;
            default:
                return best != null ? ExplainValues.saturatedAdd(l.ts, Math.abs(ExplainValues.saturatedAdd(l.ts, -best.ts)))
                    : t >= 0 ? ExplainValues.saturatedAdd(l.ts, t) : Long.MAX_VALUE;
        }
    }

    private static String whyBetter(final LogRow best, final LogRow r, final LogRow l, final AsofSpec asof)
    {
        if (best.ts == r.ts)
        {
            return "both are at ts " + time(r.ts) + ", and among equal ts the row that arrived last wins (step " + best.step +
                " after step " + r.step + ")";
        }
        switch (asof.direction())
        {
            case BACKWARD:
                return "a backward match is the latest ts at or before the left row's ts " + time(l.ts) + ", and " +
                    time(best.ts) + " is later than this row's " + time(r.ts);
            case FORWARD:
                return "a forward match is the earliest ts at or after the left row's ts " + time(l.ts) + ", and " +
                    time(best.ts) + " is earlier than this row's " + time(r.ts);
            default:
                final long db = Math.abs(ExplainValues.saturatedAdd(best.ts, -l.ts));
                final long dr = Math.abs(ExplainValues.saturatedAdd(r.ts, -l.ts));
                return db < dr ? "it is " + time(db) + " ms from the left row's ts " + time(l.ts) + ", this row " + time(dr) + " ms"
                    : "both are " + time(db) + " ms from the left row's ts, and a tie goes to the earlier ts";
        }
    }
}
