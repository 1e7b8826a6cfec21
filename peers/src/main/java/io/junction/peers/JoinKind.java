package io.junction.peers;

import java.util.Locale;

/** Inner or left-outer join. */
enum JoinKind
{
    INNER, LEFT;

    static JoinKind parse(final String s)
    {
        return valueOf(s.trim().toUpperCase(Locale.ROOT));
    }

    String label()
    {
        return name().toLowerCase(Locale.ROOT);
    }
}
