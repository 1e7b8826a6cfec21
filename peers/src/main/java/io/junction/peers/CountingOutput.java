package io.junction.peers;

import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.OutputTag;

/**
 * The operator's output in place of the test harness's MockOutput (which deep-copies every record through a
 * serializer into a queue): counts records, like a discarding sink chained to the join. For SQL rows it also
 * counts the -D (retraction) rows, so a changelog can be told apart from an append-only result.
 *
 * @param <T> record type
 */
final class CountingOutput<T> implements Output<StreamRecord<T>>
{
    long records;
    long deletes;
    long watermarks;
    private final boolean rowKinds;

    /** @param rowKinds whether records are {@link RowData} whose {@link RowKind} is counted */
    CountingOutput(final boolean rowKinds)
    {
        this.rowKinds = rowKinds;
    }

    @Override
    public void collect(final StreamRecord<T> record)
    {
        records++;
        if (rowKinds && ((RowData) record.getValue()).getRowKind() == RowKind.DELETE)
        {
            deletes++;
        }
    }

    @Override
    public <X> void collect(final OutputTag<X> outputTag, final StreamRecord<X> record)
    {
        // late-data side outputs: none in these workloads (input is in event-time order)
    }

    @Override
    public void emitWatermark(final Watermark mark)
    {
        watermarks++;
    }

    @Override
    public void emitWatermarkStatus(final WatermarkStatus watermarkStatus)
    {
    }

    @Override
    public void emitLatencyMarker(final LatencyMarker latencyMarker)
    {
    }

    @Override
    public void emitRecordAttributes(final RecordAttributes recordAttributes)
    {
    }

    @Override
    public void close()
    {
    }
}
