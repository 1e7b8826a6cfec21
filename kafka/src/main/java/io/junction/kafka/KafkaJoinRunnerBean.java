package io.junction.kafka;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * A runner's counters, and the MXBean over them that the runner registers while it runs; the runner's own
 * getters read them too, so that its public API stays free of JMX getters. Written by the consumer thread's
 * parts, the partition threads and the producer's callbacks; read by anyone.
 */
final class KafkaJoinRunnerBean implements KafkaJoinRunnerMXBean
{
    /** Input records read and handled; one writer, the consumer thread. */
    final AtomicLong recordsConsumed = new AtomicLong();
    final LongAdder outputsProduced = new LongAdder();
    final LongAdder deadLetters = new LongAdder();
    final LongAdder misrouted = new LongAdder();
    final AtomicLong checkpoints = new AtomicLong();
    final AtomicLong commits = new AtomicLong();
    final AtomicLong restored = new AtomicLong();
    volatile int servedPartitions;
    volatile int partitionCount = -1;
    /** The bean's name while it is registered (from the engine's start to the shut-down). */
    private volatile ObjectName name;

    @Override
    public long getRecordsConsumed()
    {
        return recordsConsumed.get();
    }

    @Override
    public long getOutputsProduced()
    {
        return outputsProduced.sum();
    }

    @Override
    public long getDeadLetters()
    {
        return deadLetters.sum();
    }

    @Override
    public long getMisrouted()
    {
        return misrouted.sum();
    }

    @Override
    public long getCheckpoints()
    {
        return checkpoints.get();
    }

    @Override
    public long getCommits()
    {
        return commits.get();
    }

    @Override
    public long getPartitionsRestored()
    {
        return restored.get();
    }

    @Override
    public int getServedPartitions()
    {
        return servedPartitions;
    }

    @Override
    public int getPartitions()
    {
        return partitionCount;
    }

    /** @return the name the bean is registered under, or null while it is not. */
    ObjectName name()
    {
        return name;
    }

    /** Registers the bean; a failure is logged: monitoring must not stop a runner. */
    void register(final String engineName)
    {
        final ObjectName objectName = KafkaJoinRunner.mbeanName(engineName);
        try
        {
            ManagementFactory.getPlatformMBeanServer().registerMBean(this, objectName);
            name = objectName;
        }
        catch (final JMException | RuntimeException e)
        {
            KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "could not register JMX bean " + objectName +
                "; the runner runs without it", e);
        }
    }

    void unregister()
    {
        final ObjectName objectName = name;
        if (objectName == null)
        {
            return;
        }
        try
        {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(objectName);
        }
        catch (final JMException | RuntimeException e)
        {
            KafkaJoinRunner.LOG.log(System.Logger.Level.WARNING, "could not unregister JMX bean " + objectName, e);
        }
    }
}
