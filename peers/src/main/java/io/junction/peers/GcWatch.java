package io.junction.peers;

import com.sun.management.GarbageCollectionNotificationInfo;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * GC during a timed section: collection count and time from the {@link GarbageCollectorMXBean} deltas, and the
 * longest single pause from the JDK's GC notifications (collectors whose name says they are concurrent, such as
 * "G1 Concurrent GC" or "ZGC Cycles", are not pauses and are left out of the maximum).
 */
final class GcWatch implements NotificationListener
{
    private final List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
    private volatile boolean active;
    private volatile long maxPauseMs;
    /** JVM uptime (ms) bounds of the timed section: collections starting outside it are not counted. */
    private volatile long fromUptime = Long.MAX_VALUE;
    private volatile long toUptime = Long.MAX_VALUE;
    private long count0;
    private long time0;

    GcWatch()
    {
        for (final GarbageCollectorMXBean b : beans)
        {
            if (b instanceof NotificationEmitter)
            {
                ((NotificationEmitter) b).addNotificationListener(this, null, null);
            }
        }
    }

    /** @return the collector names, for the header */
    String collectors()
    {
        final StringBuilder sb = new StringBuilder();
        for (final GarbageCollectorMXBean b : beans)
        {
            sb.append(sb.length() == 0 ? "" : ", ").append(b.getName());
        }
        return sb.toString();
    }

    void start()
    {
        maxPauseMs = 0;
        toUptime = Long.MAX_VALUE;
        fromUptime = ManagementFactory.getRuntimeMXBean().getUptime();
        count0 = totalCount();
        time0 = totalTime();
        active = true;
    }

    /** Stops counting; waits briefly for notifications of collections in the timed section to arrive. */
    Result stop()
    {
        final long count = totalCount() - count0;
        final long time = totalTime() - time0;
        toUptime = ManagementFactory.getRuntimeMXBean().getUptime();
        try
        {
            Thread.sleep(count > 0 ? 200 : 0);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        active = false;
        return new Result(count, time, maxPauseMs);
    }

    @Override
    public void handleNotification(final Notification n, final Object handback)
    {
        if (!active || !GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType()))
        {
            return;
        }
        final GarbageCollectionNotificationInfo info =
            GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        final String name = info.getGcName();
        if (name.contains("Concurrent") || name.contains("Cycles"))
        {
            return;
        }
        final long startUptime = info.getGcInfo().getStartTime();
        if (startUptime < fromUptime || startUptime > toUptime)
        {
            return; // e.g. the System.gc() before the timed section, whose notification comes late
        }
        final long d = info.getGcInfo().getDuration();
        if (d > maxPauseMs)
        {
            maxPauseMs = d;
        }
    }

    private long totalCount()
    {
        long c = 0;
        for (final GarbageCollectorMXBean b : beans)
        {
            c += Math.max(0, b.getCollectionCount());
        }
        return c;
    }

    private long totalTime()
    {
        long t = 0;
        for (final GarbageCollectorMXBean b : beans)
        {
            t += Math.max(0, b.getCollectionTime());
        }
        return t;
    }

    /** GC in one timed section. */
    static final class Result
    {
        final long count;
        final long timeMs;
        final long maxPauseMs;

        Result(final long count, final long timeMs, final long maxPauseMs)
        {
            this.count = count;
            this.timeMs = timeMs;
            this.maxPauseMs = maxPauseMs;
        }
    }
}
