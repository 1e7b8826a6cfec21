package io.junction.metrics;

/**
 * An immutable copy of one partition's metrics, as of that partition's last batch: what
 * {@code JoinEngine.metrics()} returns and the JMX beans read.
 */
public final class PartitionSnapshot
{
    public final int partition;
    public final long rowsIn;
    public final long rowsOut;
    public final long lateRows;
    public final long badInputs;
    public final long expiredRows;
    public final long liveLeft;
    public final long liveRight;
    public final long stateBytes;
    public final long pendingTimers;
    public final long watermark;
    public final long handlerErrors;
    public final long events;
    public final long ringOccupancy;
    public final long ringCapacity;
    /**
     * Whether the partition's thread died (an error escaped every guard): its rows are no longer
     * processed and publishing to it returns {@code Publisher.PARTITION_FAILED}.
     */
    public final boolean failed;

    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity)
    {
        this(partition, rowsIn, rowsOut, lateRows, badInputs, expiredRows, liveLeft, liveRight, stateBytes,
            pendingTimers, watermark, handlerErrors, events, ringOccupancy, ringCapacity, false);
    }

    public PartitionSnapshot(
        final int partition, final long rowsIn, final long rowsOut, final long lateRows, final long badInputs,
        final long expiredRows, final long liveLeft, final long liveRight, final long stateBytes,
        final long pendingTimers, final long watermark, final long handlerErrors, final long events,
        final long ringOccupancy, final long ringCapacity, final boolean failed)
    {
        this.partition = partition;
        this.rowsIn = rowsIn;
        this.rowsOut = rowsOut;
        this.lateRows = lateRows;
        this.badInputs = badInputs;
        this.expiredRows = expiredRows;
        this.liveLeft = liveLeft;
        this.liveRight = liveRight;
        this.stateBytes = stateBytes;
        this.pendingTimers = pendingTimers;
        this.watermark = watermark;
        this.handlerErrors = handlerErrors;
        this.events = events;
        this.ringOccupancy = ringOccupancy;
        this.ringCapacity = ringCapacity;
        this.failed = failed;
    }

    @Override
    public String toString()
    {
        return "partition " + partition + ": rowsIn=" + rowsIn + " rowsOut=" + rowsOut + " late=" + lateRows +
            " bad=" + badInputs + " expired=" + expiredRows + " liveLeft=" + liveLeft + " liveRight=" + liveRight +
            " stateBytes=" + stateBytes + " timers=" + pendingTimers + " handlerErrors=" + handlerErrors +
            " ring=" + ringOccupancy + "/" + ringCapacity + (failed ? " FAILED" : "");
    }
}
