package io.junction.api;

/** The two inputs of a join. */
public enum Side
{
    /** The left input (the first in a spec: {@code leftKey}, {@code leftFilter}). */
    LEFT,
    /** The right input. */
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
