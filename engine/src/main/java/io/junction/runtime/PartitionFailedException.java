package io.junction.runtime;

/**
 * Reported to the engine's {@link org.agrona.ErrorHandler} (and logged) when a partition thread dies:
 * an error escaped every guard of the partition. Its cause is that error. From then on the partition
 * processes nothing, its snapshot says {@code failed}, and publishing to it returns
 * {@link Publisher#PARTITION_FAILED}.
 */
public final class PartitionFailedException extends RuntimeException
{
    /** The partition that died. */
    private final int partition;

    /**
     * @param partition  the partition that died.
     * @param threadName its thread's name.
     * @param cause      the error that ended the thread.
     */
    public PartitionFailedException(final int partition, final String threadName, final Throwable cause)
    {
        super("partition " + partition + " (thread " + threadName + ") died: its events are no longer processed", cause);
        this.partition = partition;
    }

    /** @return the partition that died. */
    public int partition()
    {
        return partition;
    }
}
