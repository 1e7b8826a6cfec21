package io.junction.tools.naive;

import com.sun.management.GarbageCollectionNotificationInfo;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Stop-the-world GC pauses during a timed section, from the JVM's GC notifications
 * ({@link GarbageCollectionNotificationInfo}, one per collection, with its duration in ms).
 * Collectors that report concurrent cycles rather than pauses (names with "Cycles" or
 * "Concurrent": ZGC Cycles, Shenandoah Cycles, G1 Concurrent GC) are left out. On JDK 17, G1's
 * remark and cleanup pauses have no notification; {@code -Xlog:gc} has every pause exactly.
 * <p>
 * Use: {@link #start()} right before the section, {@link #stop()} right after (it waits, briefly,
 * for notifications still in flight), then read the figures; {@link #close()} unregisters.
 * <p>
 * Thread safe: notifications arrive on a JVM service thread.
 */
public final class GcPauses implements AutoCloseable
{
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::onNotification;
    private volatile long sinceUptimeMs = Long.MAX_VALUE;
    private volatile long untilUptimeMs = Long.MAX_VALUE;
    private long count;
    private long totalMs;
    private long maxMs;
    private long received;
    private long expected;
    private long countAtStart;

    /** Registers with every GC bean that emits notifications. */
    public GcPauses()
    {
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
        {
            if (gc instanceof NotificationEmitter)
            {
                final NotificationEmitter emitter = (NotificationEmitter) gc;
                emitter.addNotificationListener(listener, null, null);
                emitters.add(emitter);
            }
        }
    }

    /** Starts counting collections that begin from now on. */
    public synchronized void start()
    {
        count = 0;
        totalMs = 0;
        maxMs = 0;
        received = 0;
        countAtStart = collections();
        untilUptimeMs = Long.MAX_VALUE;
        sinceUptimeMs = ManagementFactory.getRuntimeMXBean().getUptime();
    }

    /** Stops counting, then waits up to a second for the notifications of collections already done. */
    public void stop()
    {
        untilUptimeMs = ManagementFactory.getRuntimeMXBean().getUptime();
        final long done = collections() - countAtStart;
        synchronized (this)
        {
            expected = done;
        }
        final long deadline = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            synchronized (this)
            {
                if (received >= expected)
                {
                    return;
                }
            }
            try
            {
                Thread.sleep(10);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** @return pauses counted */
    public synchronized long count()
    {
        return count;
    }

    /** @return sum of the pauses' durations, ms */
    public synchronized long totalMillis()
    {
        return totalMs;
    }

    /** @return the longest pause, ms (0 if none) */
    public synchronized long maxMillis()
    {
        return maxMs;
    }

    private static long collections()
    {
        long n = 0;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans())
        {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    private static boolean isPause(final String gcName)
    {
        final String n = gcName.toLowerCase(Locale.ROOT);
        return !n.contains("cycles") && !n.contains("concurrent");
    }

    private void onNotification(final Notification notification, final Object handback)
    {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType()))
        {
            return;
        }
        final GarbageCollectionNotificationInfo info =
            GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        final long startMs = info.getGcInfo().getStartTime();
        if (startMs < sinceUptimeMs || startMs > untilUptimeMs)
        {
            return;
        }
        synchronized (this)
        {
            received++;
            if (isPause(info.getGcName()))
            {
                final long duration = info.getGcInfo().getDuration();
                count++;
                totalMs += duration;
                maxMs = Math.max(maxMs, duration);
            }
        }
    }

    @Override
    public void close()
    {
        for (final NotificationEmitter emitter : emitters)
        {
            try
            {
                emitter.removeNotificationListener(listener);
            }
            catch (final ListenerNotFoundException ignored)
            {
                // already gone
            }
        }
        emitters.clear();
    }
}
