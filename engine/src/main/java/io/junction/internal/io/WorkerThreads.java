package io.junction.internal.io;

/**
 * Joins the short-lived worker threads a bulk pass over state files starts (a restore's or reopen's chunk sums,
 * a reopened key index's check): every worker is waited for, however often the joining thread is interrupted,
 * because the workers read mappings and buffers the caller frees or hands on once they are done; an interrupt is
 * kept for the caller.
 *
 * <p>Thread safe (stateless).
 */
public final class WorkerThreads
{
    private WorkerThreads()
    {
    }

    /**
     * Waits for every worker to end, uninterruptibly, then restores the calling thread's interrupt if one came.
     *
     * @param workers the started workers; null entries (never started) are passed over.
     */
    public static void joinAll(final Thread[] workers)
    {
        boolean interrupted = false;
        for (final Thread worker : workers)
        {
            while (worker != null)
            {
                try
                {
                    worker.join();
                    break;
                }
                catch (final InterruptedException e)
                {
                    interrupted = true;
                }
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
