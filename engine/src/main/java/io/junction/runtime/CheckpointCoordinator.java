package io.junction.runtime;

import io.junction.internal.durable.CheckpointStore;
import io.junction.internal.durable.ClosedRecord;
import io.junction.internal.durable.ConfirmedRecord;
import io.junction.internal.durable.EngineRecord;
import io.junction.internal.io.OwnerOnlyFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The checkpoints of one durable engine, in one place (SEMANTICS 9; the files are described in
 * docs/DURABILITY.md): the choice at start between the state a clean close left and the newest checkpoint
 * complete and intact in every partition, with the fallback to that checkpoint when the operators do not
 * open on the clean close's state; the ids; the barriers, one per partition a request covers, put into the
 * partitions' rings through {@link Barriers} ({@link PartitionRings}); the completion of a request once every
 * partition's part is in; the confirmation of an engine-wide checkpoint ({@link ConfirmedRecord}, written
 * after every partition's manifest: last); the clean close's checkpoint and, after it is confirmed, the
 * partitions' clean-close records ({@link ClosedRecord}); and the failure of what waits on a partition whose
 * thread died. {@code JoinEngine} owns the rings and threads and asks it for all of that; the Kafka runner
 * reaches it through the engine's per-partition calls ({@link JoinEngine#checkpointPartition},
 * {@link JoinEngine#takeOverPartition}, {@link JoinEngine#dropPartition}).
 *
 * <p>A partition's part is a completion callback: the partition thread, on reaching the barrier, writes its
 * part of the checkpoint (or restores) and reports on {@link CheckpointRequest#written},
 * {@link CheckpointRequest#done} or {@link CheckpointRequest#restored}, from whatever thread finishes the
 * part; the last report completes the request (and runs {@link #completed}). Nothing here waits for a
 * partition.
 *
 * <p>Retention: each partition's store keeps the checkpoints from the newest confirmed one at the time a
 * checkpoint was asked for ({@link CheckpointRequest#floor}) and its own newest; with a shared checkpoint
 * root, its newest two complete ones ({@link DurablePartition#checkpoint}).
 *
 * <p>Thread safety: recovery ({@link #start}) runs on the starting thread before the partition threads start; {@link #submit} on the producer's thread;
 * completions on partition threads; {@link #partitionFailed} on a dying partition thread; the close's
 * methods on the closing thread. The ids are atomic, the confirmation is under a lock, the requests in
 * flight a concurrent set.
 */
final class CheckpointCoordinator
{
    private static final System.Logger LOGGER = System.getLogger("io.junction.runtime");

    /** Where the barriers go: the engine's rings. */
    interface Barriers
    {
        /**
         * Puts a barrier of {@code request} into a partition's ring behind the events published so far,
         * waiting while the ring is full.
         *
         * @return the ring sequence it took; {@link Publisher#CLOSED} when the engine is closed,
         *         {@link Publisher#PARTITION_FAILED} when the partition's thread died (nothing was put in).
         */
        long barrier(int partition, CheckpointRequest request);

        /** @return whether the partition's thread died. */
        boolean isFailed(int partition);
    }

    private final EngineConfig config;
    private final DurablePartition[] durables;
    private final long fingerprint;
    private final AtomicLong nextCheckpointId = new AtomicLong();
    /** The newest checkpoint complete in every partition (written to {@link ConfirmedRecord}); -1 before the first. */
    private volatile long confirmedId = -1;
    private final Object confirmLock = new Object();
    private final Set<CheckpointRequest> inFlight = ConcurrentHashMap.newKeySet();
    /** The positions the state was recovered at; null after a fresh start. */
    private long[] restoredPositions;
    private long restoredCheckpointId = -1;

    /**
     * @param config      the engine's configuration, with a state root and the hash seed resolved ({@link HashSeeds#resolve}).
     * @param fingerprint the join's fingerprint.
     */
    CheckpointCoordinator(final EngineConfig config, final long fingerprint)
    {
        this.config = config;
        this.fingerprint = fingerprint;
        durables = new DurablePartition[config.partitions()];
        for (int p = 0; p < durables.length; p++)
        {
            durables[p] = new DurablePartition(config.stateRoot(), config.checkpointRoot(), p, fingerprint);
        }
    }

    /** @return partition {@code p}'s files. */
    DurablePartition durable(final int partition)
    {
        return durables[partition];
    }

    /** @return the positions the state was recovered at (not a copy); null after a fresh start. */
    long[] restoredPositions()
    {
        return restoredPositions;
    }

    /** @return the id of the checkpoint restored at start; -1 after a reopened clean close or a fresh start. */
    long restoredCheckpointId()
    {
        return restoredCheckpointId;
    }

    /** @return the newest checkpoint confirmed complete in every partition; -1 before the first. */
    long confirmedId()
    {
        return confirmedId;
    }

    // ------------------------------------------------------------------------------------------ recovery

    /**
     * Recovers the durable state ({@link #recover}), or, with a shared checkpoint root, empties the scratch state
     * ({@link #startScratch}), and then has the engine open the partitions' operators on it. When the state a
     * clean close left does not open (damaged since?), the operators opened so far are freed and the state is
     * restored from the newest checkpoint instead, and the operators opened again. Reopened state loses its
     * clean-close records before the first mutation ({@link #reopened}).
     *
     * @param openOperators creates every partition's operator on the recovered state; throws when one does not open.
     * @param freeOperators frees the operators opened before the failure it is given, adding its own failures to
     *                      that one as suppressed.
     * @return whether the state a clean close left was reopened as it is.
     * @throws IOException naming the file when the root is another join's, or every complete checkpoint is damaged
     *         (after a clean close's state did not open: naming both causes).
     */
    boolean start(final Runnable openOperators, final Consumer<Throwable> freeOperators) throws IOException
    {
        boolean reopened = config.checkpointRoot() != null ? startScratch() : recover(false);
        try
        {
            openOperators.run();
        }
        catch (final RuntimeException | Error e)
        {
            if (!reopened)
            {
                throw e;
            }
            // The state a clean close left did not open (damaged since?): restore from checkpoints instead.
            LOGGER.log(System.Logger.Level.WARNING, "junction: the state left by a clean close in " + config.stateRoot() +
                " did not open (" + e.getMessage() + "); restoring from the newest checkpoint instead");
            freeOperators.accept(e);
            try
            {
                reopened = recover(true);
            }
            catch (final IOException nothingRestorable)
            {
                // Name both: why the live state was refused (a damaged chunk, say) and why nothing replaces it.
                final IOException refused = new IOException("the state left by a clean close did not open (" +
                    e.getMessage() + ") and " + nothingRestorable.getMessage(), nothingRestorable);
                refused.addSuppressed(e);
                throw refused;
            }
            openOperators.run();
        }
        if (reopened)
        {
            // Before the first mutation: from now on a crash must restore a checkpoint, not trust this state.
            reopened();
        }
        return reopened;
    }

    /** Before the first mutation of reopened state: from now on a crash must restore a checkpoint, not trust it. */
    private void reopened() throws IOException
    {
        for (final DurablePartition durable : durables)
        {
            ClosedRecord.delete(durable.directory);
        }
    }

    /** Checks the root's {@link EngineRecord} against this engine's identity, or writes it when there is none. */
    private void checkIdentity(final Path root, final boolean scratch) throws IOException
    {
        final List<String> found = EngineRecord.read(root);
        if (found == null && !scratch)
        {
            for (final DurablePartition durable : durables)
            {
                if (durable.store().highestId() >= 0 || ClosedRecord.exists(durable.directory))
                {
                    // A fresh identity would carry a new hash seed, which the state's indexes were not built with.
                    throw new IOException(EngineRecord.file(root) + " is missing, but the root holds state (checkpoints or a " +
                        "clean close): the hash seed and join it records are unknown; restore the file from a copy of the " +
                        "root, or start with an empty state directory");
                }
            }
        }
        if (found != null)
        {
            EngineRecord.check(root, found, durables.length, fingerprint);
        }
        if (found == null || scratch)
        {
            EngineRecord.write(root, durables.length, fingerprint, config.state().hashSeed());
        }
    }

    /**
     * Recovers the durable state before the operators open: the state a clean close left (every partition's
     * clean-close record present, at the same positions), else the newest checkpoint complete and intact in
     * every partition, copied into each state directory, else (no checkpoint was ever complete) empty state.
     *
     * @param skipClean restore from checkpoints even where a clean close left state (it did not open).
     * @return whether the state a clean close left is to be reopened as it is.
     * @throws IOException naming the file when the root is another join's, or every complete checkpoint is damaged.
     */
    private boolean recover(final boolean skipClean) throws IOException
    {
        final Path root = OwnerOnlyFiles.createDirectories(config.stateRoot());
        checkIdentity(root, false);
        final long confirmedBefore = ConfirmedRecord.readId(root);
        long highest = confirmedBefore;
        for (final DurablePartition durable : durables)
        {
            highest = Math.max(highest, durable.store().highestId());
        }
        nextCheckpointId.set(highest + 1);
        confirmedId = confirmedBefore;
        boolean anyClosed = false;
        for (final DurablePartition durable : durables)
        {
            anyClosed |= ClosedRecord.exists(durable.directory);
        }

        if (!skipClean)
        {
            final long[] clean = cleanClosePositions();
            if (clean != null)
            {
                restoredPositions = clean;
                for (final DurablePartition durable : durables)
                {
                    durable.linkToNewestCheckpoint();
                }
                return true;
            }
        }
        // Candidates: ids whose manifest is in place in every partition, newest first.
        List<Long> common = null;
        for (final DurablePartition durable : durables)
        {
            final List<Long> ids = durable.store().committedIds();
            if (common == null)
            {
                common = new ArrayList<>(ids);
            }
            else
            {
                common.retainAll(ids);
            }
        }
        final List<String> passedOver = new ArrayList<>();
        for (final long id : common)
        {
            final CheckpointStore.Checkpoint[] checkpoints = new CheckpointStore.Checkpoint[durables.length];
            try
            {
                for (int p = 0; p < durables.length; p++)
                {
                    checkpoints[p] = durables[p].open(id);
                }
            }
            catch (final IOException e)
            {
                passedOver.add("checkpoint " + id + ": " + e.getMessage());
                continue;
            }
            String mismatch = null;
            for (int p = 1; p < durables.length && mismatch == null; p++)
            {
                if (!Arrays.equals(checkpoints[0].positions(), checkpoints[p].positions()))
                {
                    mismatch = "checkpoint " + id + " has other positions in partition " + p + " than in partition 0";
                }
            }
            if (mismatch != null)
            {
                passedOver.add(mismatch);
                continue;
            }
            // Before the state is replaced: clean-close records left beside it must never describe a restored state.
            reopened();
            for (int p = 0; p < durables.length; p++)
            {
                durables[p].restore(checkpoints[p]);
            }
            if (!passedOver.isEmpty())
            {
                LOGGER.log(System.Logger.Level.WARNING, "junction: restoring " + config.stateRoot() + " from checkpoint " + id +
                    "; newer ones passed over: " + String.join("; ", passedOver));
            }
            restoredPositions = checkpoints[0].positions();
            restoredCheckpointId = id;
            confirmedId = Math.max(confirmedBefore, id);
            return false;
        }
        if (confirmedBefore >= 0 || !passedOver.isEmpty() || anyClosed)
        {
            // State existed (a confirmed checkpoint, or a clean close): never start empty in its place.
            throw new IOException("no checkpoint complete in every partition of " + root + " is intact" +
                (confirmedBefore >= 0 ? " (checkpoint " + confirmedBefore + " was complete)" : "") +
                (anyClosed ? " although a clean close left its record (" + ClosedRecord.FILE + ")" : "") + ": " +
                (passedOver.isEmpty() ? "none is left" : String.join("; ", passedOver)) +
                "; the state cannot be recovered: restore the directory from a backup or start with an empty one");
        }
        boolean discarded = false;
        for (final DurablePartition durable : durables)
        {
            discarded |= durable.image.hasFiles();
            durable.clearState();
        }
        if (discarded)
        {
            LOGGER.log(System.Logger.Level.WARNING, "junction: " + root + " holds state of a run that neither closed cleanly " +
                "nor completed a checkpoint: it is discarded and the engine starts empty (restoredPositions() is null)");
        }
        return false;
    }

    /**
     * With a shared checkpoint root the state root is scratch: the engine checks that the root is its own
     * (as {@link #recover} does), records its identity and seed, and empties every partition's state
     * directory (and removes clean-close records, which would describe the deleted state). Partitions get
     * their state later, one at a time ({@link JoinEngine#takeOverPartition}).
     *
     * @return false: nothing is reopened.
     * @throws IOException naming the file when the root is another engine's or cannot be emptied.
     */
    private boolean startScratch() throws IOException
    {
        final Path root = OwnerOnlyFiles.createDirectories(config.stateRoot());
        checkIdentity(root, true);
        boolean discarded = false;
        for (final DurablePartition durable : durables)
        {
            ClosedRecord.delete(durable.directory);
            discarded |= durable.image.hasFiles();
            durable.clearState();
        }
        if (discarded)
        {
            LOGGER.log(System.Logger.Level.INFO, "junction: " + root + " held state of an earlier run: with the shared " +
                "checkpoint root " + config.checkpointRoot() + " every partition starts empty (takeOverPartition restores one)");
        }
        return false;
    }

    /** @return the positions every partition's clean-close record holds, or null unless all hold the same. */
    private long[] cleanClosePositions()
    {
        long[] positions = null;
        for (final DurablePartition durable : durables)
        {
            final long[] closed;
            try
            {
                closed = ClosedRecord.read(durable.directory, fingerprint);
            }
            catch (final IOException e)
            {
                LOGGER.log(System.Logger.Level.WARNING, "junction: " + e.getMessage() + "; restoring from the newest checkpoint");
                return null;
            }
            if (closed == null || (positions != null && !Arrays.equals(positions, closed)))
            {
                return null;
            }
            positions = closed;
        }
        return positions;
    }

    // ------------------------------------------------------------------------------------------ barriers

    /**
     * Asks for a checkpoint or restore of some partitions: creates the request (a checkpoint takes the
     * next id) and puts its barrier into each partition's ring; a partition closed or dead fails its part
     * at once. The partitions go on either way; the future completes once every part is in.
     *
     * @param partitions the partitions, ascending.
     * @param positions  the positions of the cut (a checkpoint, a take-over at positions), else null.
     * @param mode       a checkpoint, or which of the restores.
     * @param barriers   the engine's rings.
     * @return completes when every partition's part is in, or failed.
     */
    CompletableFuture<CompletedCheckpoint> submit(final int[] partitions, final long[] positions,
        final CheckpointRequest.Mode mode, final Barriers barriers)
    {
        final long id = mode != CheckpointRequest.Mode.CHECKPOINT ? -1 : nextCheckpointId.getAndIncrement();
        final CheckpointRequest request = new CheckpointRequest(id, positions, mode, confirmedId, partitions,
            partitions.length != durables.length, this::completed);
        inFlight.add(request);
        for (final int p : partitions)
        {
            final long sequence = barriers.barrier(p, request);
            if (sequence < 0)
            {
                request.failPartition(p, new CheckpointException(sequence == Publisher.CLOSED
                    ? "the engine is closed" : "partition " + p + "'s thread died", null));
                continue;
            }
            if (barriers.isFailed(p))
            {
                // Died while the barrier went in: it never reaches it (the engine may have failed what was in flight before).
                request.failPartition(p, new CheckpointException("partition " + p + "'s thread died", null));
            }
        }
        return request.future;
    }

    /** Runs on the thread of the last partition to report: confirms an engine-wide checkpoint. */
    void completed(final CheckpointRequest request, final boolean failed)
    {
        inFlight.remove(request);
        // With a shared checkpoint root nothing is engine-wide, even a checkpoint of a one-partition engine.
        if (failed || request.restores() || request.partitionOnly || config.checkpointRoot() != null)
        {
            return;
        }
        confirm(request);
    }

    /** Records an engine-wide checkpoint complete in every partition as the newest confirmed one. */
    private void confirm(final CheckpointRequest request)
    {
        synchronized (confirmLock)
        {
            if (request.id <= confirmedId)
            {
                return;
            }
            try
            {
                ConfirmedRecord.write(config.stateRoot(), request.id, request.positions);
            }
            catch (final IOException e)
            {
                throw new CheckpointException("checkpoint " + request.id + " is complete in every partition but " +
                    ConfirmedRecord.file(config.stateRoot()) + " could not be written: " + e, e);
            }
            confirmedId = request.id;
        }
    }

    /** Called on a partition thread as it dies: what waits on that partition would otherwise wait for ever. */
    void partitionFailed(final int partition)
    {
        final CheckpointException why = new CheckpointException("partition " + partition +
            "'s thread died before it reached the barrier", null);
        for (final CheckpointRequest request : inFlight)
        {
            if (request.covers(partition))
            {
                request.failPartition(partition, why);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ close

    /**
     * The clean close's checkpoint of every partition at {@code positions}, for the partitions' shutdown
     * to write ({@link PartitionWorker#closeAt}): confirmed before any clean-close record is written, so a
     * crash after the next start restores the close, not an older cut. Not in flight: the close waits for it.
     *
     * @return the request.
     */
    CheckpointRequest closeCheckpoint(final long[] positions)
    {
        final int[] all = new int[durables.length];
        for (int p = 0; p < all.length; p++)
        {
            all[p] = p;
        }
        final CheckpointRequest atClose = new CheckpointRequest(nextCheckpointId.getAndIncrement(), positions,
            CheckpointRequest.Mode.CHECKPOINT, confirmedId, all, false, this::closeCompleted);
        atClose.future.whenComplete((done, failure) ->
        {
            if (failure != null)
            {
                LOGGER.log(System.Logger.Level.WARNING, "junction: the clean close of " + config.stateRoot() +
                    " wrote no clean-close record (" + failure.getMessage() + "): the next start restores the " +
                    "newest checkpoint complete in every partition");
            }
        });
        return atClose;
    }

    /**
     * Runs on the thread of the last partition to write the clean close's checkpoint: confirms it, then
     * writes every partition's clean-close record, so that a record is never newer than what a crash
     * after the next start would restore.
     */
    private void closeCompleted(final CheckpointRequest request, final boolean failed)
    {
        if (failed)
        {
            return;
        }
        confirm(request);
        for (final DurablePartition durable : durables)
        {
            try
            {
                ClosedRecord.write(durable.directory, fingerprint, request.positions);
            }
            catch (final IOException e)
            {
                throw new CheckpointException("the clean close's checkpoint " + request.id + " is complete but " +
                    ClosedRecord.file(durable.directory) + " could not be written: " + e, e);
            }
        }
    }

    /** At the end of a close: fails what the partitions never reached (their threads stopped first). */
    void abandonAll(final String why)
    {
        for (final CheckpointRequest request : inFlight)
        {
            request.abandon(why);
        }
        inFlight.clear();
    }
}
