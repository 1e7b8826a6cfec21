package io.junction.runtime;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * What the JVM says of its direct memory: the limit and what its direct buffers take, read by
 * {@link EngineConfig#checkRingMemory()} before an engine allocates its rings. Stateless.
 */
final class DirectMemory
{
    private DirectMemory()
    {
    }

    /** @return bytes of direct memory the JVM's direct buffers take now: the {@code direct} pool's; 0 when it does not say. */
    static long directMemoryUsed()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                return Math.max(0, pool.getMemoryUsed());
            }
        }
        return 0;
    }

    /** @return the JVM's direct-memory limit: -XX:MaxDirectMemorySize when given, else the maximum heap. */
    static long maxDirectMemory()
    {
        long limit = Runtime.getRuntime().maxMemory();
        for (final String argument : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (argument.startsWith("-XX:MaxDirectMemorySize="))
            {
                final long given = parseSize(argument.substring("-XX:MaxDirectMemorySize=".length()));
                limit = given > 0 ? given : limit;
            }
        }
        return limit;
    }

    /** @return a JVM size option's bytes ({@code 512m}, {@code 2g}, {@code 1048576}), or -1 when it does not parse. */
    static long parseSize(final String text)
    {
        final String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.isEmpty())
        {
            return -1;
        }
        final char unit = t.charAt(t.length() - 1);
        final long scale = unit == 'k' ? 1L << 10 : unit == 'm' ? 1L << 20 : unit == 'g' ? 1L << 30 : unit == 't' ? 1L << 40 : 1;
        try
        {
            return Long.parseLong(scale == 1 ? t : t.substring(0, t.length() - 1)) * scale;
        }
        catch (final NumberFormatException e)
        {
            return -1;
        }
    }
}
