package io.junction.join;

/**
 * Thrown when an operator is created on a state directory whose files it must not reopen: not closed
 * cleanly, written for another join or another state layout, by another format version, truncated or
 * damaged. The message names the offending file. Nothing in the directory has been created or changed
 * when it is thrown; restore the directory from a checkpoint (or empty it to start over).
 *
 * <p>Thrown too when the files of a fresh state cannot be created or given their first length (a full
 * disk): the message names the file and the disk's error. The files made so far are released, not
 * removed: the engine's next start on its root, once there is room, discards them (the state of a run that
 * completed no checkpoint) and starts afresh.
 */
public final class DurableStateException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what is wrong, naming the file, and what to do.
     */
    public DurableStateException(final String message)
    {
        super(message);
    }

    /**
     * @param message what is wrong, naming the file, and what to do.
     * @param cause   the error that revealed it.
     */
    public DurableStateException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
