package io.junction.join;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The watermarks of a join of N inputs (docs/SEMANTICS.md "Multi-way joins"), as
 * {@code WatermarkTracker} is for two: each input's watermark and idleness, and the join's watermark, the
 * minimum over the active inputs (the greatest when every input is idle), never going backwards. An input's
 * row or watermark makes it active again; an input index outside {@code [0, n)} changes nothing. Owned by the
 * {@link OperatorDriver} of a multi-way join and advanced by its {@link DriverInputs}; its algorithm reads
 * {@link #current()}.
 * <pre>
 * advance(i, w):   input i active; its watermark raised to w        -&gt; whether the join's watermark rose
 * advanceAll(w):   every input active; each raised to w             -&gt; idem
 * markIdle(i):     input i idle                                     -&gt; idem
 * markActive(i):   input i active (a row); the join's watermark is not recomputed until the next advance
 * </pre>
 *
 * <p>Not thread safe: owned by the partition thread.
 */
final class InputWatermarks
{
    private final long[] marks;
    private final boolean[] idle;
    private long current = Long.MIN_VALUE;

    /** @param inputs the join's inputs. */
    InputWatermarks(final int inputs)
    {
        this.marks = new long[inputs];
        Arrays.fill(marks, Long.MIN_VALUE);
        this.idle = new boolean[inputs];
    }

    /** @return the join's watermark. */
    long current()
    {
        return current;
    }

    /** @param input an input whose row arrived: it is active. */
    void markActive(final int input)
    {
        if (input >= 0 && input < marks.length)
        {
            idle[input] = false;
        }
    }

    /**
     * @param input     the input.
     * @param watermark its watermark; a lower one than before is ignored.
     * @return whether the join's watermark moved forward.
     */
    boolean advance(final int input, final long watermark)
    {
        if (input < 0 || input >= marks.length)
        {
            return false;
        }
        idle[input] = false;
        if (watermark > marks[input])
        {
            marks[input] = watermark;
        }
        return recompute();
    }

    /**
     * @param watermark every input's watermark.
     * @return whether the join's watermark moved forward.
     */
    boolean advanceAll(final long watermark)
    {
        for (int i = 0; i < marks.length; i++)
        {
            idle[i] = false;
            if (watermark > marks[i])
            {
                marks[i] = watermark;
            }
        }
        return recompute();
    }

    /**
     * @param input the input that became idle.
     * @return whether the join's watermark moved forward.
     */
    boolean markIdle(final int input)
    {
        if (input < 0 || input >= marks.length)
        {
            return false;
        }
        idle[input] = true;
        return recompute();
    }

    private boolean recompute()
    {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        boolean anyActive = false;
        for (int i = 0; i < marks.length; i++)
        {
            max = Math.max(max, marks[i]);
            if (!idle[i])
            {
                anyActive = true;
                min = Math.min(min, marks[i]);
            }
        }
        final long candidate = anyActive ? min : max;
        if (candidate > current)
        {
            current = candidate;
            return true;
        }
        return false;
    }

    /** @return the bytes {@link #save} writes. */
    int savedLength()
    {
        return Integer.BYTES + marks.length * (Long.BYTES + 1) + Long.BYTES;
    }

    /** @param out the heap image: the inputs' count, each input's watermark and idleness, the join's watermark. */
    void save(final ByteBuffer out)
    {
        out.putInt(marks.length);
        for (int i = 0; i < marks.length; i++)
        {
            out.putLong(marks[i]).put((byte)(idle[i] ? 1 : 0));
        }
        out.putLong(current);
    }

    /** @param in what {@link #save} wrote. */
    void load(final ByteBuffer in)
    {
        final int inputs = in.getInt();
        if (inputs != marks.length)
        {
            throw new DurableStateException("the state holds the watermarks of " + inputs + " inputs, the join has " + marks.length);
        }
        for (int i = 0; i < marks.length; i++)
        {
            marks[i] = in.getLong();
            idle[i] = in.get() != 0;
        }
        current = in.getLong();
    }
}
