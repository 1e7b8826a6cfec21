package io.junction.runtime;

import io.junction.internal.durable.DirectoryLock;
import io.junction.internal.io.OwnerOnlyFiles;
import io.junction.internal.metrics.EngineBeans;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * How an engine ends: the close (drain every partition within the close timeout and past it while a
 * partition makes progress, the clean close's checkpoint in durable mode, stop the threads, report what was
 * left undone), the undoing of a start that failed before the threads ran, and the state root's lock, held
 * from before recovery until every partition thread has stopped. {@link JoinEngine}'s close methods delegate
 * here.
 *
 * <p>Threads: the first close runs on the thread that calls it (or, called on a partition thread, on a closer
 * thread of its own); later calls wait for it; {@link #closeUnstarted} and {@link #lockRoot} run on the
 * starting thread, as does {@link #awaitStarted}. The shortfall and the positions of a clean close are volatile.
 */
final class EngineShutdown
{
    private static final System.Logger LOGGER = System.getLogger("io.junction.runtime");
    private static final long DRAIN_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    /**
     * Close waits past its timeout while a partition makes progress: at least one event, result or dead
     * letter within this time (or within the close timeout when that is longer).
     */
    static final long PROGRESS_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long start waits for the partition threads at least: a bound on a hang only. */
    private static final long START_TIMEOUT_MILLIS = 30_000;

    private final String name;
    private final EngineConfig config;
    private final PartitionRings rings;
    /** The engine's workers: null entries before they are created and after a failed start freed them. */
    private final PartitionWorker[] workers;
    /** Null in memory mode. */
    private final CheckpointCoordinator checkpoints;
    private final LoggingErrorHandler log;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile EngineBeans beans;
    /** Set by {@link #closeCleanly}: a durable clean close writes these positions beside each partition's state. */
    private volatile long[] closePositions;
    /** Set by a close that gave up or could not close cleanly: what it left undone; null otherwise. */
    private volatile String closeShortfall;
    /** Durable mode: the root's lock, held from before recovery until every partition thread has stopped. */
    private volatile DirectoryLock rootLock;

    EngineShutdown(final String name, final EngineConfig config, final PartitionRings rings, final PartitionWorker[] workers,
        final CheckpointCoordinator checkpoints, final LoggingErrorHandler log)
    {
        this.name = name;
        this.config = config;
        this.rings = rings;
        this.workers = workers;
        this.checkpoints = checkpoints;
        this.log = log;
    }

    /**
     * Waits until every partition thread runs; when one does not start (or the wait is interrupted), closes
     * the engine and throws. Thread: the starting one, after the rings started.
     */
    void awaitStarted()
    {
        try
        {
            // A bound on a hang only: a ThreadFactory that never runs what it is given.
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
                Math.max(START_TIMEOUT_MILLIS, config.closeTimeoutMillis()));
            for (int p = 0; p < workers.length; p++)
            {
                if (!workers[p].awaitStarted(deadline - System.nanoTime()))
                {
                    close();
                    throw new IllegalStateException("partition thread " + p + " did not start: does the ThreadFactory " +
                        "return a thread that runs the Runnable it is given?");
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException("interrupted while starting the partition threads", e);
        }
    }

    /** The engine's JMX beans, which the close removes once the partitions have stopped. */
    void registered(final EngineBeans registered)
    {
        beans = registered;
    }

    /** Takes the state root's lock before anything in the root is read or written. */
    void lockRoot()
    {
        try
        {
            rootLock = DirectoryLock.acquire(OwnerOnlyFiles.createDirectories(config.stateRoot()),
                "the state root");
        }
        catch (final IOException e)
        {
            throw new CheckpointException("junction: cannot start on " + config.stateRoot() + ": " + e.getMessage(), e);
        }
    }

    /** Releases the root's lock once every partition thread has stopped (now, or on a thread that waits for them). */
    private void releaseRootLock(final boolean allStopped)
    {
        final DirectoryLock lock = rootLock;
        if (lock == null)
        {
            return;
        }
        if (allStopped)
        {
            lock.close();
            return;
        }
        // A partition still inside a handler still holds its files: the root stays locked until it stops.
        final Thread waiter = new Thread(() ->
        {
            for (final PartitionWorker worker : workers)
            {
                boolean stopped = false;
                while (!stopped)
                {
                    try
                    {
                        stopped = worker.awaitStopped(Long.MAX_VALUE);
                    }
                    catch (final InterruptedException e)
                    {
                        // Only the stop of the partitions releases the lock.
                    }
                }
            }
            lock.close();
        }, config.threadNamePrefix() + "unlock");
        waiter.setDaemon(true);
        waiter.start();
    }

    /** {@link JoinEngine#close(long[])}, its arguments checked. */
    boolean closeCleanly(final long[] positions)
    {
        if (checkpoints != null && !closing.get())
        {
            closePositions = positions.clone();
        }
        return closeCompletely();
    }

    /** {@link JoinEngine#closeCompletely()}. */
    boolean closeCompletely()
    {
        close();
        if (terminated.getCount() > 0)
        {
            return false;
        }
        return closeShortfall == null;
    }

    /** {@link JoinEngine#closeShortfall()}. */
    String closeShortfall()
    {
        return closeShortfall;
    }

    /** {@link JoinEngine#close()}. */
    void close()
    {
        final Thread current = Thread.currentThread();
        boolean onPartitionThread = false;
        for (final PartitionWorker worker : workers)
        {
            onPartitionThread |= worker != null && worker.isPartitionThread(current);
        }
        if (closing.compareAndSet(false, true))
        {
            rings.markClosed();
            if (onPartitionThread)
            {
                final Thread closer = new Thread(this::shutDown, config.threadNamePrefix() + "closer");
                closer.setDaemon(true);
                closer.start();
                return;
            }
            shutDown();
        }
        else if (!onPartitionThread)
        {
            // A close under way on another thread: return when it is done, as a first call would (it is
            // bounded: it gives up once no partition makes progress).
            try
            {
                terminated.await();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void shutDown()
    {
        try
        {
            final long timeout = TimeUnit.MILLISECONDS.toNanos(config.closeTimeoutMillis());
            long deadline = System.nanoTime() + timeout;
            boolean interrupted = false;
            for (int p = 0; p < rings.count() && !interrupted; p++)
            {
                // A dead partition never drains: it is reported already, waiting on it would only stall close.
                long seen = workers[p].progress();
                while (!workers[p].isFailed() && rings.backlog(p) > 0)
                {
                    final long now = System.nanoTime();
                    if (now - deadline >= 0)
                    {
                        // Out of time: wait on only while the partition is still making progress.
                        final long progress = workers[p].progress();
                        if (progress == seen)
                        {
                            break;
                        }
                        seen = progress;
                        deadline = now + Math.max(timeout, PROGRESS_GRACE_NANOS);
                    }
                    LockSupport.parkNanos(DRAIN_POLL_NANOS);
                    interrupted = Thread.interrupted();
                    if (interrupted)
                    {
                        break;
                    }
                }
            }
            // Stopping (in durable mode: persisting and the close's checkpoint) has a timeout of its own.
            deadline = System.nanoTime() + Math.max(timeout, PROGRESS_GRACE_NANOS);
            final long[] undrained = new long[rings.count()];
            final long[] positions = closePositions;
            boolean clean = positions != null;
            for (int p = 0; p < rings.count(); p++)
            {
                undrained[p] = rings.backlog(p);
                clean &= undrained[p] == 0 && !workers[p].isFailed();
            }
            CheckpointRequest atClose = null;
            if (clean)
            {
                // One checkpoint of every partition at the close positions, confirmed before any clean-close
                // record is written: a crash after the next start then restores the close, not an older cut.
                atClose = checkpoints.closeCheckpoint(positions);
                for (final PartitionWorker worker : workers)
                {
                    worker.closeAt(atClose);
                }
            }
            else if (positions != null)
            {
                LOGGER.log(System.Logger.Level.WARNING, "junction: no clean close of " + config.stateRoot() + ": a partition " +
                    "did not drain or its thread died; the next start restores the newest checkpoint complete in every partition");
            }
            for (int p = 0; p < rings.count(); p++)
            {
                workers[p].requestStop();
                rings.halt(p);
            }
            final StringBuilder report = new StringBuilder();
            boolean allStopped = true;
            for (int p = 0; p < workers.length; p++)
            {
                boolean stopped = false;
                try
                {
                    stopped = !interrupted && awaitStopped(workers[p], deadline, timeout);
                }
                catch (final InterruptedException e)
                {
                    interrupted = true;
                }
                allStopped &= stopped;
                if (atClose != null && workers[p].isFailed())
                {
                    // Died before it was asked (its shutdown never saw the request): it never writes its part.
                    atClose.failPartition(p, new CheckpointException("partition " + p + "'s thread died", null));
                }
                if (!stopped || undrained[p] > 0)
                {
                    report.append(report.length() == 0 ? "" : "; ").append("partition ").append(p).append(": ")
                        .append(undrained[p]).append(" events not processed")
                        .append(workers[p].isFailed() ? " (its thread died)" :
                            stopped ? "" : " (its thread is still running; its state is freed when it stops)");
                }
            }
            if (report.length() > 0)
            {
                final String shortfall = "close " + (interrupted ? "was interrupted" :
                    "gave up (no progress within junction.closeTimeoutMs=" + config.closeTimeoutMillis() + ")") +
                    " with events left: " + report;
                closeShortfall = shortfall;
                LOGGER.log(System.Logger.Level.WARNING, "junction: " + shortfall);
            }
            else if (atClose != null && atClose.future.isCompletedExceptionally())
            {
                // The checkpoint's failure names the partition and the file (a full disk among the causes).
                closeShortfall = JoinEngine.CLOSE_CHECKPOINT_FAILED + closeFailure(atClose) + "; no clean-close record was written: " +
                    "the next start restores the newest checkpoint complete in every partition";
            }
            else if (atClose != null && !atClose.future.isDone())
            {
                closeShortfall = "the clean close wrote no clean-close record (see the log): the next start restores " +
                    "the newest checkpoint complete in every partition";
            }
            else if (positions != null && !clean)
            {
                closeShortfall = "no clean close: a partition did not drain or its thread died";
            }
            if (checkpoints != null)
            {
                checkpoints.abandonAll("the engine closed before every partition reached it");
            }
            releaseRootLock(allStopped);
            log.logSummary();
            unregister();
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        finally
        {
            terminated.countDown();
        }
    }

    /** @return the message of the failure a failed checkpoint's future completed with. */
    private static String closeFailure(final CheckpointRequest request)
    {
        try
        {
            request.future.getNow(null);
            return "unknown";
        }
        catch (final CompletionException | CancellationException e)
        {
            final Throwable cause = e.getCause() != null ? e.getCause() : e;
            return cause.getMessage() != null ? cause.getMessage() : cause.toString();
        }
    }

    /**
     * Waits for a partition thread to stop until {@code deadline}, and past it while the partition makes progress.
     *
     * @return whether it stopped.
     */
    private static boolean awaitStopped(final PartitionWorker worker, final long deadline, final long timeout)
        throws InterruptedException
    {
        long until = deadline;
        long seen = worker.progress();
        while (!worker.awaitStopped(Math.max(0, until - System.nanoTime())))
        {
            final long progress = worker.progress();
            if (progress == seen)
            {
                return false;
            }
            seen = progress;
            until = System.nanoTime() + Math.max(timeout, PROGRESS_GRACE_NANOS);
        }
        return true;
    }

    /**
     * Undoes a start that failed with {@code failure} before the partition threads ran: frees the workers'
     * operators (failures of that cleanup are added to {@code failure} as suppressed) and releases the root's
     * lock whatever they did, so that the next start, once the cause is gone, can open the root; then frees the
     * engine's name.
     */
    void closeUnstarted(final Throwable failure)
    {
        rings.markClosed();
        closing.set(true);
        terminated.countDown();
        try
        {
            closeWorkers(failure);
        }
        finally
        {
            if (rootLock != null)
            {
                rootLock.close();
            }
        }
        EngineNames.release(name);
    }

    /**
     * Frees the operators of workers created before a failed start, and forgets them. A worker whose close fails
     * (its persist, on the disk that failed the start) does not keep the others from closing, and its failure is
     * added to {@code failure}, the start's, as suppressed: never in its place.
     */
    void closeWorkers(final Throwable failure)
    {
        for (int p = 0; p < workers.length; p++)
        {
            if (workers[p] != null)
            {
                try
                {
                    workers[p].closeUnstarted();
                }
                catch (final RuntimeException | Error e)
                {
                    failure.addSuppressed(e);
                }
                workers[p] = null;
            }
        }
    }

    /** Removes the JMX beans and frees the name; called once the partitions have stopped. */
    private void unregister()
    {
        if (beans != null)
        {
            beans.unregister();
            beans = null;
        }
        EngineNames.release(name);
    }
}
