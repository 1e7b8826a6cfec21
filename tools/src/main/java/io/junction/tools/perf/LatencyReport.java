package io.junction.tools.perf;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.HistogramLogReader;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns latency histograms into what people read: a percentile table (p50 p90 p99 p99.9 p99.99 max,
 * in microseconds, with a ratio to a floor when one is given) and a percentile-distribution plot
 * drawn the way HdrHistogram's plotter draws it (latency against percentile on a log scale of
 * 1/(1-p)), as SVG, one line per configuration.
 */
public final class LatencyReport
{
    /** The percentiles every table shows. */
    public static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99};

    /** A named histogram: one line of a table or a plot. */
    public static final class Series
    {
        public final String label;
        public final Histogram histogram;
        public final double eventsPerSecond;

        public Series(final String label, final Histogram histogram, final double eventsPerSecond)
        {
            this.label = label;
            this.histogram = histogram;
            this.eventsPerSecond = eventsPerSecond;
        }
    }

    private LatencyReport()
    {
    }

    /** @return a table with one row per series, and, when {@code floor} is not null, a ratio row per series. */
    public static String table(final List<Series> series, final Series floor)
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-48s %12s %10s %10s %10s %10s %10s %10s %12s%n",
            "configuration (latency in us)", "events/s", "p50", "p90", "p99", "p99.9", "p99.99", "max", "count"));
        for (final Series s : series)
        {
            row(sb, s);
        }
        if (floor != null)
        {
            row(sb, floor);
            for (final Series s : series)
            {
                sb.append(String.format(Locale.ROOT, "%-48s %12s", truncate("ratio " + s.label + " / floor", 48), ""));
                for (final double p : PERCENTILES)
                {
                    sb.append(String.format(Locale.ROOT, " %10.2f", ratio(s.histogram.getValueAtPercentile(p), floor.histogram.getValueAtPercentile(p))));
                }
                sb.append(String.format(Locale.ROOT, " %10.2f%n", ratio(s.histogram.getMaxValue(), floor.histogram.getMaxValue())));
            }
        }
        return sb.toString();
    }

    private static double ratio(final long a, final long b)
    {
        return b == 0 ? Double.NaN : (double)a / b;
    }

    private static void row(final StringBuilder sb, final Series s)
    {
        sb.append(String.format(Locale.ROOT, "%-48s %12s", truncate(s.label, 48),
            s.eventsPerSecond > 0 ? String.format(Locale.ROOT, "%,.0f", s.eventsPerSecond) : "-"));
        for (final double p : PERCENTILES)
        {
            sb.append(String.format(Locale.ROOT, " %10.1f", s.histogram.getValueAtPercentile(p) / 1e3));
        }
        sb.append(String.format(Locale.ROOT, " %10.1f %12d%n", s.histogram.getMaxValue() / 1e3, s.histogram.getTotalCount()));
    }

    private static String truncate(final String s, final int width)
    {
        return s.length() <= width ? s : s.substring(0, width - 1) + "~";
    }

    /** @return every interval histogram of an HdrHistogram log, merged. */
    public static Histogram readLog(final Path file) throws FileNotFoundException
    {
        final Histogram merged = new Histogram(3);
        final HistogramLogReader reader = new HistogramLogReader(file.toFile());
        try
        {
            EncodableHistogram interval;
            while ((interval = reader.nextIntervalHistogram()) != null)
            {
                if (interval instanceof Histogram)
                {
                    merged.add((Histogram)interval);
                }
            }
        }
        finally
        {
            reader.close();
        }
        return merged;
    }

    /** Writes the percentile-distribution plot of the series as an SVG file. */
    public static void writeSvg(final Path file, final List<Series> series, final String title) throws IOException
    {
        final int width = 1180;
        final int height = 560;
        final int left = 80;
        final int right = 440;
        final int top = 50;
        final int bottom = 60;
        final double maxX = 6; // log10(1 / (1 - 0.999999))
        double maxValue = 1;
        double minValue = Double.MAX_VALUE;
        final List<List<double[]>> lines = new ArrayList<>();
        for (final Series s : series)
        {
            final List<double[]> points = new ArrayList<>();
            for (final HistogramIterationValue v : s.histogram.percentiles(5))
            {
                final double p = v.getPercentileLevelIteratedTo() / 100.0;
                final double x = p >= 1 ? maxX : Math.min(maxX, Math.log10(1 / (1 - p)));
                final double us = Math.max(v.getValueIteratedTo() / 1e3, 0.01);
                points.add(new double[] {x, us});
                maxValue = Math.max(maxValue, us);
                minValue = Math.min(minValue, us);
            }
            lines.add(points);
        }
        if (minValue == Double.MAX_VALUE)
        {
            minValue = 0.1;
        }
        final double yLow = Math.floor(Math.log10(minValue));
        final double yHigh = Math.ceil(Math.log10(maxValue));
        final double ySpan = Math.max(1, yHigh - yLow);
        final int plotW = width - left - right;
        final int plotH = height - top - bottom;
        final String[] colours = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"};
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            out.write(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height));
            out.write(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
            out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"25\" font-size=\"15\">%s</text>%n", left, escape(title)));
            final String[] xLabels = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"};
            for (int i = 0; i <= 6; i++)
            {
                final double x = left + plotW * i / maxX;
                out.write(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n", x, top, x, top + plotH));
                out.write(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x, top + plotH + 18, xLabels[i]));
            }
            for (double d = yLow; d <= yHigh + 1e-9; d++)
            {
                final double y = top + plotH - plotH * (d - yLow) / ySpan;
                out.write(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", left, y, left + plotW, y));
                out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", left - 6, y + 4, formatMicros(Math.pow(10, d))));
            }
            out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">percentile</text>%n", left + plotW / 2, height - 15));
            out.write(String.format(Locale.ROOT,
                "<text x=\"18\" y=\"%d\" transform=\"rotate(-90 18 %d)\" text-anchor=\"middle\">latency (log scale)</text>%n", top + plotH / 2, top + plotH / 2));
            for (int s = 0; s < lines.size(); s++)
            {
                final StringBuilder path = new StringBuilder();
                for (final double[] point : lines.get(s))
                {
                    final double x = left + plotW * point[0] / maxX;
                    final double y = top + plotH - plotH * (Math.log10(point[1]) - yLow) / ySpan;
                    path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
                }
                final String colour = colours[s % colours.length];
                out.write(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n", path, colour));
                final int ly = top + 10 + 18 * s;
                out.write(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>%n",
                    left + plotW + 12, ly, left + plotW + 32, ly, colour));
                out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", left + plotW + 38, ly + 4, escape(series.get(s).label)));
            }
            out.write("</svg>\n");
        }
    }

    private static String formatMicros(final double us)
    {
        if (us >= 1000)
        {
            return String.format(Locale.ROOT, "%.0f ms", us / 1000);
        }
        return us >= 1 ? String.format(Locale.ROOT, "%.0f us", us) : String.format(Locale.ROOT, "%.2f us", us);
    }

    private static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
