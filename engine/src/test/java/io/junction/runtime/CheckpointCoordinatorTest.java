package io.junction.runtime;

import io.junction.internal.durable.ClosedRecord;
import io.junction.internal.durable.ConfirmedRecord;
import io.junction.internal.durable.EngineRecord;
import io.junction.join.StateConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checkpoint coordinator on its own: no rings, no partition threads. The barriers it puts in are
 * recorded, and the test reports each partition's part itself, in the order and with the outcome a case
 * needs, as a partition thread (or a background writer) would.
 */
@Timeout(30)
class CheckpointCoordinatorTest
{
    private static final long FINGERPRINT = 0x5eedL;
    private static final int PARTITIONS = 3;
    private static final int[] ALL = {0, 1, 2};

    @TempDir
    Path root;

    /** The barriers put in, by partition, in order. */
    private final List<int[]> barrierPartitions = new ArrayList<>();
    private final List<CheckpointRequest> barrierRequests = new ArrayList<>();
    /** What {@link #barriers} answers per partition: a sequence, or a refusal code. */
    private final long[] answer = new long[PARTITIONS];
    private final boolean[] failed = new boolean[PARTITIONS];

    private final CheckpointCoordinator.Barriers barriers = new CheckpointCoordinator.Barriers()
    {
        @Override
        public long barrier(final int partition, final CheckpointRequest request)
        {
            if (answer[partition] >= 0)
            {
                barrierPartitions.add(new int[] {partition});
                barrierRequests.add(request);
            }
            return answer[partition];
        }

        @Override
        public boolean isFailed(final int partition)
        {
            return failed[partition];
        }
    };

    private EngineConfig config()
    {
        return EngineConfig.defaults().withPartitions(PARTITIONS).withStateRoot(root)
            .withState(StateConfig.defaults().withHashSeed(7));
    }

    private CheckpointCoordinator started() throws IOException
    {
        final CheckpointCoordinator coordinator = new CheckpointCoordinator(config(), FINGERPRINT);
        assertFalse(start(coordinator), "a new root has nothing to reopen");
        return coordinator;
    }

    /** Recovers with no operators to open: the coordinator's part of a start, without partitions. */
    private static boolean start(final CheckpointCoordinator coordinator) throws IOException
    {
        return coordinator.start(() -> { }, failure -> { });
    }

    private CheckpointRequest lastRequest()
    {
        return barrierRequests.get(barrierRequests.size() - 1);
    }

    private static Throwable failure(final CompletableFuture<CompletedCheckpoint> future)
    {
        final CompletionException e = assertThrows(CompletionException.class, future::join);
        return assertInstanceOf(CheckpointException.class, e.getCause());
    }

    private static void writeParts(final CheckpointRequest request, final int... order)
    {
        for (final int p : order)
        {
            request.written(p, request.id, 1, 10, 100);
        }
    }

    @Test
    void aStartOnANewRootRecordsTheEngineAndStartsEmpty() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        assertNull(coordinator.restoredPositions());
        assertEquals(-1, coordinator.restoredCheckpointId());
        assertEquals(-1, coordinator.confirmedId());
        EngineRecord.check(root, EngineRecord.read(root), PARTITIONS, FINGERPRINT);
        assertEquals(7, EngineRecord.hashSeed(EngineRecord.read(root)));
    }

    @Test
    void aBarrierGoesToEveryPartitionAndTheCheckpointCompletesWithTheLastPartInAnyOrderConfirmedLast()
        throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CompletableFuture<CompletedCheckpoint> future =
            coordinator.submit(ALL, new long[] {5, 6}, CheckpointRequest.Mode.CHECKPOINT, barriers);
        assertEquals(PARTITIONS, barrierRequests.size(), "one barrier per partition");
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertEquals(p, barrierPartitions.get(p)[0]);
            assertTrue(barrierRequests.get(p) == barrierRequests.get(0), "one request for all");
        }
        final CheckpointRequest request = lastRequest();
        assertEquals(0, request.id, "the first checkpoint of a new root");
        assertEquals(-1, request.floor);
        writeParts(request, 2, 0);
        assertFalse(future.isDone(), "partition 1's part is not in");
        assertEquals(-1, ConfirmedRecord.readId(root), "nothing is confirmed before every part is in");
        writeParts(request, 1);
        final CompletedCheckpoint done = future.join();
        assertEquals(0, done.id());
        assertArrayEquals(new long[] {5, 6}, done.positions());
        assertArrayEquals(ALL, done.partitions());
        assertEquals(30, done.bytesWritten());
        assertEquals(300, done.bytesLinked());
        assertEquals(0, ConfirmedRecord.readId(root), "confirmed once the last part was in");
        assertEquals(0, coordinator.confirmedId());
    }

    @Test
    void aPartThatFailsFailsTheCheckpointNamingItsPartitionAndThePreviousStaysTheOneToRestore() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CompletableFuture<CompletedCheckpoint> first = coordinator.submit(ALL, new long[] {1},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        writeParts(lastRequest(), 0, 1, 2);
        first.join();
        final CompletableFuture<CompletedCheckpoint> second = coordinator.submit(ALL, new long[] {2},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        final CheckpointRequest request = lastRequest();
        assertEquals(1, request.id);
        assertEquals(0, request.floor, "the partitions keep what the confirmed checkpoint needs");
        request.written(0, 1, 1, 10, 100);
        request.done(1, 0, 0, 0, new IOException("partition-1/checkpoints/chk-1/arena: No space left on device"));
        assertFalse(second.isDone());
        request.written(2, 1, 1, 10, 100);
        final Throwable failure = failure(second);
        assertTrue(failure.getMessage().contains("checkpoint 1 failed: partition 1: partition-1/checkpoints/chk-1/arena: " +
            "No space left on device"), failure.getMessage());
        assertEquals(0, ConfirmedRecord.readId(root), "the previous checkpoint stays confirmed");
        assertEquals(0, coordinator.confirmedId());
        // A part that reports twice (its own report after the engine failed it) counts once.
        request.written(1, 1, 1, 10, 100);
        assertEquals(0, ConfirmedRecord.readId(root));
        coordinator.submit(ALL, new long[] {3}, CheckpointRequest.Mode.CHECKPOINT, barriers);
        assertEquals(2, lastRequest().id, "ids go on past the failed one");
        assertEquals(0, lastRequest().floor);
    }

    @Test
    void anOlderCheckpointCompletingLateNeverLowersTheConfirmedOne() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CompletableFuture<CompletedCheckpoint> older = coordinator.submit(ALL, new long[] {1},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        final CheckpointRequest a = lastRequest();
        final CompletableFuture<CompletedCheckpoint> newer = coordinator.submit(ALL, new long[] {2},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        final CheckpointRequest b = lastRequest();
        writeParts(b, 0, 1, 2);
        newer.join();
        assertEquals(1, ConfirmedRecord.readId(root));
        writeParts(a, 2, 1, 0);
        older.join();
        assertEquals(1, ConfirmedRecord.readId(root), "checkpoint 0 completed after 1 was confirmed");
        assertEquals(1, coordinator.confirmedId());
    }

    @Test
    void aCheckpointOfSomePartitionsIsNeverConfirmedEngineWide() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CompletableFuture<CompletedCheckpoint> one = coordinator.submit(new int[] {1}, new long[] {4},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        assertTrue(lastRequest().partitionOnly);
        lastRequest().written(1, 9, 1, 10, 100);
        assertEquals(9, one.join().id(), "the id the partition wrote it with");
        assertTrue(Files.notExists(ConfirmedRecord.file(root)));
    }

    @Test
    void aBarrierThatCannotGoInFailsItsPartAtOnceAndTheOthersStillReport() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        answer[1] = Publisher.PARTITION_FAILED;
        answer[2] = Publisher.CLOSED;
        final CompletableFuture<CompletedCheckpoint> future = coordinator.submit(ALL, new long[] {1},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        assertEquals(1, barrierRequests.size(), "only partition 0 took its barrier");
        assertFalse(future.isDone(), "partition 0 has not reported");
        writeParts(lastRequest(), 0);
        final Throwable failure = failure(future);
        assertTrue(failure.getMessage().contains("partition 1: partition 1's thread died"), failure.getMessage());
        assertTrue(failure.getMessage().contains("partition 2: the engine is closed"), failure.getMessage());
        assertEquals(-1, ConfirmedRecord.readId(root));
    }

    @Test
    void aPartitionThatDiesFailsWhatWaitsOnItAndOnlyThat() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CompletableFuture<CompletedCheckpoint> all = coordinator.submit(ALL, new long[] {1},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        final CheckpointRequest request = lastRequest();
        final CompletableFuture<CompletedCheckpoint> other = coordinator.submit(new int[] {0}, null,
            CheckpointRequest.Mode.TAKE_OVER, barriers);
        final CheckpointRequest takeOver = lastRequest();
        coordinator.partitionFailed(1);
        writeParts(request, 0, 2);
        final Throwable failure = failure(all);
        assertTrue(failure.getMessage().contains("partition 1: partition 1's thread died before it reached the barrier"),
            failure.getMessage());
        assertFalse(other.isDone(), "the take-over of partition 0 does not wait on partition 1");
        takeOver.restored(0, 3, new long[] {8}, null);
        assertArrayEquals(new long[] {8}, other.join().positions());
        assertEquals(-1, ConfirmedRecord.readId(root), "a restore confirms nothing");
    }

    @Test
    void aPartitionDyingWhileItsBarrierGoesInFailsItsPart() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        failed[2] = true;
        final CompletableFuture<CompletedCheckpoint> future = coordinator.submit(ALL, new long[] {1},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        writeParts(lastRequest(), 0, 1);
        assertTrue(failure(future).getMessage().contains("partition 2: partition 2's thread died"));
    }

    @Test
    void aCloseAbandonsWhatIsInFlight() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CompletableFuture<CompletedCheckpoint> future = coordinator.submit(ALL, new long[] {1},
            CheckpointRequest.Mode.CHECKPOINT, barriers);
        writeParts(lastRequest(), 0);
        coordinator.abandonAll("the engine closed before every partition reached it");
        assertTrue(failure(future).getMessage().contains("checkpoint 0 did not complete: the engine closed before every " +
            "partition reached it"));
    }

    @Test
    void theCloseCheckpointIsConfirmedBeforeAnyCleanCloseRecordAndTheNextStartReopensIt() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CheckpointRequest atClose = coordinator.closeCheckpoint(new long[] {9, 10});
        assertEquals(0, atClose.id);
        writeParts(atClose, 1, 0);
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertFalse(ClosedRecord.exists(coordinator.durable(p).directory), "no record before every part is in");
        }
        writeParts(atClose, 2);
        atClose.future.join();
        assertEquals(0, ConfirmedRecord.readId(root));
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertArrayEquals(new long[] {9, 10}, ClosedRecord.read(coordinator.durable(p).directory, FINGERPRINT));
        }
        final CheckpointCoordinator next = new CheckpointCoordinator(config(), FINGERPRINT);
        assertTrue(start(next), "every partition's record holds the same positions: the state is reopened");
        assertArrayEquals(new long[] {9, 10}, next.restoredPositions());
        assertEquals(-1, next.restoredCheckpointId());
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertFalse(ClosedRecord.exists(next.durable(p).directory), "gone before the first mutation");
        }
    }

    @Test
    void aCleanClosesStateThatDoesNotOpenIsFreedAndRestoredFromCheckpointsNamingBothCauses() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CheckpointRequest atClose = coordinator.closeCheckpoint(new long[] {9});
        writeParts(atClose, 0, 1, 2);
        atClose.future.join();
        final CheckpointCoordinator next = new CheckpointCoordinator(config(), FINGERPRINT);
        final List<Throwable> freed = new ArrayList<>();
        final IllegalStateException damaged = new IllegalStateException("chunk 3 is damaged");
        // The parts were reported, never written: no checkpoint replaces the clean close's state.
        final IOException refused = assertThrows(IOException.class, () -> next.start(() ->
        {
            throw damaged;
        }, freed::add));
        assertEquals(List.of(damaged), freed, "what opened before the failure is freed, once");
        assertTrue(refused.getMessage().startsWith("the state left by a clean close did not open (chunk 3 is damaged) and "),
            refused.getMessage());
        assertEquals(List.of(damaged), List.of(refused.getSuppressed()));
    }

    @Test
    void aFailedCloseCheckpointWritesNoCleanCloseRecord() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        final CheckpointRequest atClose = coordinator.closeCheckpoint(new long[] {9});
        writeParts(atClose, 0, 2);
        atClose.done(1, 0, 0, 0, new IOException("disk full"));
        assertTrue(atClose.future.isCompletedExceptionally());
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertFalse(ClosedRecord.exists(coordinator.durable(p).directory));
        }
        assertEquals(-1, ConfirmedRecord.readId(root));
    }

    @Test
    void cleanCloseRecordsThatDisagreeAreNotReopenedAndWithoutACheckpointTheStartIsRefused() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        ClosedRecord.write(coordinator.durable(0).directory, FINGERPRINT, new long[] {9});
        ClosedRecord.write(coordinator.durable(1).directory, FINGERPRINT, new long[] {8});
        ClosedRecord.write(coordinator.durable(2).directory, FINGERPRINT, new long[] {9});
        final CheckpointCoordinator next = new CheckpointCoordinator(config(), FINGERPRINT);
        final IOException refused = assertThrows(IOException.class, () -> start(next));
        assertTrue(refused.getMessage().contains("no checkpoint complete in every partition of " + root + " is intact " +
            "although a clean close left its record (CLOSED)"), refused.getMessage());
    }

    @Test
    void anotherEnginesRootIsRefusedNamingItsRecord() throws IOException
    {
        started();
        final IOException refused = assertThrows(IOException.class,
            () -> start(new CheckpointCoordinator(config(), FINGERPRINT + 1)));
        assertTrue(refused.getMessage().contains(EngineRecord.file(root) + " says this state root belongs to another engine"),
            refused.getMessage());
    }

    @Test
    void aRestartNumbersCheckpointsAboveTheConfirmedOne() throws IOException
    {
        final CheckpointCoordinator coordinator = started();
        ConfirmedRecord.write(root, 41, new long[] {1});
        // The confirmed checkpoint's parts are gone: nothing intact, and the start refuses to begin empty.
        final IOException refused = assertThrows(IOException.class, () -> start(new CheckpointCoordinator(config(), FINGERPRINT)));
        assertTrue(refused.getMessage().contains("(checkpoint 41 was complete)"), refused.getMessage());
        assertEquals(-1, coordinator.confirmedId());
    }
}
