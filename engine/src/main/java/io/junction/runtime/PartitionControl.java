package io.junction.runtime;

import io.junction.join.JoinOperator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;

/**
 * A partition's control mailbox: short reads of its state that other threads ask the partition thread to run
 * between two events (a key's stored rows, docs/SEMANTICS.md 14), so that the state keeps its one writer and is
 * read by it alone. The partition thread serves the mailbox at the start of each batch and, while its ring is
 * empty, from its wait ({@link UninterruptibleWaitStrategy}); a request therefore never waits behind more than
 * one batch and never stops the partition for longer than its own read. Unused, it costs the partition one
 * volatile read per batch and per turn of the wait, and allocates nothing.
 *
 * <p>Threads: {@link #submit} from any thread; {@link #serve} and {@link #failAll} on the partition thread only.
 */
final class PartitionControl
{
    private final ConcurrentLinkedQueue<Request<?>> requests = new ConcurrentLinkedQueue<>();
    /** Set after each submit: the partition thread's one cheap test. */
    private volatile boolean pending;

    /** One read to run on the partition thread, and its answer. */
    static final class Request<T>
    {
        private final Function<JoinOperator, T> read;
        final CompletableFuture<T> answer = new CompletableFuture<>();

        Request(final Function<JoinOperator, T> read)
        {
            this.read = read;
        }

        void run(final JoinOperator operator)
        {
            try
            {
                answer.complete(read.apply(operator));
            }
            catch (final Throwable t)
            {
                answer.completeExceptionally(t);
            }
        }
    }

    /**
     * Queues a read for the partition thread.
     *
     * @param read what to read of the operator, on the partition thread.
     * @return its answer, completed by the partition thread (exceptionally when it stopped first).
     */
    <T> CompletableFuture<T> submit(final Function<JoinOperator, T> read)
    {
        final Request<T> request = new Request<>(read);
        requests.add(request);
        pending = true;
        return request.answer;
    }

    /** @return whether a request may wait. */
    boolean pending()
    {
        return pending;
    }

    /**
     * Runs every waiting request against the partition's operator (the partition thread, between two events).
     *
     * @param operator the operator, or null when a failed restore lost it (every request then fails).
     */
    void serve(final JoinOperator operator)
    {
        if (!pending)
        {
            return;
        }
        // Cleared before the queue is drained: a request added meanwhile sets it again and is served next time.
        pending = false;
        Request<?> request;
        while ((request = requests.poll()) != null)
        {
            if (operator == null)
            {
                request.answer.completeExceptionally(new IllegalStateException("the partition lost its state in a failed restore"));
            }
            else
            {
                request.run(operator);
            }
        }
    }

    /** Fails every waiting request: the partition thread ends and serves none any more. */
    void failAll(final String why)
    {
        pending = false;
        Request<?> request;
        while ((request = requests.poll()) != null)
        {
            request.answer.completeExceptionally(new IllegalStateException(why));
        }
    }
}
