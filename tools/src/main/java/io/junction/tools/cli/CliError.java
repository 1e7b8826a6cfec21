package io.junction.tools.cli;

/**
 * An error a command reports to its user as one line, {@code junction COMMAND: MESSAGE}, with its own
 * exit status: no exception class name, no stack trace (the command line's execution-exception
 * handler prints it; {@link io.junction.tools.JunctionCli}).
 */
public final class CliError extends RuntimeException
{
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    /**
     * @param exitCode the command's exit status
     * @param message  what went wrong, for the user
     */
    public CliError(final int exitCode, final String message)
    {
        super(message);
        this.exitCode = exitCode;
    }

    /** @return the command's exit status */
    public int exitCode()
    {
        return exitCode;
    }
}
