package io.junction.runtime;

import com.lmax.disruptor.AlertException;
import com.lmax.disruptor.Sequence;
import com.lmax.disruptor.SequenceBarrier;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.WaitStrategy;

/**
 * A partition's wait for events that an interrupt cannot end: Disruptor's blocking strategy answers an
 * interrupt with an {@link InterruptedException}, which its event processor treats as a failure of the
 * partition (the thread ends, every later publish is refused). Here the interrupt is told to the worker
 * (counted and reported as a handler error) and the wait goes on; halting the ring (an alert) still ends it.
 *
 * <p>It is also where an idle partition serves its control mailbox ({@link PartitionControl}): every wait strategy
 * checks its barrier's alert on each turn of its wait (the blocking one after each wake-up, which a request's
 * {@link #signalAllWhenBlocking} gives it), so the barrier it is handed here first lets the worker run the reads
 * other threads asked for, on this thread, between two events; then it checks the real barrier's alert.
 *
 * <p>Thread safe as its delegate: {@link #waitFor} runs on the partition thread, {@link #signalAllWhenBlocking}
 * on publishers'.
 */
final class UninterruptibleWaitStrategy implements WaitStrategy
{
    private final WaitStrategy delegate;
    private final PartitionWorker worker;
    private final ServingBarrier serving = new ServingBarrier();

    /**
     * @param delegate the wait strategy of the configured kind.
     * @param worker   told of each interrupt.
     */
    UninterruptibleWaitStrategy(final WaitStrategy delegate, final PartitionWorker worker)
    {
        this.delegate = delegate;
        this.worker = worker;
    }

    @Override
    public long waitFor(
        final long sequence, final Sequence cursor, final Sequence dependentSequence, final SequenceBarrier barrier)
        throws AlertException, TimeoutException
    {
        while (true)
        {
            try
            {
                serving.barrier = barrier;
                return delegate.waitFor(sequence, cursor, dependentSequence, serving);
            }
            catch (final InterruptedException e)
            {
                // The throw cleared the flag.
                worker.interruptedWhileWaiting();
            }
        }
    }

    @Override
    public void signalAllWhenBlocking()
    {
        delegate.signalAllWhenBlocking();
    }

    /**
     * The partition's barrier as its wait strategy sees it: each alert check first serves the control mailbox.
     * One per partition, reused for every wait (the Disruptor hands the same barrier each time).
     */
    private final class ServingBarrier implements SequenceBarrier
    {
        SequenceBarrier barrier;

        @Override
        public long waitFor(final long sequence) throws AlertException, InterruptedException, TimeoutException
        {
            return barrier.waitFor(sequence);
        }

        @Override
        public long getCursor()
        {
            return barrier.getCursor();
        }

        @Override
        public boolean isAlerted()
        {
            return barrier.isAlerted();
        }

        @Override
        public void alert()
        {
            barrier.alert();
        }

        @Override
        public void clearAlert()
        {
            barrier.clearAlert();
        }

        @Override
        public void checkAlert() throws AlertException
        {
            worker.serveControl();
            barrier.checkAlert();
        }
    }
}
