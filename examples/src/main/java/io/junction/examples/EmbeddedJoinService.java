package io.junction.examples;

import io.junction.api.ChangeKind;
import io.junction.api.IntervalBounds;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.ResultHandler;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import io.junction.api.Side;
import io.junction.join.StateConfig;
import io.junction.metrics.PartitionSnapshot;
import io.junction.runtime.EngineConfig;
import io.junction.runtime.JoinEngine;
import io.junction.runtime.Publisher;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A small service embedding the engine the way a real one would, through the public API only:
 * orders and payments arrive on two threads, each with its own {@link Publisher}, into a two-partition
 * engine with multi-producer rings; each producer handles back-pressure itself ({@code tryPublish},
 * retry, count), advances its own input's watermark, and the service ends the input, reads the
 * results per partition, prints the metrics and shuts the engine down.
 *
 * <p>The join: an interval left join of orders with payments on {@code order_id}, a payment matching
 * when it arrives at most {@link #PAYMENT_WINDOW_MILLIS} after its order. The rows are made by
 * construction so the expected output is known exactly: order {@code i} is at {@code ts = 10 i} for
 * {@code i % 100 + 1} cents; every tenth order ({@code i % 10 == 0}) is never paid; the others are
 * paid {@code (i % 7)} seconds after the order, so those with {@code i % 7 == 6} pay too late and
 * their orders come out null-padded, like the unpaid ones.
 *
 * <p>Run it with the JVM flags of the parent pom's {@code junction.jvm.flags}; it exits 0 when every
 * count matches and 1 otherwise.
 */
public final class EmbeddedJoinService
{
    /** Orders published when no count is given on the command line. */
    public static final int DEFAULT_ORDERS = 10_000;

    /** A payment joins its order when it comes at most this late: the interval is {@code [0, 5 s]}. */
    public static final long PAYMENT_WINDOW_MILLIS = 5_000;

    private static final long ORDER_SPACING_MILLIS = 10;
    private static final int WATERMARK_EVERY_ROWS = 500;
    private static final int SPINS_BEFORE_YIELD = 64;
    private static final int ROW_CAPACITY = 256;

    private EmbeddedJoinService()
    {
    }

    public static void main(final String[] args)
    {
        final int orders = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_ORDERS;
        final Summary summary = run(orders);
        System.out.println(summary);
        if (!summary.ok())
        {
            System.exit(1);
        }
    }

    /**
     * Runs the service over {@code orders} orders and their payments, prints each partition's metrics
     * and returns what it counted beside what the construction says it should count.
     */
    public static Summary run(final int orders)
    {
        final Schema orderSchema = Schema.of("order_id", "ts", "amount_cents");
        final Schema paymentSchema = Schema.of("order_id", "ts", "paid_cents");
        final JoinSpec spec = JoinSpec.builder(JoinKind.INTERVAL, JoinType.LEFT)
            .schemas(orderSchema, paymentSchema)
            .leftKey("order_id").rightKey("order_id")
            .interval(IntervalBounds.inclusive(0, PAYMENT_WINDOW_MILLIS))
            .build();
        // a small ring, so that the producers do meet back-pressure now and then
        final EngineConfig config = EngineConfig.defaults()
            .withPartitions(2)
            .withMultiProducer(true)
            .withRingSize(1024)
            .withState(StateConfig.defaults().withMaxKeys(1 << 16));

        final ResultCounter[] counters = new ResultCounter[config.partitions()];
        final AtomicLong deadLetters = new AtomicLong();
        final JoinEngine engine = JoinEngine.builder(spec)
            .config(config)
            .resultHandlers(partition -> counters[partition] = new ResultCounter())
            .deadLetterHandler((side, kind, row, ts, step, reason) -> deadLetters.incrementAndGet())
            .start();
        final Producer orderProducer = new Producer(engine, Side.LEFT, orders);
        final Producer paymentProducer = new Producer(engine, Side.RIGHT, orders);
        // close() drains both rings and waits for the partition threads to stop, so after this block
        // the counters are complete and visible to this thread
        try (engine)
        {
            final Thread orderThread = new Thread(orderProducer, "orders-producer");
            final Thread paymentThread = new Thread(paymentProducer, "payments-producer");
            orderThread.start();
            paymentThread.start();
            join(orderThread);
            join(paymentThread);
            orderProducer.rethrowFailure();
            paymentProducer.rethrowFailure();
            // the end of input closes every order still waiting for a payment, so it comes out padded
            engine.publisher().endOfInput(2L * orders + 1);
        }

        long pairs = 0;
        long padded = 0;
        long paidCents = 0;
        long wrongPairs = 0;
        for (final ResultCounter counter : counters)
        {
            pairs += counter.pairs;
            padded += counter.padded;
            paidCents += counter.paidCents;
            wrongPairs += counter.wrongPairs;
        }
        long rowsIn = 0;
        long rowsOut = 0;
        long lateRows = 0;
        for (final PartitionSnapshot snapshot : engine.metrics())
        {
            System.out.println(snapshot);
            rowsIn += snapshot.rowsIn;
            rowsOut += snapshot.rowsOut;
            lateRows += snapshot.lateRows;
        }
        return new Summary(
            orders, orderProducer.published + paymentProducer.published, pairs, padded, paidCents, wrongPairs,
            expectedPayments(orders), expectedPairs(orders), expectedPaidCents(orders),
            rowsIn, rowsOut, lateRows, deadLetters.get(), orderProducer.refused + paymentProducer.refused,
            orderProducer.retries + paymentProducer.retries);
    }

    /** Whether order {@code i} is ever paid. */
    static boolean isPaid(final long i)
    {
        return i % 10 != 0;
    }

    /** How long after order {@code i} its payment comes. */
    static long paymentDelay(final long i)
    {
        return (i % 7) * 1_000;
    }

    static long amountCents(final long i)
    {
        return i % 100 + 1;
    }

    /** @return the payments the payment producer publishes for {@code orders} orders. */
    public static long expectedPayments(final int orders)
    {
        long payments = 0;
        for (long i = 0; i < orders; i++)
        {
            if (isPaid(i))
            {
                payments++;
            }
        }
        return payments;
    }

    /** @return the orders joined to their payment; every other order comes out padded. */
    public static long expectedPairs(final int orders)
    {
        long pairs = 0;
        for (long i = 0; i < orders; i++)
        {
            if (isPaid(i) && paymentDelay(i) <= PAYMENT_WINDOW_MILLIS)
            {
                pairs++;
            }
        }
        return pairs;
    }

    /** @return the sum of the paid amounts over the joined pairs. */
    public static long expectedPaidCents(final int orders)
    {
        long cents = 0;
        for (long i = 0; i < orders; i++)
        {
            if (isPaid(i) && paymentDelay(i) <= PAYMENT_WINDOW_MILLIS)
            {
                cents += amountCents(i);
            }
        }
        return cents;
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + thread.getName(), e);
        }
    }

    /**
     * Publishes one input: orders (left) or their payments (right), in order id order, with that
     * input's watermark every {@link #WATERMARK_EVERY_ROWS} rows. Its publisher, writer and buffer
     * are made on its own thread and used by that thread only.
     */
    private static final class Producer implements Runnable
    {
        private final JoinEngine engine;
        private final Side side;
        private final int orders;
        // written by the producer thread, read after Thread.join()
        private long published;
        private long refused;
        private long retries;
        private Throwable failure;

        Producer(final JoinEngine engine, final Side side, final int orders)
        {
            this.engine = engine;
            this.side = side;
            this.orders = orders;
        }

        @Override
        public void run()
        {
            try
            {
                produce();
            }
            catch (final RuntimeException | Error e)
            {
                failure = e;
            }
        }

        private void produce()
        {
            final Publisher publisher = engine.publisher();
            final RowWriter writer = new RowWriter();
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(ROW_CAPACITY));
            // steps label results and dead letters: even for orders, odd for payments
            final long stepParity = side == Side.LEFT ? 0 : 1;
            for (long i = 0; i < orders; i++)
            {
                final long orderTs = i * ORDER_SPACING_MILLIS;
                if (side == Side.LEFT || isPaid(i))
                {
                    final long ts = side == Side.LEFT ? orderTs : orderTs + paymentDelay(i);
                    final int length = writer.wrap(buffer, 0, ROW_CAPACITY, 3)
                        .putLong(0, i).putLong(1, ts).putLong(2, amountCents(i)).finish();
                    publish(publisher, buffer, length, ts, 2 * i + stepParity);
                }
                if (i % WATERMARK_EVERY_ROWS == WATERMARK_EVERY_ROWS - 1)
                {
                    // every later row of this input is at or after this order's time, so none is late
                    publisher.watermark(side, orderTs, 2 * i + stepParity);
                }
            }
        }

        private void publish(final Publisher publisher, final UnsafeBuffer buffer, final int length, final long ts,
            final long step)
        {
            int spins = 0;
            int result;
            while ((result = publisher.tryPublish(side, ChangeKind.INSERT, buffer, 0, length, ts, step,
                System.nanoTime())) == Publisher.BACK_PRESSURED)
            {
                // the partition is behind: wait for it without dropping the row, politely on a small host
                retries++;
                if (++spins < SPINS_BEFORE_YIELD)
                {
                    Thread.onSpinWait();
                }
                else
                {
                    Thread.yield();
                }
            }
            if (result == Publisher.PUBLISHED)
            {
                published++;
            }
            else
            {
                refused++;
            }
        }

        void rethrowFailure()
        {
            if (failure != null)
            {
                throw new IllegalStateException(side + " producer failed", failure);
            }
        }
    }

    /**
     * Counts one partition's results, reading the rows: called by that partition's thread only, so it
     * needs no synchronisation; the service reads it after {@link JoinEngine#close()}.
     */
    private static final class ResultCounter implements ResultHandler
    {
        private long pairs;
        private long padded;
        private long paidCents;
        private long wrongPairs;

        @Override
        public void onResult(final ChangeKind kind, final RowView left, final RowView right, final long timestamp,
            final long step)
        {
            if (right == null)
            {
                padded++;
                return;
            }
            pairs++;
            paidCents += right.getLong(2);
            final long delay = right.getLong(1) - left.getLong(1);
            if (left.getLong(0) != right.getLong(0) || delay < 0 || delay > PAYMENT_WINDOW_MILLIS ||
                kind != ChangeKind.INSERT)
            {
                wrongPairs++;
            }
        }
    }

    /**
     * What one run counted, beside what the construction says it should have counted.
     *
     * @param orders            orders published.
     * @param published         rows published, orders and payments.
     * @param pairs             orders joined to their payment.
     * @param padded            orders emitted without a payment.
     * @param paidCents         the paid amounts summed over the pairs.
     * @param wrongPairs        pairs whose ids differ or whose payment is outside the interval.
     * @param expectedPayments  payments the construction publishes.
     * @param expectedPairs     pairs the construction makes.
     * @param expectedPaidCents paid amounts the construction sums.
     * @param rowsIn            rows the partitions took in (metrics).
     * @param rowsOut           rows the partitions emitted (metrics).
     * @param lateRows          rows the partitions found late (metrics).
     * @param deadLetters       rows dead-lettered.
     * @param refused           rows a publisher refused.
     * @param retries           tryPublish calls answered BACK_PRESSURED, each retried.
     */
    public record Summary(
        long orders, long published, long pairs, long padded, long paidCents, long wrongPairs,
        long expectedPayments, long expectedPairs, long expectedPaidCents,
        long rowsIn, long rowsOut, long lateRows, long deadLetters, long refused, long retries)
    {
        /** @return whether nothing was lost, duplicated or wrongly joined. */
        public boolean ok()
        {
            return published == orders + expectedPayments && rowsIn == published &&
                pairs == expectedPairs && padded == orders - expectedPairs && paidCents == expectedPaidCents &&
                rowsOut == pairs + padded && wrongPairs == 0 && lateRows == 0 && deadLetters == 0 && refused == 0;
        }

        @Override
        public String toString()
        {
            return (ok() ? "OK" : "FAILED") + ": published " + published + " (" + orders + " orders, " +
                (published - orders) + " payments; " + retries + " back-pressure retries), rows in " + rowsIn +
                ", results " + (pairs + padded) + " (" + pairs + " paid of " + expectedPairs + " expected, " +
                padded + " unpaid of " + (orders - expectedPairs) + "), rows out " + rowsOut + ", paid cents " +
                paidCents + " of " + expectedPaidCents + ", wrong pairs " + wrongPairs + ", late " + lateRows +
                ", dead letters " + deadLetters + ", refused " + refused;
        }
    }
}
