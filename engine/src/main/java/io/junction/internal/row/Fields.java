package io.junction.internal.row;

import io.junction.api.Schema;

/**
 * Resolves field names of a spec against a schema, with errors that name the spec's field: the same message as
 * the api's build-time check of the spec (which may not import this package), so a built spec always resolves.
 */
public final class Fields
{
    private Fields()
    {
    }

    /**
     * @param what the spec field being resolved, for the error message (for example {@code leftKey}).
     * @return the index of {@code field} in {@code schema}.
     * @throws IllegalArgumentException naming {@code what} when the schema has no such field.
     */
    public static int resolve(final Schema schema, final String field, final String what)
    {
        final int index = schema.indexOf(field);
        if (index < 0)
        {
            throw new IllegalArgumentException(what + ": unknown field '" + field + "' (schema has " + schema + ")");
        }
        return index;
    }
}
