package io.junction.api;

/** The two inputs of a join. */
public enum Side
{
    LEFT,
    RIGHT;

    /** @return the other input. */
    public Side other()
    {
        return this == LEFT ? RIGHT : LEFT;
    }

    /** @return {@code "left"} or {@code "right"}, as the replay format spells it. */
    public String jsonName()
    {
        return this == LEFT ? "left" : "right";
    }
}
