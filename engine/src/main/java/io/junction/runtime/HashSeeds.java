package io.junction.runtime;

import io.junction.internal.durable.EngineRecord;
import io.junction.internal.durable.SeedRecord;
import io.junction.join.StateConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;

/**
 * The key-hash seed a durable engine starts with: the one its state was written with, read before anything
 * else at start (routing and every partition's index use it). The state root's {@link EngineRecord} keeps it,
 * or, with a shared checkpoint root, the group's {@link SeedRecord}; a fixed seed configured otherwise is
 * refused. Runs on the starting thread; the shared root's file is created atomically, so racing processes end
 * with the one file that won.
 */
final class HashSeeds
{
    private HashSeeds()
    {
    }

    /**
     * Durable state is keyed and partitioned by the key hash: a restart must use the seed the state was
     * written with, which the root's {@link EngineRecord} records (with a shared checkpoint root: the
     * group's {@link SeedRecord}). A different fixed seed is refused.
     *
     * @return the state config with the recorded seed; as configured when there is none (or no state root).
     */
    static StateConfig resolve(final EngineConfig config)
    {
        if (config.checkpointRoot() != null)
        {
            return sharedHashSeed(config);
        }
        final StateConfig state = config.state();
        if (config.stateRoot() == null)
        {
            return state;
        }
        final List<String> found;
        try
        {
            found = EngineRecord.read(config.stateRoot());
        }
        catch (final IOException e)
        {
            throw new CheckpointException("junction: cannot recover the durable state in " + config.stateRoot() + ": " +
                e.getMessage(), e);
        }
        if (!EngineRecord.hasHashSeed(found))
        {
            return state;
        }
        final long seed = EngineRecord.hashSeed(found);
        if (state.hasFixedHashSeed() && state.hashSeed() != seed)
        {
            throw new CheckpointException("junction: " + EngineRecord.file(config.stateRoot()) + " was written with another " +
                "key-hash seed than the fixed one configured (" + StateConfig.HASH_SEED_PROP_NAME + "): durable state is " +
                "keyed by it; remove the setting", null);
        }
        return state.withHashSeed(seed);
    }

    /**
     * The seed of a shared checkpoint root: the one in its {@link SeedRecord}, which the first process to
     * start creates (atomically: racing processes end with the one file that won).
     */
    private static StateConfig sharedHashSeed(final EngineConfig config)
    {
        final StateConfig state = config.state();
        if (config.stateRoot() == null)
        {
            throw new IllegalArgumentException("a checkpoint root (" + EngineConfig.CHECKPOINT_DIR_PROP_NAME + ") needs a " +
                "state root (" + EngineConfig.STATE_DIR_PROP_NAME + ", EngineConfig.withStateRoot) for each process's scratch state");
        }
        if (config.checkpointEveryEvents() > 0 || !config.checkpointInterval().isZero())
        {
            throw new IllegalArgumentException("interval checkpoints (" + EngineConfig.CHECKPOINT_EVERY_EVENTS_PROP_NAME + ", " +
                EngineConfig.CHECKPOINT_INTERVAL_PROP_NAME + ") are engine-wide: with a checkpoint root (" +
                EngineConfig.CHECKPOINT_DIR_PROP_NAME + ") checkpoint partitions with checkpointPartition");
        }
        final Path file = SeedRecord.file(config.checkpointRoot());
        try
        {
            final long seed = SeedRecord.readOrCreate(config.checkpointRoot(),
                () -> state.hasFixedHashSeed() ? state.hashSeed() : new SecureRandom().nextLong());
            if (state.hasFixedHashSeed() && state.hashSeed() != seed)
            {
                throw new CheckpointException("junction: the checkpoint root's seed file " + file + " holds another key-hash " +
                    "seed than the fixed one configured (" + StateConfig.HASH_SEED_PROP_NAME + "): every process of the group " +
                    "keys its state with the file's; remove the setting", null);
            }
            return state.withHashSeed(seed);
        }
        catch (final IOException | NumberFormatException e)
        {
            throw new CheckpointException("junction: cannot read the key-hash seed of the checkpoint root " +
                config.checkpointRoot() + ": " + e.getMessage(), e);
        }
    }
}
