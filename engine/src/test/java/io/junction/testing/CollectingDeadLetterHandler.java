package io.junction.testing;

import io.junction.api.ChangeKind;
import io.junction.api.DeadLetterHandler;
import io.junction.api.DeadLetterReason;
import io.junction.api.RowView;
import io.junction.api.Schema;
import io.junction.api.Side;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Records every dead letter as an immutable {@link DeadLetter}. */
public final class CollectingDeadLetterHandler implements DeadLetterHandler
{
    private final Schema leftSchema;
    private final Schema rightSchema;
    private final List<DeadLetter> deadLetters = new ArrayList<>();

    public CollectingDeadLetterHandler(final Schema leftSchema, final Schema rightSchema)
    {
        this.leftSchema = leftSchema;
        this.rightSchema = rightSchema;
    }

    @Override
    public void onDeadLetter(
        final Side side, final ChangeKind kind, final RowView row, final long ts, final long step, final DeadLetterReason reason)
    {
        final Schema schema = side == Side.LEFT ? leftSchema : rightSchema;
        deadLetters.add(new DeadLetter(side, kind, row == null ? null : Rows.decode(schema, row), ts, step, reason));
    }

    /** @return every dead letter so far, in order (unmodifiable view). */
    public List<DeadLetter> deadLetters()
    {
        return Collections.unmodifiableList(deadLetters);
    }

    public int size()
    {
        return deadLetters.size();
    }

    public void clear()
    {
        deadLetters.clear();
    }
}
