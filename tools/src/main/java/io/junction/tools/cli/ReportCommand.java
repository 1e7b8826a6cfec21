package io.junction.tools.cli;

import io.junction.json.RowJson;
import io.junction.tools.perf.LatencyReport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Locale;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code junction report}: saved {@code .hlog} interval logs to the percentile table and plot. */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = "Turn HdrHistogram interval logs (.hlog) into a percentile table and an SVG percentile plot.")
public final class ReportCommand implements Callable<Integer>
{
    @Parameters(arity = "1..*", description = "Interval logs written by 'junction loadgen --hlog' (or any HdrHistogram log).")
    List<File> logs;

    @Option(names = "--svg", description = "Write the percentile-distribution plot to this file.")
    File svg;

    @Option(names = "--floor", description = "A log to use as the floor: every other log's percentiles are also shown as a ratio to it.")
    File floor;

    @Option(names = "--hgrm", description = "Write each log's percentile distribution (HdrHistogram's .hgrm text, "
        + "microseconds) to this file, one block per log.")
    File hgrm;

    @Option(names = "--json", description = "Write the table as JSON to this file: per log its count and p50, p90, p99, "
        + "p99.9, p99.99 and max in microseconds.")
    File json;

    @Override
    public Integer call() throws Exception
    {
        final List<LatencyReport.Series> series = new ArrayList<>();
        for (final File log : logs)
        {
            series.add(new LatencyReport.Series(log.getName(), read(log), 0));
        }
        final LatencyReport.Series floorSeries = floor == null ? null :
            new LatencyReport.Series("floor " + floor.getName(), read(floor), 0);
        System.out.print(LatencyReport.table(series, floorSeries));
        if (svg != null)
        {
            final List<LatencyReport.Series> plotted = new ArrayList<>(series);
            if (floorSeries != null)
            {
                plotted.add(floorSeries);
            }
            LatencyReport.writeSvg(svg.toPath(), plotted, "Junction latency report");
            System.out.println("plot: " + svg);
        }
        final List<LatencyReport.Series> all = new ArrayList<>(series);
        if (floorSeries != null)
        {
            all.add(floorSeries);
        }
        if (hgrm != null)
        {
            writeHgrm(hgrm, all);
            System.out.println("percentile distribution: " + hgrm);
        }
        if (json != null)
        {
            Files.writeString(json.toPath(), json(all), StandardCharsets.UTF_8);
            System.out.println("json: " + json);
        }
        return 0;
    }

    /** @return {@code {"unit":"us","series":[{"label":...,"count":N,"p50":...,...,"max":...},...]}} */
    static String json(final List<LatencyReport.Series> series)
    {
        final StringBuilder sb = new StringBuilder("{\"unit\":\"us\",\"series\":[");
        String sep = "";
        for (final LatencyReport.Series s : series)
        {
            sb.append(sep);
            appendSeries(sb, s);
            sep = ",";
        }
        return sb.append("]}\n").toString();
    }

    /**
     * Appends one series: {@code {"label":...,"count":N,"p50":...,"p90":...,"p99":...,"p99.9":...,"p99.99":...,"max":...}},
     * the percentiles in microseconds (the histograms hold nanoseconds).
     */
    static StringBuilder appendSeries(final StringBuilder sb, final LatencyReport.Series s)
    {
        final Histogram h = s.histogram;
        sb.append("{\"label\":");
        RowJson.appendString(sb, s.label);
        sb.append(",\"count\":").append(h.getTotalCount());
        for (final double p : new double[] {50, 90, 99, 99.9, 99.99})
        {
            sb.append(",\"p").append(p == (long)p ? Long.toString((long)p) : Double.toString(p)).append("\":")
                .append(String.format(Locale.ROOT, "%.1f", h.getValueAtPercentile(p) / 1000.0));
        }
        return sb.append(",\"max\":").append(String.format(Locale.ROOT, "%.1f", h.getMaxValue() / 1000.0)).append('}');
    }

    /**
     * Writes each series' percentile distribution (HdrHistogram's {@code .hgrm} text,
     * {@code Histogram.outputPercentileDistribution} in microseconds), one block per series under a
     * {@code # label} line.
     */
    static void writeHgrm(final File file, final List<LatencyReport.Series> series) throws IOException
    {
        try (PrintStream out = new PrintStream(file, StandardCharsets.UTF_8))
        {
            for (final LatencyReport.Series s : series)
            {
                out.println("# " + s.label);
                s.histogram.outputPercentileDistribution(out, 1000.0);
                out.println();
            }
        }
    }

    /**
     * @return the log's histograms merged
     * @throws CliError (exit 1) when the file is missing, unreadable, or no HdrHistogram interval log:
     *     a table of zeros would read as a measurement
     */
    private static Histogram read(final File log)
    {
        if (!log.isFile())
        {
            throw new CliError(1, log.exists() ? log + " is not a file" : "no such file: " + log);
        }
        if (!log.canRead())
        {
            throw new CliError(1, "permission denied: " + log);
        }
        final Histogram histogram;
        try
        {
            histogram = LatencyReport.readLog(log.toPath());
        }
        catch (final IOException | RuntimeException e)
        {
            throw new CliError(1, log + " is not an HdrHistogram interval log (.hlog, as 'junction loadgen --hlog' writes)");
        }
        if (histogram.getTotalCount() == 0)
        {
            throw new CliError(1, log + " holds no latency values: not an HdrHistogram interval log (.hlog, as " +
                "'junction loadgen --hlog' writes), or an empty one");
        }
        return histogram;
    }
}
