package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.Expansion;
import io.junction.api.JoinSpec;
import io.junction.json.RowJson;
import io.junction.tools.explain.Explainer.Verdict;
import io.junction.tools.explain.ExplainLog.LogRow;
import io.junction.tools.explain.ExplainLog.OutLine;
import java.util.ArrayList;
import java.util.List;

/**
 * Explains a row of the standalone {@code "join": "expand"} (docs/SEMANTICS.md section 12): its one input row pairs
 * with each row its expansion makes, kept where the ON clause ({@code leftFilter} on the input row, then
 * {@code condition} over the input row and the made row's new fields) holds. The kept rows are read from the
 * replay's output lines at the row's step (the kind keeps no state, so nothing else decides); the dropped ones
 * are named by the term that dropped them. Not thread safe.
 */
final class ExpandExplain
{
    private final JoinSpec spec;
    private final ExplainLog log;
    private final Explainer ex;

    ExpandExplain(final JoinSpec spec, final ExplainLog log, final Explainer ex)
    {
        this.spec = spec;
        this.log = log;
        this.ex = ex;
    }

    /** @return a pair line per made row, then the fate line */
    List<String> explain(final LogRow n)
    {
        final Expansion e = spec.expand();
        final List<String> lines = new ArrayList<>();
        final List<Long> outputs = new ArrayList<>();
        long padded = -1;
        for (final OutLine out : log.outputs)
        {
            // a stateless kind: every line of the row is at its own step, with its op (a -D's too)
            if (out.step == n.step && n.canonical.equals(out.rows[0]))
            {
                if (!outputs.contains(out.step))
                {
                    outputs.add(out.step);
                }
                if (out.rows[1] == null && padded < 0)
                {
                    padded = out.step;
                }
            }
        }
        final ExplainExpansion.Made made = n.accepted() ? ExplainExpansion.expand(e, n.row, false, true) : null;
        final String filter = ex.ownFilter(n);
        int kept = 0;
        for (int i = 0; made != null && i < made.rows().size(); i++)
        {
            final Verdict v = decide(n, made.rows().get(i), made.positions().get(i), filter);
            kept += "MATCHED".equals(v.code()) ? 1 : 0;
            final StringBuilder sb = new StringBuilder("{\"step\":").append(n.step).append(",\"with\":").append(n.step)
                .append(",\"made\":").append(made.positions().get(i)).append(",\"code\":\"").append(v.code()).append("\",\"detail\":");
            RowJson.appendString(sb, v.detail());
            if (v.outputStep() >= 0)
            {
                sb.append(",\"outputStep\":").append(v.outputStep());
            }
            lines.add(sb.append('}').toString());
        }
        final Verdict fate;
        final String pad = padded < 0 ? "" : "; a left expand join emits it once with right null (step " + padded + ")";
        if (made == null)
        {
            fate = ex.ownFate(n, true);
        }
        else if (kept > 0)
        {
            fate = new Verdict("MATCHED", "the ON clause kept " + kept + " of the " + made.rows().size() + " rows " +
                ExplainExpansion.name(e) + " made: the output lines of step " + n.step + " carry them");
        }
        else if (made.rows().isEmpty())
        {
            fate = new Verdict("NO_MATCH", ExplainExpansion.name(e) + " made no rows: " + made.none() + pad);
        }
        else
        {
            fate = new Verdict("NO_MATCH", ExplainExpansion.name(e) + " made " + made.rows().size() +
                (made.rows().size() == 1 ? " row" : " rows") + ", and the ON clause kept none (the pair lines say why)" + pad);
        }
        final StringBuilder sb = new StringBuilder("{\"step\":").append(n.step).append(",\"fate\":\"").append(fate.code())
            .append("\",\"input\":\"left\",\"detail\":");
        RowJson.appendString(sb, fate.detail());
        if (!n.accepted())
        {
            sb.append(",\"deadLetter\":\"").append(n.deadLetterCode).append('"');
        }
        sb.append(",\"made\":").append(made == null ? 0 : made.rows().size())
            .append(",\"padded\":").append(padded < 0 ? "null" : Long.toString(padded)).append(",\"outputs\":[");
        for (int i = 0; i < outputs.size(); i++)
        {
            sb.append(i == 0 ? "" : ",").append(outputs.get(i));
        }
        lines.add(sb.append("]}").toString());
        return lines;
    }

    /** One made row: kept (an output line of the row's step carries it), or the ON clause's term that dropped it. */
    private Verdict decide(final LogRow n, final JsonNode right, final int position, final String filter)
    {
        final String canonical = ExplainValues.canonical(right);
        for (final OutLine out : log.outputs)
        {
            if (out.step == n.step && n.canonical.equals(out.rows[0]) && canonical.equals(out.rows[1]))
            {
                return new Verdict("MATCHED", "made row " + position + " " + canonical + " meets the ON clause: the output " +
                    "line of step " + out.step + " carries it", out.step);
            }
        }
        if (filter != null)
        {
            return new Verdict("FILTER_FAILED", filter + " in the left row of step " + n.step + ", so none of the rows it " +
                "makes is kept");
        }
        final String failed = ExplainValues.failedCondition(spec.condition(), n.row, right);
        if (failed != null)
        {
            return new Verdict("CONDITION_FAILED", failed + " (made row " + position + " " + canonical + ")");
        }
        // the model finds the ON clause holding, yet no line carries the row: say so rather than guess
        return new Verdict("NO_MATCH", "made row " + position + " " + canonical +
            " meets the ON clause as this explanation reads it, but no output line of step " + n.step + " carries it");
    }
}
