package io.junction.runtime;

import io.junction.internal.cut.StagedCut;
import io.junction.internal.durable.CheckpointFiles;
import io.junction.internal.durable.CheckpointStore;
import io.junction.internal.durable.ChunkSums;
import io.junction.internal.durable.StateImage;
import io.junction.internal.io.OwnerOnlyFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.ArrayDeque;

/**
 * The files of one partition in durable mode:
 * <pre>
 *   root/partition-P/state/          the operator's files (nobody else writes there)
 *   root/partition-P/checkpoints/    chk-ID/ directories ({@link CheckpointStore}, chunks by {@link StateImage})
 *   root/partition-P/CLOSED          written by a clean close once its checkpoint (at the same positions) is
 *                                    confirmed: the positions its state resumes from
 * </pre>
 * Used by the partition's thread (checkpoint, restore, clean close), by its background writer while a
 * staged cut is written ({@link CheckpointWriter}: the partition thread waits for that write before it uses
 * this again) and, before the threads start and after they stop (the writer's write done), by the engine's
 * recovery: never by two threads at once.
 */
final class DurablePartition
{
    private static final System.Logger LOGGER = System.getLogger("io.junction.runtime");
    static final String STATE = "state";
    static final String CHECKPOINTS = "checkpoints";
    static final String CLOSED = "CLOSED";

    final int partition;
    final Path directory;
    final long fingerprint;
    final StateImage image;
    /**
     * The sums the last restore returned, until the operator's reopen takes them ({@link #takeRestoredSums});
     * null otherwise. Touched by the thread that restores and then creates the operator (the engine's at
     * start, before the partition thread starts; the partition's after a take-over).
     */
    private byte[] restoredSums;
    /** Where the checkpoints live: under the partition's directory, or under a shared checkpoint root. */
    final Path checkpointsDirectory;
    /** The checkpoints are in a shared checkpoint root, written by other processes too. */
    final boolean shared;
    private CheckpointStore store;
    /** The newest checkpoint this partition wrote or was restored from, which per-partition pruning keeps. */
    private long ownNewest = -1;
    /** Ids of the checkpoints of this partition alone written by this process, oldest first. */
    private final ArrayDeque<Long> partitionOnlyIds = new ArrayDeque<>();

    DurablePartition(final Path root, final int partition, final long fingerprint)
    {
        this(root, null, partition, fingerprint);
    }

    /**
     * @param checkpointRoot a shared checkpoint root: the checkpoints live in
     *                       {@code <checkpointRoot>/partition-P/checkpoints/}; null for under {@code root}.
     */
    DurablePartition(final Path root, final Path checkpointRoot, final int partition, final long fingerprint)
    {
        this.partition = partition;
        this.directory = root.resolve("partition-" + partition);
        this.shared = checkpointRoot != null;
        this.checkpointsDirectory = (checkpointRoot == null ? directory : checkpointRoot.resolve("partition-" + partition))
            .resolve(CHECKPOINTS);
        this.fingerprint = fingerprint;
        this.image = new StateImage(directory.resolve(STATE));
    }

    Path stateDirectory()
    {
        return image.stateDirectory();
    }

    CheckpointStore store() throws IOException
    {
        if (store == null)
        {
            OwnerOnlyFiles.createDirectories(checkpointsDirectory.getParent());
            store = new CheckpointStore(checkpointsDirectory);
        }
        return store;
    }

    /**
     * Copies the state directory (just persisted) into checkpoint {@code id}, then deletes the checkpoints
     * older than {@code floor} (the newest one complete in every partition when the checkpoint was asked
     * for), except this partition's newest own one. With a shared checkpoint root the id is raised above
     * every id in the partition's store (other processes wrote there), and the newest two complete
     * checkpoints of the partition are kept.
     *
     * @return the id the checkpoint was written with.
     */
    long checkpoint(final long requestedId, final long[] positions, final long floor, final boolean partitionOnly) throws IOException
    {
        return checkpoint(requestedId, positions, floor, partitionOnly, null);
    }

    /**
     * As {@link #checkpoint(long, long[], long, boolean)}, the state taken from a staged cut (the background
     * writer's, {@link CheckpointWriter}) instead of the state directory, when {@code cut} is not null.
     *
     * @return the id the checkpoint was written with.
     */
    long checkpoint(final long requestedId, final long[] positions, final long floor, final boolean partitionOnly,
        final StagedCut cut) throws IOException
    {
        final long id = shared ? Math.max(requestedId, store().highestId() + 1) : requestedId;
        final CheckpointFiles writer = store().begin(id, fingerprint, positions);
        try
        {
            if (cut == null)
            {
                image.write(writer, writer.directory());
            }
            else
            {
                image.write(writer, writer.directory(), cut);
            }
            writer.commit(false);
        }
        catch (final IOException | RuntimeException | Error e)
        {
            image.aborted();
            try
            {
                writer.abort();
            }
            catch (final IOException suppressed)
            {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        image.committed();
        final long keptOwn = ownNewest;
        ownNewest = id;
        if (shared)
        {
            pruneShared(id, keptOwn);
            return id;
        }
        if (partitionOnly)
        {
            partitionOnlyIds.addLast(id);
        }
        // Checkpoints of this partition alone (which no engine-wide restore uses) beyond the newest two go,
        // so that a partition checkpointed alone again and again does not pile them up above the floor.
        final Set<Long> dropped = new HashSet<>();
        while (partitionOnlyIds.size() > 2)
        {
            dropped.add(partitionOnlyIds.removeFirst());
        }
        final Set<Long> keep = new HashSet<>();
        for (final long candidate : store.committedIds())
        {
            if ((candidate >= floor && !dropped.contains(candidate)) || candidate == keptOwn || candidate == id)
            {
                keep.add(candidate);
            }
        }
        // Directories without a manifest above the floor may be checkpoints of this partition still being
        // written by nobody (a crash): they are older than id, so not in flight; only complete ones count.
        store.retainOnly(keep);
        return id;
    }

    /**
     * Keeps the newest two complete checkpoints of the partition (the one just written and one to fall
     * back to), the one this partition was restored from or wrote before this one ({@code previousOwn}),
     * and anything newer than the one written (another process's, in flight); deletes the rest. Keeping
     * the previous own one matters to a caller that commits its input positions after each checkpoint
     * (the Kafka runner's exactly-once mode): when a process restored checkpoint A (the committed one)
     * while a newer B had been written but never committed, its next checkpoint C must not prune A
     * before C is committed.
     */
    private void pruneShared(final long written, final long previousOwn) throws IOException
    {
        final Set<Long> keep = new HashSet<>();
        keep.add(written);
        if (previousOwn >= 0)
        {
            keep.add(previousOwn);
        }
        int complete = 0;
        for (final long candidate : store.committedIds())
        {
            if (candidate > written || complete < 2)
            {
                keep.add(candidate);
            }
            if (candidate <= written)
            {
                complete++;
            }
        }
        for (final long candidate : store.allIds())
        {
            if (candidate > written)
            {
                keep.add(candidate);
            }
        }
        store.retainOnly(keep);
    }

    /** @return whether the partition's store holds any checkpoint whose manifest is in place (intact or not). */
    boolean hasCheckpoints() throws IOException
    {
        return !store().committedIds().isEmpty();
    }

    /** @return the newest complete checkpoint of this partition, verified; null when there is none. */
    CheckpointStore.Checkpoint newest() throws IOException
    {
        image.beginRestore();
        return store().latest(fingerprint, null, image.reads());
    }

    /**
     * Opens checkpoint {@code id} of this partition for a restore: verified as far as the restore reads it
     * (the chunks that differ from the live state's, {@link StateImage#reads()}).
     */
    CheckpointStore.Checkpoint open(final long id) throws IOException
    {
        image.beginRestore();
        return store().open(id, fingerprint, image.reads());
    }

    /**
     * @return the newest intact checkpoint of this partition whose positions equal {@code positions};
     *         null when there is none.
     */
    CheckpointStore.Checkpoint at(final long[] positions) throws IOException
    {
        image.beginRestore();
        return store().latest(fingerprint, positions, image.reads());
    }

    /**
     * Makes the state directory a verified checkpoint's content, writing only the chunks that differ from
     * it; live chunks found damaged (their sums not those recorded at the last persist) are restored and
     * named in a warning.
     */
    void restore(final CheckpointStore.Checkpoint checkpoint) throws IOException
    {
        restoredSums = null;
        restoredSums = ChunkSums.encode(image.restore(checkpoint));
        ownNewest = checkpoint.id;
        final List<String> damaged = image.restoreDamaged();
        if (!damaged.isEmpty())
        {
            LOGGER.log(System.Logger.Level.WARNING, "junction: partition " + partition + " restored from " + checkpoint.directory +
                " over damaged live state: " + String.join("; ", damaged));
        }
    }

    /** After a reopen: the next checkpoint links the chunks that did not change since the newest one on disk. */
    void linkToNewestCheckpoint() throws IOException
    {
        final List<Long> committed = store().committedIds();
        if (!committed.isEmpty())
        {
            image.linkNextTo(store.directoryOf(committed.get(0)));
        }
    }

    /**
     * Takes the sums of the state directory as the last {@link #restore} wrote and verified it, for the
     * operator's reopen that follows ({@link io.junction.join.StateConfig#withRestoredChunkSums}); taken once.
     * Called by the thread that restored (the engine's at start, the partition's after a take-over), before
     * anything else changes the directory.
     *
     * @return the sums in {@link ChunkSums}' encoding, or null when nothing was restored since the last take.
     */
    byte[] takeRestoredSums()
    {
        final byte[] taken = restoredSums;
        restoredSums = null;
        return taken;
    }

    /** Empties the state directory (a fresh start) and forgets any previous checkpoint's chunks. */
    void clearState() throws IOException
    {
        restoredSums = null;
        image.clear();
        image.forgetPrevious();
        ownNewest = -1;
        OwnerOnlyFiles.createDirectories(stateDirectory());
    }

    long ownNewest()
    {
        return ownNewest;
    }
}
