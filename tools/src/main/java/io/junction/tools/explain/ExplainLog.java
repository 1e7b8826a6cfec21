package io.junction.tools.explain;

import com.fasterxml.jackson.databind.JsonNode;
import io.junction.api.ChangeKind;
import io.junction.api.Expansion;
import io.junction.json.BadInputException;
import io.junction.json.JsonNumbers;
import io.junction.json.RowJson;
import io.junction.tools.replay.ReplayEvent;
import io.junction.tools.replay.ReplayResult;
import io.junction.tools.replay.StepLine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An event log read for explaining: every step's line (a row, a watermark or a bad line), the join
 * watermark after every step, and, once the replay has run, each step's dead letter and the output lines.
 * Steps and line numbers are counted as the replay counts them (docs/SEMANTICS.md 1.3: non-blank lines,
 * {@code \n}, {@code \r\n} or {@code \r} ending a line, a byte order mark skipped). Not thread safe.
 */
final class ExplainLog
{
    /** One row event of the log, with what the replay did with it. */
    static final class LogRow
    {
        final long step;
        final long line;
        /** 0 = left (or the first input), 1 = right, i for a multi-way join's input i. */
        final int input;
        final ChangeKind kind;
        final long ts;
        final JsonNode row;
        final String canonical;
        /** The dead letter's code at this step, or null when the row was accepted. */
        String deadLetterCode;
        String deadLetterReason;
        /** A made row's 1-based position in its input row's expansion, 0 for an outer expansion's padded row, -1 for a log row. */
        final int made;
        /** The log row a made row came from; the row itself for a log row. */
        final LogRow source;
        /** A log row of an expanded input: the rows it made, in element order (null when its input is not expanded). */
        List<LogRow> madeRows;
        /** Why a log row of an expanded input made no rows, an outer expansion's padded row aside (empty, null, absent), or null. */
        String noRows;

        LogRow(final long step, final long line, final int input, final ChangeKind kind, final long ts, final JsonNode row)
        {
            this.step = step;
            this.line = line;
            this.input = input;
            this.kind = kind;
            this.ts = ts;
            this.row = row;
            this.canonical = ExplainValues.canonical(row);
            this.made = -1;
            this.source = this;
        }

        /** A made row of {@code source}, at its step, ts and op. */
        LogRow(final LogRow source, final int made, final JsonNode row)
        {
            this.step = source.step;
            this.line = source.line;
            this.input = source.input;
            this.kind = source.kind;
            this.ts = source.ts;
            this.row = row;
            this.canonical = ExplainValues.canonical(row);
            this.made = made;
            this.source = source;
        }

        /** @return the rows that take part in the join for this log row: its made rows, or itself (also when it is a dead letter) */
        List<LogRow> joining()
        {
            return madeRows == null || !accepted() ? List.of(this) : madeRows;
        }

        boolean accumulates()
        {
            return kind.isAccumulate();
        }

        boolean accepted()
        {
            return deadLetterCode == null;
        }
    }

    /** One output line: its step, sign, and each input's row in canonical form (null for a padded one). */
    static final class OutLine
    {
        final long step;
        final boolean plus;
        final String[] rows;
        /** A window coGroup's computed row is present. */
        final boolean computed;

        OutLine(final long step, final boolean plus, final String[] rows, final boolean computed)
        {
            this.step = step;
            this.plus = plus;
            this.rows = rows;
            this.computed = computed;
        }
    }

    /** What a line of the log is. */
    enum LineKind
    {
        ROW, WATERMARK, BAD
    }

    final List<String> inputNames;
    final List<LineKind> kinds = new ArrayList<>();
    final List<Long> lineNumbers = new ArrayList<>();
    final Map<Long, LogRow> rows = new HashMap<>();
    final List<LogRow> rowList = new ArrayList<>();
    /**
     * The rows that take part in the join, by step: each log row, or in its place the rows its expansion made
     * (docs/SEMANTICS.md section 12); filled by {@link #attach}.
     */
    final List<LogRow> joinRows = new ArrayList<>();
    private final Map<Long, List<LogRow>> joinRowsAt = new HashMap<>();
    final Map<Long, String> badReasons = new HashMap<>();
    /** The join watermark after each step; index {@link #steps()} is the end of the log (+infinity). */
    private long[] watermarkAfter;
    final List<OutLine> outputs = new ArrayList<>();

    private ExplainLog(final List<String> inputNames)
    {
        this.inputNames = inputNames;
    }

    /** @return the number of steps (non-blank lines), also the end-of-log step */
    long steps()
    {
        return kinds.size();
    }

    /** @return the join watermark after a step (minus infinity before every input has one) */
    long watermarkAfter(final long step)
    {
        return step < 0 ? Long.MIN_VALUE : watermarkAfter[(int) Math.min(step, steps())];
    }

    /** @return the join watermark a row at this step meets on arrival */
    long watermarkBefore(final long step)
    {
        return watermarkAfter(step - 1);
    }

    /** @return the first step after {@code from} whose join watermark reaches {@code t}, or the end-of-log step */
    long stepReaching(final long from, final long t)
    {
        // the join watermark never goes back, so the steps that reach t are a suffix: search for its start
        int lo = (int) Math.max(from + 1, 0);
        int hi = (int) steps();
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (watermarkAfter[mid] >= t)
            {
                hi = mid;
            }
            else
            {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /**
     * Reads a log.
     *
     * @param file       the event log
     * @param tsRequired whether a row needs {@code ts}
     * @param inputNames a multi-way join's input names, or null for the binary kinds
     */
    static ExplainLog read(final Path file, final boolean tsRequired, final List<String> inputNames) throws IOException
    {
        final ExplainLog log = new ExplainLog(inputNames);
        final int inputs = inputNames == null ? 2 : inputNames.size();
        final long[] inputWatermarks = new long[inputs];
        Arrays.fill(inputWatermarks, Long.MIN_VALUE);
        final List<Long> watermarks = new ArrayList<>();
        final byte[] bytes = Files.readAllBytes(file);
        int start = bytes.length >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB && (bytes[2] & 0xFF) == 0xBF ? 3 : 0;
        long lineNumber = 0;
        while (start < bytes.length)
        {
            int end = start;
            while (end < bytes.length && bytes[end] != '\n' && bytes[end] != '\r')
            {
                end++;
            }
            lineNumber++;
            final String text = new String(bytes, start, end - start, StandardCharsets.UTF_8);
            start = end + (end + 1 < bytes.length && bytes[end] == '\r' && bytes[end + 1] == '\n' ? 2 : 1);
            if (text.isBlank())
            {
                continue;
            }
            final long step = log.kinds.size();
            log.lineNumbers.add(lineNumber);
            try
            {
                final ReplayEvent event = ReplayEvent.parse(text, tsRequired, inputNames);
                if (event.isWatermark())
                {
                    log.kinds.add(LineKind.WATERMARK);
                    final int input = inputNames != null ? event.input() : event.side() == null ? -1 : event.side().ordinal();
                    for (int i = 0; i < inputs; i++)
                    {
                        if (input < 0 || input == i)
                        {
                            inputWatermarks[i] = Math.max(inputWatermarks[i], event.ts());
                        }
                    }
                }
                else
                {
                    log.kinds.add(LineKind.ROW);
                    final int input = inputNames != null ? event.input() : event.side().ordinal();
                    final LogRow row = new LogRow(step, lineNumber, input, event.kind(), event.ts(), event.row());
                    log.rows.put(step, row);
                    log.rowList.add(row);
                }
            }
            catch (final BadInputException e)
            {
                final LogRow row = looseRow(text, step, lineNumber, inputNames);
                if (row != null)
                {
                    // row-shaped but refused (a missing ts, say): a row whose fate is its dead letter
                    log.kinds.add(LineKind.ROW);
                    log.rows.put(step, row);
                    log.rowList.add(row);
                }
                else
                {
                    log.kinds.add(LineKind.BAD);
                }
                log.badReasons.put(step, e.getMessage());
            }
            long min = Long.MAX_VALUE;
            for (final long w : inputWatermarks)
            {
                min = Math.min(min, w);
            }
            watermarks.add(min);
        }
        log.watermarkAfter = new long[watermarks.size() + 1];
        for (int i = 0; i < watermarks.size(); i++)
        {
            log.watermarkAfter[i] = watermarks.get(i);
        }
        log.watermarkAfter[watermarks.size()] = Long.MAX_VALUE;
        return log;
    }

    /** A line that is an object with a {@code side} naming an input and an object {@code row}, but not a valid event. */
    private static LogRow looseRow(final String text, final long step, final long line, final List<String> inputNames)
    {
        final JsonNode node;
        try
        {
            node = RowJson.mapper().readTree(text);
        }
        catch (final IOException e)
        {
            return null;
        }
        if (node == null || !node.isObject() || !node.has("row") || !node.get("row").isObject() || !node.has("side") ||
            !node.get("side").isTextual())
        {
            return null;
        }
        final String side = node.get("side").textValue();
        final int input = inputNames != null ? inputNames.indexOf(side) : "left".equals(side) ? 0 : "right".equals(side) ? 1 : -1;
        if (input < 0)
        {
            return null;
        }
        final JsonNode op = node.get("op");
        final ChangeKind kind = op != null && op.isTextual() && ChangeKind.fromShortString(op.textValue()) != null
            ? ChangeKind.fromShortString(op.textValue()) : ChangeKind.INSERT;
        final JsonNode ts = node.get("ts");
        return new LogRow(step, line, input, kind, ts != null && ts.isNumber() && JsonNumbers.isLong(ts) ? JsonNumbers.longValue(ts) : 0,
            node.get("row"));
    }

    /** @return the rows that take part in the join at a step (none for a watermark, a bad line, or a row that made none) */
    List<LogRow> joinRowsAt(final long step)
    {
        return joinRowsAt.getOrDefault(step, List.of());
    }

    /**
     * Makes the rows of every log row of an expanded input, before {@link #attach} hands the dead letters to them.
     *
     * @param expansion each input's expansion (null: not expanded)
     * @param outer     whether an input row that makes nothing makes one padded row
     */
    void expand(final Expansion[] expansion, final boolean[] outer)
    {
        for (final LogRow r : rowList)
        {
            final Expansion e = expansion[r.input];
            if (e == null)
            {
                continue;
            }
            final ExplainExpansion.Made made = ExplainExpansion.expand(e, r.row, outer[r.input], false);
            r.madeRows = new ArrayList<>();
            for (int i = 0; i < made.rows().size(); i++)
            {
                r.madeRows.add(new LogRow(r, made.positions().get(i), made.rows().get(i)));
            }
            r.noRows = made.none() == null ? null : ExplainExpansion.name(e) + " made no rows: " + made.none();
        }
    }

    /** Takes the dead letters and the output lines of the replay of this log. */
    void attach(final ReplayResult result)
    {
        for (final StepLine line : result.deadLetters())
        {
            final LogRow logRow = rows.get(line.step());
            if (logRow == null)
            {
                continue;
            }
            final JsonNode node = parse(line.json());
            // a made row's own dead letter (late, say) carries the made row; the log row's (expansion_failed) the log row
            final LogRow row = madeRowOf(logRow, node);
            if (row.deadLetterCode != null)
            {
                continue;
            }
            row.deadLetterCode = node == null || !node.has("code") ? "bad_input" : node.get("code").asText();
            row.deadLetterReason = node == null || !node.has("reason") ? "" : node.get("reason").asText();
        }
        for (final LogRow r : rowList)
        {
            final List<LogRow> joining = r.joining();
            joinRows.addAll(joining);
            joinRowsAt.put(r.step, joining);
        }
        final int inputs = inputNames == null ? 2 : inputNames.size();
        for (final StepLine line : result.results())
        {
            final JsonNode node = parse(line.json());
            if (node == null)
            {
                continue;
            }
            final String op = node.path("op").asText();
            final boolean plus = op.startsWith("+") || "upsert".equals(op);
            final String[] canon = new String[inputs];
            for (int i = 0; i < inputs; i++)
            {
                final JsonNode row = inputNames == null ? node.get(i == 0 ? "left" : "right") : node.path("rows").get(inputNames.get(i));
                canon[i] = ExplainValues.isNull(row) ? null : ExplainValues.canonical(row);
            }
            outputs.add(new OutLine(line.step(), plus, canon, node.has("row") && !node.get("row").isNull()));
        }
    }

    /** The made row of a log row that a dead letter names by its content, else the log row. */
    private static LogRow madeRowOf(final LogRow logRow, final JsonNode deadLetter)
    {
        if (logRow.madeRows == null || deadLetter == null || !deadLetter.has("row") ||
            "expansion_failed".equals(deadLetter.path("code").asText()))
        {
            return logRow;
        }
        final String canonical = ExplainValues.canonical(deadLetter.get("row"));
        for (final LogRow made : logRow.madeRows)
        {
            if (made.deadLetterCode == null && made.canonical.equals(canonical))
            {
                return made;
            }
        }
        return logRow;
    }

    private static JsonNode parse(final String json)
    {
        try
        {
            return RowJson.mapper().readTree(json);
        }
        catch (final IOException e)
        {
            return null;
        }
    }
}
