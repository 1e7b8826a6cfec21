package io.junction.join;

import io.junction.api.Side;
import io.junction.internal.state.RowDescriptor;
import io.junction.internal.time.WatermarkTracker;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The state and the time package name a side by its index (they may not import {@code api.Side}:
 * docs/ARCHITECTURE.md, "Layering"), and the operators pass {@code side.ordinal()}: the two must agree, and the
 * record's side byte means what it always meant (durable state reopens unchanged).
 */
final class SideIndexTest
{
    @Test
    void theStatesSideIndicesAreTheOrdinalsOfSide()
    {
        assertEquals(2, Side.values().length);
        assertEquals(0, Side.LEFT.ordinal());
        assertEquals(Side.LEFT.ordinal(), RowDescriptor.LEFT);
        assertEquals(Side.RIGHT.ordinal(), RowDescriptor.RIGHT);
        assertEquals(Side.LEFT.ordinal(), WatermarkTracker.LEFT);
        assertEquals(Side.RIGHT.ordinal(), WatermarkTracker.RIGHT);
    }
}
