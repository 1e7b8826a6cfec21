package io.junction.json;

/**
 * Input text that is not what the replay format allows (SEMANTICS 1): a nested row value, a number JSON
 * cannot carry into a row, a missing or mistyped event field. A checked exception, so that the
 * replay cannot forget to turn each one into a dead-letter line instead of stopping the run.
 */
public final class BadInputException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message the reason, naming the offending field
     */
    public BadInputException(final String message)
    {
        super(message);
    }
}
