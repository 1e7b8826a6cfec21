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
 * <p>Thread safe as its delegate: {@link #waitFor} runs on the partition thread, {@link #signalAllWhenBlocking}
 * on publishers'.
 */
final class UninterruptibleWaitStrategy implements WaitStrategy
{
    private final WaitStrategy delegate;
    private final PartitionWorker worker;

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
                return delegate.waitFor(sequence, cursor, dependentSequence, barrier);
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
}
