package io.junction.api;

/** The two inputs of a join. */
public enum Side
{
    /** The left input (the first in a spec: {@code leftKey}, {@code leftFilter}). */
    LEFT,
    /** The right input. */
    RIGHT;

    /**
     * @param input an input's index: 0 for the left input, anything else for the right.
     * @return the side of that input of a two-sided join, without a lookup in {@code values()}.
     */
    public static Side of(final int input)
    {
        return input == 0 ? LEFT : RIGHT;
    }

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
