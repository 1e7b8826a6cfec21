package io.junction.runtime;

import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;
import java.util.Locale;

/**
 * How an idle partition thread waits for the next event. The trade is latency against CPU: on a
 * host with fewer cores than partitions plus producers, a spinning thread steals the producer's
 * core (a second spinning thread on 2 cores cut a bare hand-off from 71M/s to 12M/s here).
 */
public enum WaitStrategyKind
{
    /** Lock and condition: no CPU when idle, microseconds of wake-up, a signal per publish. */
    BLOCKING,
    /** Spin, then yield, then park for a short time: near-zero CPU when idle; the default. */
    SLEEPING,
    /** Spin, then {@code Thread.yield()}: low latency, a full core while idle, yields to others. */
    YIELDING,
    /** Spin only: the lowest latency, a dedicated core per partition required. */
    BUSY_SPIN;

    /** @return a new Disruptor wait strategy of this kind. */
    public WaitStrategy create()
    {
        switch (this)
        {
            case BLOCKING:
                return new BlockingWaitStrategy();
            case YIELDING:
                return new YieldingWaitStrategy();
            case BUSY_SPIN:
                return new BusySpinWaitStrategy();
            default:
                return new SleepingWaitStrategy();
        }
    }

    /**
     * @param name a kind's name, case-insensitive, {@code -} or {@code _} between words.
     * @return the kind for a name such as {@code "busy-spin"} or {@code "YIELDING"}, or null.
     */
    public static WaitStrategyKind fromName(final String name)
    {
        final String normalised = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (final WaitStrategyKind kind : values())
        {
            if (kind.name().equals(normalised))
            {
                return kind;
            }
        }
        return null;
    }
}
