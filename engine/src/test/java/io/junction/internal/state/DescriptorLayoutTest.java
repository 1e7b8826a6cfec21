package io.junction.internal.state;

import io.junction.internal.time.TimerWheelImage;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import io.junction.internal.durable.ClosedRecord;
import io.junction.internal.durable.ConfirmedRecord;
import io.junction.internal.durable.EngineRecord;
import io.junction.internal.durable.SeedRecord;

/** The descriptors' offsets, derived field by field from sizes, land where their diagrams and the code need them. */
class DescriptorLayoutTest
{
    @Test
    void rowRecordHeaderIsTheDocumentedLayout()
    {
        assertEquals(0, RowDescriptor.BUCKET_OFFSET);
        assertEquals(8, RowDescriptor.TS_OFFSET);
        assertEquals(16, RowDescriptor.COUNT_OFFSET);
        assertEquals(20, RowDescriptor.GROUP_INDEX_OFFSET);
        assertEquals(24, RowDescriptor.ROW_LENGTH_OFFSET);
        assertEquals(26, RowDescriptor.KEY_LENGTH_OFFSET);
        assertEquals(28, RowDescriptor.FLAGS_OFFSET);
        assertEquals(29, RowDescriptor.SIDE_OFFSET);
        // The key bytes follow the header in an 8-aligned record: the header keeps them aligned.
        assertEquals(32, RowDescriptor.BASE_HEADER_LENGTH);
        assertEquals(32, RowDescriptor.TIMER_PREV_OFFSET);
        assertEquals(40, RowDescriptor.TIMER_NEXT_OFFSET);
        assertEquals(48, RowDescriptor.DEADLINE_OFFSET);
        assertEquals(56, RowDescriptor.TIMED_HEADER_LENGTH);
        assertEquals(0, RowDescriptor.TIMED_HEADER_LENGTH % NativeArena.ALIGNMENT);
        assertEquals(RowDescriptor.BASE_HEADER_LENGTH, RowDescriptor.headerLength(false));
        assertEquals(RowDescriptor.TIMED_HEADER_LENGTH, RowDescriptor.headerLength(true));
    }

    @Test
    void bucketIsTheDocumentedLayout()
    {
        assertEquals(0, BucketDescriptor.HASH_OFFSET);
        assertEquals(8, BucketDescriptor.LEFT_ROWS_OFFSET);
        assertEquals(16, BucketDescriptor.RIGHT_ROWS_OFFSET);
        assertEquals(24, BucketDescriptor.LEFT_COUNT_OFFSET);
        // isEmpty reads both counts as one aligned i64.
        assertEquals(BucketDescriptor.LEFT_COUNT_OFFSET + Integer.BYTES, BucketDescriptor.RIGHT_COUNT_OFFSET);
        assertEquals(0, BucketDescriptor.LEFT_COUNT_OFFSET % Long.BYTES);
        assertEquals(32, BucketDescriptor.LENGTH);
    }

    @Test
    void rowGroupArrayIsTheDocumentedLayout()
    {
        assertEquals(0, RowGroup.CAPACITY_OFFSET);
        assertEquals(4, RowGroup.USED_OFFSET);
        assertEquals(8, RowGroup.SLOTS_OFFSET);
        assertEquals(8, RowGroup.SLOT_LENGTH);
        // The tag lives in a bit that an 8-aligned address never sets.
        assertEquals(0, RowGroup.ARRAY_TAG & -NativeArena.ALIGNMENT);
    }

    @Test
    void multiJoinRecordIsTheDocumentedLayout()
    {
        assertEquals(0, MultiRowDescriptor.TS_OFFSET);
        assertEquals(8, MultiRowDescriptor.ROW_LENGTH_OFFSET);
        assertEquals(10, MultiRowDescriptor.INPUT_OFFSET);
        assertEquals(11, MultiRowDescriptor.FLAGS_OFFSET);
        assertEquals(12, MultiRowDescriptor.QUEUE_INDEX_OFFSET);
        // The row bytes follow the header in an 8-aligned record.
        assertEquals(16, MultiRowDescriptor.HEADER_LENGTH);
        assertEquals(0, MultiRowDescriptor.HEADER_LENGTH % NativeArena.ALIGNMENT);
        // W7's row of four longs (46 bytes) takes 64 bytes of arena.
        assertEquals(64, NativeArena.alignedSize(MultiRowDescriptor.recordLength(46)));
    }

    @Test
    void multiJoinBucketAndGroupArrayAreTheDocumentedLayout()
    {
        // A standard bucket's header (the key index, its reopen checks and the hot-key report read it), then the groups.
        assertEquals(BucketDescriptor.LEFT_ROWS_OFFSET, MultiBucketDescriptor.LINK_OFFSET);
        assertEquals(BucketDescriptor.LENGTH, MultiBucketDescriptor.GROUPS_OFFSET);
        assertEquals(32, MultiBucketDescriptor.GROUPS_OFFSET);
        assertEquals(8, MultiBucketDescriptor.GROUP_LENGTH);
        assertEquals(BucketDescriptor.RIGHT_ROWS_OFFSET, MultiBucketDescriptor.groupOffset(0));
        assertEquals(16, MultiBucketDescriptor.groupOffset(0));
        assertEquals(32, MultiBucketDescriptor.groupOffset(1));
        assertEquals(48, MultiBucketDescriptor.groupOffset(3));
        assertEquals(40, MultiBucketDescriptor.length(2));
        assertEquals(56, MultiBucketDescriptor.length(4));
        assertEquals(152, MultiBucketDescriptor.length(16));
        assertEquals(0, MultiBucketDescriptor.UNMATCHABLE & -NativeArena.ALIGNMENT);
        assertEquals(0, MultiBucketDescriptor.CAPACITY_OFFSET);
        assertEquals(4, MultiBucketDescriptor.SIZE_OFFSET);
        assertEquals(8, MultiBucketDescriptor.SLOTS_OFFSET);
        assertEquals(8, MultiBucketDescriptor.SLOT_LENGTH);
        assertEquals(40, MultiBucketDescriptor.arrayLength(4));
        assertEquals(0, MultiBucketDescriptor.ARRAY_TAG & -NativeArena.ALIGNMENT);
    }

    @Test
    void stateRootRecordsAreTheDocumentedLines()
    {
        assertEquals(0, EngineRecord.HEADER_LINE);
        assertEquals(1, EngineRecord.PARTITIONS_LINE);
        assertEquals(2, EngineRecord.FINGERPRINT_LINE);
        assertEquals(3, EngineRecord.IDENTITY_LINES);
        assertEquals(3, EngineRecord.HASH_SEED_LINE);
        assertEquals(4, EngineRecord.LINES);
        assertEquals(0, ConfirmedRecord.HEADER_LINE);
        assertEquals(1, ConfirmedRecord.ID_LINE);
        assertEquals(2, ConfirmedRecord.POSITIONS_LINE);
        assertEquals(3, ConfirmedRecord.LINES);
        assertEquals(0, SeedRecord.HEADER_LINE);
        assertEquals(1, SeedRecord.HASH_SEED_LINE);
        assertEquals(2, SeedRecord.LINES);
        assertEquals(0, ClosedRecord.HEADER_LINE);
        assertEquals(1, ClosedRecord.FINGERPRINT_LINE);
        assertEquals(2, ClosedRecord.POSITIONS_LINE);
        assertEquals(3, ClosedRecord.LINES);
    }

    @Test
    void windowBucketIsTheDocumentedLayout()
    {
        // The standard bucket, then the bucket's own timer links, flags and window: the window kinds' durable bucket.
        assertEquals(32, WindowBucketDescriptor.TIMER_PREV_OFFSET);
        assertEquals(40, WindowBucketDescriptor.TIMER_NEXT_OFFSET);
        assertEquals(48, WindowBucketDescriptor.DEADLINE_OFFSET);
        assertEquals(56, WindowBucketDescriptor.FLAGS_OFFSET);
        assertEquals(64, WindowBucketDescriptor.WINDOW_START_OFFSET);
        assertEquals(72, WindowBucketDescriptor.WINDOW_END_OFFSET);
        assertEquals(80, WindowBucketDescriptor.LENGTH);
        assertEquals(0, WindowBucketDescriptor.LENGTH % NativeArena.ALIGNMENT);
        assertEquals(16, WindowBucketDescriptor.WINDOW_SUFFIX);
        assertEquals(0, WindowBucketDescriptor.SUFFIX_START_OFFSET);
        assertEquals(8, WindowBucketDescriptor.SUFFIX_END_OFFSET);
        // One bit each.
        assertEquals(1, WindowBucketDescriptor.SCHEDULED);
        assertEquals(2, WindowBucketDescriptor.SUMMARY);
        assertEquals(4, WindowBucketDescriptor.SINGLE);
        assertEquals(8, WindowBucketDescriptor.MIXED);
    }

    @Test
    void coGroupStageIsTheDocumentedLayout()
    {
        assertEquals(0, CoGroupStageDescriptor.LEFT_RECORD_OFFSET);
        assertEquals(1, CoGroupStageDescriptor.RIGHT_RECORD_OFFSET);
        assertEquals(2, CoGroupStageDescriptor.ROW_OFFSET_OFFSET);
        assertEquals(3, CoGroupStageDescriptor.ROW_LENGTH_OFFSET);
        assertEquals(4, CoGroupStageDescriptor.WIDTH);
        assertEquals(64, CoGroupStageDescriptor.length(16));
        final long[] stage = new long[CoGroupStageDescriptor.length(2)];
        CoGroupStageDescriptor.put(stage, 1, 11, 12, CoGroupStageDescriptor.NO_ROW, 0);
        assertEquals(11, CoGroupStageDescriptor.leftRecord(stage, 1));
        assertEquals(12, CoGroupStageDescriptor.rightRecord(stage, 1));
        assertEquals(CoGroupStageDescriptor.NO_ROW, CoGroupStageDescriptor.rowOffset(stage, 1));
        assertEquals(0, CoGroupStageDescriptor.leftRecord(stage, 0));
    }

    @Test
    void timerWheelImageIsTheDocumentedLayout()
    {
        assertEquals(2, TimerWheelImage.VERSION);
        assertEquals(0, TimerWheelImage.VERSION_OFFSET);
        assertEquals(4, TimerWheelImage.STARTED_OFFSET);
        assertEquals(5, TimerWheelImage.CURRENT_TICK_OFFSET);
        assertEquals(13, TimerWheelImage.PENDING_OFFSET);
        assertEquals(21, TimerWheelImage.SLOT_COUNT_OFFSET);
        assertEquals(25, TimerWheelImage.HEADS_OFFSET);
        assertEquals(25 + 8 * 4096, TimerWheelImage.tailsOffset(4096));
        assertEquals(25 + 16 * 4096, TimerWheelImage.unsortedOffset(4096));
        assertEquals(25 + 17 * 4096, TimerWheelImage.length(4096));
        assertEquals(25 + 17, TimerWheelImage.length(1));
    }
}
