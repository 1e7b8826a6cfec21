package io.junction.tools.replay;

import io.junction.metrics.HotKey;
import io.junction.metrics.PartitionSnapshot;

import io.junction.internal.metrics.PartitionMetrics;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a replay produced: the result lines and dead-letter lines of every partition merged in step
 * order, the errors the partitions reported, and the engine's final metrics. Immutable.
 */
public final class ReplayResult {
    private final long steps;
    private final List<StepLine> results;
    private final List<StepLine> deadLetters;
    private final long errorCount;
    private final List<String> errors;
    private final List<PartitionSnapshot> metrics;
    private final List<List<HotKey>> hotKeys;

    ReplayResult(
        final long steps, final List<StepLine> results, final List<StepLine> deadLetters, final long errorCount,
        final List<String> errors, final List<PartitionSnapshot> metrics, final List<List<HotKey>> hotKeys) {
        this.hotKeys = List.copyOf(hotKeys);
        this.steps = steps;
        this.results = Collections.unmodifiableList(results);
        this.deadLetters = Collections.unmodifiableList(deadLetters);
        this.errorCount = errorCount;
        this.errors = Collections.unmodifiableList(errors);
        this.metrics = Collections.unmodifiableList(metrics);
    }

    /** Rows the join dropped by state TTL or eviction (SPEC 2.7 visible expiry), ordered by step. */
    private List<StepLine> expired = List.of();

    /** Sets the expired rows; the replay's, once, before it hands the result out. */
    ReplayResult withExpired(final List<StepLine> lines) {
        this.expired = Collections.unmodifiableList(lines);
        return this;
    }

    /** @return the expired rows' lines ({@code {"step":..,"side":..,"reason":..,"ts":..,"row":..}}), ordered by step */
    public List<String> expiredLines() {
        return texts(expired);
    }

    /** @return the number of non-blank input lines, which is also the step of the end-of-log flush */
    public long steps() {
        return steps;
    }

    /** @return result lines, ordered by step (order within a step is free, SPEC 1 "Output") */
    public List<StepLine> results() {
        return results;
    }

    /** @return dead-letter lines (bad lines, refused rows, engine dead letters), ordered by step */
    public List<StepLine> deadLetters() {
        return deadLetters;
    }

    /** @return the result lines' JSON text */
    public List<String> resultLines() {
        return texts(results);
    }

    /** @return the dead-letter lines' JSON text */
    public List<String> deadLetterLines() {
        return texts(deadLetters);
    }

    /**
     * @return how many exceptions partition threads reported (operator or handler failures); non-zero
     *     means the output may be incomplete
     */
    public long errorCount() {
        return errorCount;
    }

    /** @return the first few of those exceptions, as text */
    public List<String> errors() {
        return errors;
    }

    /** @return each partition's hot-key report after the run, in partition order */
    public List<List<HotKey>> hotKeys() {
        return hotKeys;
    }

    /** @return each partition's metrics after the run */
    public List<PartitionSnapshot> metrics() {
        return metrics;
    }

    /**
     * Writes the result lines, one a line.
     *
     * @param out destination (not closed)
     * @throws IOException when writing fails
     */
    public void writeResults(final Writer out) throws IOException {
        write(results, out);
    }

    /**
     * Writes the dead-letter lines, one a line.
     *
     * @param out destination (not closed)
     * @throws IOException when writing fails
     */
    public void writeDeadLetters(final Writer out) throws IOException {
        write(deadLetters, out);
    }

    private static void write(final List<StepLine> lines, final Writer out) throws IOException {
        for (final StepLine line : lines) {
            out.write(line.json());
            out.write('\n');
        }
        out.flush();
    }

    private static List<String> texts(final List<StepLine> lines) {
        final List<String> texts = new ArrayList<>(lines.size());
        for (final StepLine line : lines) {
            texts.add(line.json());
        }
        return texts;
    }
}
