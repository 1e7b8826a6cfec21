package io.junction.runtime;

import io.junction.api.JoinSpec;
import io.junction.api.RowCodec;
import io.junction.api.Side;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;

/**
 * A publisher's typed layer ({@link Publisher#publish(Side, io.junction.api.ChangeKind, io.junction.api.Row, long, long)}):
 * the codec of each input and the one slot-sized buffer rows given as objects are encoded into, all made on
 * first use, so that a publisher of binary rows never holds them. Owned by the publisher's thread.
 */
final class TypedRows
{
    private final JoinSpec spec;
    private final int slotCapacity;
    private UnsafeBuffer typedRow;
    private RowCodec leftCodec;
    private RowCodec rightCodec;
    /** A multi-way join's codec per input. */
    private RowCodec[] inputCodecs;

    TypedRows(final JoinSpec spec, final int slotCapacity)
    {
        this.spec = spec;
        this.slotCapacity = slotCapacity;
    }

    /** @return the buffer rows are encoded into, a ring slot's size; valid after a codec was asked for. */
    UnsafeBuffer buffer()
    {
        return typedRow;
    }

    /** @return a binary kind's codec of one side. */
    RowCodec codec(final Side side)
    {
        if (typedRow == null)
        {
            typedRow = new UnsafeBuffer(ByteBuffer.allocateDirect(slotCapacity));
            leftCodec = new RowCodec(spec.leftSchema());
            rightCodec = new RowCodec(spec.rightSchema());
        }
        return side == Side.LEFT ? leftCodec : rightCodec;
    }

    /** @return a multi-way join's codec of one of its inputs. */
    RowCodec codec(final int input)
    {
        codec(Side.LEFT);
        if (inputCodecs == null)
        {
            inputCodecs = new RowCodec[spec.multi().inputs()];
            for (int i = 0; i < inputCodecs.length; i++)
            {
                inputCodecs[i] = new RowCodec(spec.multi().schema(i));
            }
        }
        return inputCodecs[input];
    }
}
