package io.junction.runtime;

/**
 * A checkpoint, a restore or a recovery of durable state failed. The message names the partition, the
 * file and what was wrong with it (a flipped byte, a truncated or zero-length file, another join's
 * state). A failed checkpoint fails as a whole: the partitions go on processing, and the previous
 * complete checkpoint is still the one a restart restores.
 */
public final class CheckpointException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the partition and file.
     * @param cause   the first failure underneath, or null.
     */
    public CheckpointException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
