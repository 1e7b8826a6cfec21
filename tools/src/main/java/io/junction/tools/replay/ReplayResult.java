package io.junction.tools.replay;

import io.junction.metrics.HotKey;
import io.junction.metrics.PartitionSnapshot;

import io.junction.internal.metrics.PartitionMetrics;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a replay produced: the result lines and dead-letter lines of every partition merged in step
 * order, the errors the partitions reported, and the engine's final metrics. Immutable.
 */
public final class ReplayResult
{
    private final long steps;
    private final List<StepLine> results;
    private final List<StepLine> deadLetters;
    private final long errorCount;
    private final List<String> errors;
    private final List<PartitionSnapshot> metrics;
    private final List<List<HotKey>> hotKeys;
    private final List<String> specFieldsNotCarried;

    ReplayResult(
        final long steps, final List<StepLine> results, final List<StepLine> deadLetters, final long errorCount,
        final List<String> errors, final List<PartitionSnapshot> metrics, final List<List<HotKey>> hotKeys)
    {
        this(steps, results, deadLetters, errorCount, errors, metrics, hotKeys, List.of());
    }

    private ReplayResult(
        final long steps, final List<StepLine> results, final List<StepLine> deadLetters, final long errorCount,
        final List<String> errors, final List<PartitionSnapshot> metrics, final List<List<HotKey>> hotKeys,
        final List<String> specFieldsNotCarried)
    {
        this.specFieldsNotCarried = List.copyOf(specFieldsNotCarried);
        this.hotKeys = List.copyOf(hotKeys);
        this.steps = steps;
        this.results = Collections.unmodifiableList(results);
        this.deadLetters = Collections.unmodifiableList(deadLetters);
        this.errorCount = errorCount;
        this.errors = Collections.unmodifiableList(errors);
        this.metrics = Collections.unmodifiableList(metrics);
    }

    /** Rows the join dropped by state TTL or eviction (SEMANTICS 4.5-4.7 visible expiry), ordered by step. */
    private List<StepLine> expired = List.of();

    /** Rows expanded before the join (docs/SEMANTICS.md 12): input rows, rows made, input rows that made none. */
    private long[] expansions = new long[3];

    ReplayResult withExpansions(final long[] counts)
    {
        this.expansions = counts.clone();
        return this;
    }

    /** @return the input rows the publisher expanded, the rows they made, and those that made none */
    public long[] expansions()
    {
        return expansions.clone();
    }

    /** Sets the expired rows; the replay's, once, before it hands the result out. */
    ReplayResult withExpired(final List<StepLine> lines)
    {
        this.expired = Collections.unmodifiableList(lines);
        return this;
    }

    /** @return the expired rows' lines ({@code {"step":..,"side":..,"reason":..,"ts":..,"row":..}}), ordered by step */
    public List<String> expiredLines()
    {
        return texts(expired);
    }

    /** @return this result, noting the spec fields that no accepted row of the log carried */
    ReplayResult withSpecFieldsNotCarried(final List<String> fields)
    {
        return new ReplayResult(steps, results, deadLetters, errorCount, errors, metrics, hotKeys, fields).withExpired(expired).withExpansions(expansions);
    }

    /**
     * @return the spec's fields (keys, filter and condition fields) that no accepted row of the log
     *     carried, in spec order: a misspelt name (the output is then empty or padded); empty when every
     *     one was carried, when the log has no row, or when the rows' fields were declared
     */
    public List<String> specFieldsNotCarried()
    {
        return specFieldsNotCarried;
    }

    /**
     * @return the number of dead letters of each code ({@link DeadLetterCodes}), codes in
     *     alphabetical order
     */
    public Map<String, Long> deadLettersByCode()
    {
        final Map<String, Long> counts = new TreeMap<>();
        final Pattern code = Pattern.compile("\"code\":\"([a-z_]+)\"");
        for (final StepLine line : deadLetters)
        {
            final Matcher m = code.matcher(line.json());
            counts.merge(m.find() ? m.group(1) : DeadLetterCodes.BAD_INPUT, 1L, Long::sum);
        }
        return counts;
    }

    /**
     * @return the one-line summary {@code junction replay} prints to stderr at the end of every run:
     *     {@code "12 events, 5 outputs, 2 dead letters (late 1, malformed_row 1)"}
     */
    public String summary()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(steps).append(steps == 1 ? " event, " : " events, ")
            .append(results.size()).append(results.size() == 1 ? " output, " : " outputs, ")
            .append(deadLetters.size()).append(deadLetters.size() == 1 ? " dead letter" : " dead letters");
        final Map<String, Long> byCode = deadLettersByCode();
        if (!byCode.isEmpty())
        {
            sb.append(" (");
            String sep = "";
            for (final Map.Entry<String, Long> e : byCode.entrySet())
            {
                sb.append(sep).append(e.getKey()).append(' ').append(e.getValue());
                sep = ", ";
            }
            sb.append(')');
        }
        if (expansions[0] > 0)
        {
            sb.append(", ").append(expansions[0]).append(expansions[0] == 1 ? " row expanded to " : " rows expanded to ")
                .append(expansions[1]).append(" (").append(expansions[2]).append(" to nothing)");
        }
        if (errorCount > 0)
        {
            sb.append(", ").append(errorCount).append(errorCount == 1 ? " partition error" : " partition errors");
        }
        return sb.toString();
    }

    /** @return the number of non-blank input lines, which is also the step of the end-of-log flush */
    public long steps()
    {
        return steps;
    }

    /** @return result lines, ordered by step (order within a step is free, SEMANTICS 1 "Output") */
    public List<StepLine> results()
    {
        return results;
    }

    /** @return dead-letter lines (bad lines, refused rows, engine dead letters), ordered by step */
    public List<StepLine> deadLetters()
    {
        return deadLetters;
    }

    /** @return the result lines' JSON text */
    public List<String> resultLines()
    {
        return texts(results);
    }

    /** @return the dead-letter lines' JSON text */
    public List<String> deadLetterLines()
    {
        return texts(deadLetters);
    }

    /**
     * @return how many exceptions partition threads reported (operator or handler failures); non-zero
     *     means the output may be incomplete
     */
    public long errorCount()
    {
        return errorCount;
    }

    /** @return the first few of those exceptions, as text */
    public List<String> errors()
    {
        return errors;
    }

    /** @return each partition's hot-key report after the run, in partition order */
    public List<List<HotKey>> hotKeys()
    {
        return hotKeys;
    }

    /** @return each partition's metrics after the run */
    public List<PartitionSnapshot> metrics()
    {
        return metrics;
    }

    /**
     * Writes the result lines, one a line.
     *
     * @param out destination (not closed)
     * @throws IOException when writing fails
     */
    public void writeResults(final Writer out) throws IOException
    {
        write(results, out);
    }

    /**
     * Writes the dead-letter lines, one a line.
     *
     * @param out destination (not closed)
     * @throws IOException when writing fails
     */
    public void writeDeadLetters(final Writer out) throws IOException
    {
        write(deadLetters, out);
    }

    private static void write(final List<StepLine> lines, final Writer out) throws IOException
    {
        for (final StepLine line : lines)
        {
            out.write(line.json());
            out.write('\n');
        }
        out.flush();
    }

    private static List<String> texts(final List<StepLine> lines)
    {
        final List<String> texts = new ArrayList<>(lines.size());
        for (final StepLine line : lines)
        {
            texts.add(line.json());
        }
        return texts;
    }
}
