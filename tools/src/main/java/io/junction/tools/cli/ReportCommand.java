package io.junction.tools.cli;

import io.junction.tools.perf.LatencyReport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.File;
import java.io.IOException;
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
        return 0;
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
