package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.WindowSpec;
import io.junction.tools.explain.Explainer.Verdict;
import io.junction.tools.explain.ExplainLog.LineKind;
import io.junction.tools.explain.ExplainLog.LogRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.junction.tools.explain.ExplainValues.time;

/**
 * Windows of a window join or coGroup (docs/SEMANTICS.md 6.1-6.3) for explaining a pair that passed keys,
 * filters and condition: which windows each row is in, whether they share one that fired after both came,
 * and for session windows the sessions the log builds per key (rows of both sides, filtered rows too,
 * merging while unfired), with the step each fired at. Not thread safe.
 */
final class WindowModel
{
    /** One session of a key: its bounds, the step it fired at, and the session it merged into. */
    private static final class Session
    {
        long start;
        long end;
        long fired = -1;
        Session into;

        Session(final long start, final long end)
        {
            this.start = start;
            this.end = end;
        }

        Session root()
        {
            Session s = this;
            while (s.into != null)
            {
                s = s.into;
            }
            return s;
        }
    }

    private final WindowSpec window;
    private final ExplainLog log;
    private final Explainer ex;
    /** Session windows: each accepted non-null-key joining row's session (follow {@link Session#root()}). */
    private final Map<LogRow, Session> sessions = new HashMap<>();

    WindowModel(final WindowSpec window, final ExplainLog log, final Explainer ex)
    {
        this.window = window;
        this.log = log;
        this.ex = ex;
        if (window.kind() == WindowSpec.Kind.SESSION)
        {
            sessions();
        }
    }

    private void sessions()
    {
        final Map<String, List<Session>> open = new HashMap<>();
        for (long s = 0; s < log.steps(); s++)
        {
            if (log.kinds.get((int) s) == LineKind.WATERMARK)
            {
                fire(open, log.watermarkAfter(s), s);
                continue;
            }
            for (final LogRow r : log.joinRowsAt(s))
            {
                if (r.accepted() && ExplainValues.nullField(ex.key(r)) < 0)
                {
                    join(open, r);
                }
            }
        }
        fire(open, Long.MAX_VALUE, log.steps());
    }

    /** A row starts a session of its key, merging every unfired one it overlaps. */
    private void join(final Map<String, List<Session>> open, final LogRow r)
    {
        final String key = keyText(r);
        final List<Session> list = open.computeIfAbsent(key, k -> new ArrayList<>());
        final Session own = new Session(r.ts, ExplainValues.saturatedAdd(r.ts, window.gap()));
        for (int i = list.size() - 1; i >= 0; i--)
        {
            final Session o = list.get(i);
            if (o.start <= own.end && own.start <= o.end)
            {
                own.start = Math.min(own.start, o.start);
                own.end = Math.max(own.end, o.end);
                o.into = own;
                list.remove(i);
            }
        }
        list.add(own);
        sessions.put(r, own);
    }

    private static void fire(final Map<String, List<Session>> open, final long watermark, final long step)
    {
        for (final List<Session> list : open.values())
        {
            for (int i = list.size() - 1; i >= 0; i--)
            {
                final Session o = list.get(i);
                if (watermark == Long.MAX_VALUE || o.end - 1 <= watermark)
                {
                    o.fired = step;
                    list.remove(i);
                }
            }
        }
    }

    private String keyText(final LogRow r)
    {
        final StringBuilder sb = new StringBuilder();
        for (final JsonNode v : ex.key(r))
        {
            sb.append(ExplainValues.canonical(v)).append(ExplainValues.typeName(v)).append('\u0000');
        }
        return sb.toString();
    }

    /** The window starts of a tumbling or sliding row, in order. */
    private List<Long> starts(final long ts)
    {
        final List<Long> starts = new ArrayList<>();
        if (window.kind() == WindowSpec.Kind.TUMBLING)
        {
            starts.add(ts - Math.floorMod(ts - window.offset(), window.size()));
            return starts;
        }
        long start = ts - Math.floorMod(ts - window.offset(), window.slide());
        while (start > ts - window.size() && starts.size() <= WindowSpec.MAX_WINDOWS_PER_ROW)
        {
            starts.add(0, start);
            start -= window.slide();
        }
        return starts;
    }

    private long fireStep(final long end)
    {
        return log.stepReaching(-1, end - 1);
    }

    private static String show(final long start, final long end)
    {
        return "[" + time(start) + ", " + time(end) + ")";
    }

    private String show(final List<Long> starts)
    {
        if (starts.isEmpty())
        {
            return "no window";
        }
        final StringBuilder sb = new StringBuilder(starts.size() == 1 ? "window " : "windows ");
        for (int i = 0; i < starts.size() && i < 4; i++)
        {
            sb.append(i == 0 ? "" : ", ").append(show(starts.get(i), starts.get(i) + window.size()));
        }
        return sb.append(starts.size() > 4 ? ", ..." : "").toString();
    }

    Verdict decide(final LogRow l, final LogRow r)
    {
        final String joined = ex.coGroupName() == null ? "paired" : "grouped together for coGroup '" + ex.coGroupName() + "'";
        if (window.kind() == WindowSpec.Kind.SESSION)
        {
            final Session a = sessions.get(l).root();
            final Session b = sessions.get(r).root();
            if (a == b)
            {
                return new Verdict("MATCHED", "both rows are in the session " + show(a.start, a.end) + " of their key, " +
                    joined + " when it fired at step " + a.fired, a.fired);
            }
            final LogRow early = l.step < r.step ? l : r;
            final LogRow late = early == l ? r : l;
            final Session fired = early == l ? a : b;
            final long lateEnd = ExplainValues.saturatedAdd(late.ts, window.gap());
            final Session lateSession = early == l ? b : a;
            if (fired.fired < late.step && late.ts <= fired.end && fired.start <= lateEnd)
            {
                return new Verdict("EXPIRED", "the session " + show(fired.start, fired.end) + " of the " + ex.inputName(early.input) +
                    " row (step " + early.step + ") had fired at step " + fired.fired + ", before the " + ex.inputName(late.input) +
                    " row came at step " + late.step + "; a fired session is final, so that row started the session " +
                    show(lateSession.start, lateSession.end));
            }
            return new Verdict("DIFFERENT_WINDOW", "the left row (ts " + time(l.ts) + ") is in the session " + show(a.start, a.end) +
                ", the right row (ts " + time(r.ts) + ") in the session " + show(b.start, b.end) + ": rows of a key share a session " +
                "only when at most gap " + time(window.gap()) + " ms apart, directly or through other rows");
        }
        final List<Long> ls = starts(l.ts);
        final List<Long> rs = starts(r.ts);
        final List<Long> common = new ArrayList<>(ls);
        common.retainAll(rs);
        if (common.isEmpty())
        {
            return new Verdict("DIFFERENT_WINDOW", "the left row (ts " + time(l.ts) + ") is in " + show(ls) + ", the right row (ts " +
                time(r.ts) + ") in " + show(rs) + ": they share no window");
        }
        final long later = Math.max(l.step, r.step);
        for (final long start : common)
        {
            final long f = fireStep(ExplainValues.saturatedAdd(start, window.size()));
            if (f > later)
            {
                return new Verdict("MATCHED", "both rows are in the window " + show(start, start + window.size()) + ", " + joined +
                    " when it fired at step " + f, f);
            }
        }
        final long start = common.get(common.size() - 1);
        final long end = ExplainValues.saturatedAdd(start, window.size());
        return new Verdict("EXPIRED", "the window " + show(start, end) + " they share had fired at step " + fireStep(end) +
            " (the join watermark reached " + time(end - 1) + "), before the " + ex.inputName(l.step > r.step ? 0 : 1) +
            " row came at step " + later);
    }
}
