package io.junction.tools.perf;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The soak's report lines as an SVG of four panels sharing the time axis (latency, live rows, memory,
 * collections), each from zero, so that flat means flat and growth is not hidden by an auto-scaled axis.
 */
final class SoakPlot
{
    private static final int WIDTH = 1000;
    private static final int PANEL_HEIGHT = 170;
    private static final int LEFT = 90;
    private static final int RIGHT = 220;
    private static final int TOP = 45;
    private static final int GAP = 40;

    private SoakPlot()
    {
    }

    static void write(final Path file, final List<SoakRun.Sample> samples, final String title) throws IOException
    {
        final int height = TOP + 4 * (PANEL_HEIGHT + GAP) + 20;
        final double maxX = samples.isEmpty() ? 1 : Math.max(1, samples.get(samples.size() - 1).elapsedSeconds);
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            out.write(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height));
            out.write(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
            out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"25\" font-size=\"15\">%s</text>%n", LEFT, escape(title)));
            panel(out, 0, samples, maxX, "latency (us)", new String[] {"p99.9", "p99", "p50"},
                List.of(s -> s.p999Nanos / 1e3, s -> s.p99Nanos / 1e3, s -> s.p50Nanos / 1e3));
            panel(out, 1, samples, maxX, "live rows", new String[] {"live rows"}, List.of(s -> s.liveRows));
            panel(out, 2, samples, maxX, "MiB", new String[] {"RSS", "state (off-heap)"},
                List.of(s -> s.rssBytes / 1048576.0, s -> s.stateBytes / 1048576.0));
            panel(out, 3, samples, maxX, "collections", new String[] {"GC count"}, List.of(s -> s.gcCount));
            out.write("</svg>\n");
        }
    }

    private static void panel(
        final Writer out, final int index, final List<SoakRun.Sample> samples, final double maxX, final String axis,
        final String[] labels, final List<ToDoubleFunction<SoakRun.Sample>> series) throws IOException
    {
        final String[] colours = {"#d62728", "#1f77b4", "#2ca02c"};
        final int top = TOP + index * (PANEL_HEIGHT + GAP);
        final int plotW = WIDTH - LEFT - RIGHT;
        double maxY = 0;
        for (final ToDoubleFunction<SoakRun.Sample> f : series)
        {
            for (final SoakRun.Sample s : samples)
            {
                maxY = Math.max(maxY, f.applyAsDouble(s));
            }
        }
        maxY = niceCeiling(maxY);
        out.write(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#999\"/>%n",
            LEFT, top, plotW, PANEL_HEIGHT));
        for (int i = 0; i <= 4; i++)
        {
            final double y = top + PANEL_HEIGHT - PANEL_HEIGHT * i / 4.0;
            out.write(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>%n", LEFT, y, LEFT + plotW, y));
            out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 6, y + 4, format(maxY * i / 4.0)));
        }
        for (int i = 0; i <= 6; i++)
        {
            final double x = LEFT + plotW * i / 6.0;
            out.write(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f min</text>%n",
                x, top + PANEL_HEIGHT + 15, maxX * i / 6.0 / 60));
        }
        out.write(String.format(Locale.ROOT, "<text x=\"20\" y=\"%d\" transform=\"rotate(-90 20 %d)\" text-anchor=\"middle\">%s</text>%n",
            top + PANEL_HEIGHT / 2, top + PANEL_HEIGHT / 2, escape(axis)));
        for (int k = 0; k < series.size(); k++)
        {
            final StringBuilder path = new StringBuilder();
            for (final SoakRun.Sample s : samples)
            {
                final double x = LEFT + plotW * s.elapsedSeconds / maxX;
                final double y = top + PANEL_HEIGHT - (maxY <= 0 ? 0 : PANEL_HEIGHT * series.get(k).applyAsDouble(s) / maxY);
                path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
            }
            final String colour = colours[k % colours.length];
            out.write(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n", path, colour));
            final int ly = top + 12 + 18 * k;
            out.write(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>%n",
                LEFT + plotW + 12, ly, LEFT + plotW + 32, ly, colour));
            out.write(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + plotW + 38, ly + 4, escape(labels[k])));
        }
    }

    /** @return 1, 2 or 5 times a power of ten, at least {@code v} (1 for 0). */
    static double niceCeiling(final double v)
    {
        if (v <= 0)
        {
            return 1;
        }
        final double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (final double step : new double[] {1, 2, 5, 10})
        {
            if (step * magnitude >= v)
            {
                return step * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String format(final double v)
    {
        if (v >= 1e6)
        {
            return String.format(Locale.ROOT, "%.1fM", v / 1e6);
        }
        if (v >= 1e3)
        {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        return String.format(Locale.ROOT, v >= 10 ? "%.0f" : "%.1f", v);
    }

    private static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
