package io.junction.json;

/**
 * A join spec file that SEMANTICS 1 rejects: unknown field, missing required field, key arity mismatch,
 * unknown op, wrong type. The message starts with the path of the offending field
 * ({@code leftFilter[0].op: ...}) so that a user can find it without reading the parser.
 */
public final class JoinSpecException extends IllegalArgumentException
{
    private static final long serialVersionUID = 1L;

    /** Path of the offending field, e.g. {@code interval.lower}. */
    private final String field;

    /**
     * @param field  path of the offending field, e.g. {@code interval.lower}
     * @param reason what is wrong with it
     */
    public JoinSpecException(final String field, final String reason)
    {
        super(field + ": " + reason);
        this.field = field;
    }

    /** @return path of the offending field, e.g. {@code interval.lower} */
    public String field()
    {
        return field;
    }
}
