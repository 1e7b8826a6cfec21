package io.junction.internal.state;

import io.junction.internal.time.TimerWheelImage;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import io.junction.internal.durable.ClosedRecord;
import io.junction.internal.durable.ConfirmedRecord;
import io.junction.internal.durable.EngineRecord;
import io.junction.internal.durable.HeapImageDescriptor;
import io.junction.internal.durable.SeedRecord;
import io.junction.internal.durable.StateMarkerDescriptor;

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
        // The key hash, link and group 0 where a standard bucket keeps its hash and two groups (the key index and
        // its reopen checks read them), then the other groups; no live row counts.
        assertEquals(BucketDescriptor.HASH_OFFSET, MultiBucketDescriptor.HASH_OFFSET);
        assertEquals(0, MultiBucketDescriptor.HASH_OFFSET);
        assertEquals(BucketDescriptor.LEFT_ROWS_OFFSET, MultiBucketDescriptor.LINK_OFFSET);
        assertEquals(8, MultiBucketDescriptor.LINK_OFFSET);
        assertEquals(BucketDescriptor.RIGHT_ROWS_OFFSET, MultiBucketDescriptor.GROUPS_OFFSET);
        assertEquals(16, MultiBucketDescriptor.GROUPS_OFFSET);
        assertEquals(8, MultiBucketDescriptor.GROUP_LENGTH);
        assertEquals(BucketDescriptor.RIGHT_ROWS_OFFSET, MultiBucketDescriptor.groupOffset(0));
        assertEquals(16, MultiBucketDescriptor.groupOffset(0));
        assertEquals(24, MultiBucketDescriptor.groupOffset(1));
        assertEquals(40, MultiBucketDescriptor.groupOffset(3));
        // 16 + 8n bytes, never below a standard bucket's length (the key index's least).
        assertEquals(BucketDescriptor.LENGTH, MultiBucketDescriptor.length(1));
        assertEquals(32, MultiBucketDescriptor.length(2));
        assertEquals(48, MultiBucketDescriptor.length(4));
        assertEquals(144, MultiBucketDescriptor.length(16));
        assertEquals(0, MultiBucketDescriptor.length(4) % NativeArena.ALIGNMENT);
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
    void arenaFileHeaderIsTheDocumentedLayout()
    {
        assertEquals(0, ArenaHeaderDescriptor.MAGIC_OFFSET);
        assertEquals(8, ArenaHeaderDescriptor.DIRTY_OFFSET);
        assertEquals(16, ArenaHeaderDescriptor.CRC_OFFSET);
        assertEquals(24, ArenaHeaderDescriptor.VERSION_OFFSET);
        assertEquals(24, ArenaHeaderDescriptor.CHECKED_FROM);
        assertEquals(28, ArenaHeaderDescriptor.CHUNK_SIZE_OFFSET);
        assertEquals(32, ArenaHeaderDescriptor.BUMP_OFFSET);
        assertEquals(40, ArenaHeaderDescriptor.CURSOR_OFFSET);
        assertEquals(48, ArenaHeaderDescriptor.CHUNK_END_OFFSET);
        assertEquals(56, ArenaHeaderDescriptor.RESERVED_OFFSET);
        assertEquals(64, ArenaHeaderDescriptor.USED_OFFSET);
        assertEquals(72, ArenaHeaderDescriptor.LIMIT_OFFSET);
        assertEquals(80, ArenaHeaderDescriptor.LARGE_COUNT_OFFSET);
        assertEquals(88, ArenaHeaderDescriptor.MAP_SHIFT_OFFSET);
        // The fixed fields fit their room.
        assertTrue(ArenaHeaderDescriptor.MAP_SHIFT_OFFSET + Integer.BYTES <= ArenaHeaderDescriptor.FIXED_FIELDS_ROOM);
        assertEquals(128, ArenaHeaderDescriptor.LARGE_TABLE_OFFSET);
        assertEquals(128, ArenaHeaderDescriptor.largeSizeOffset(0));
        assertEquals(136, ArenaHeaderDescriptor.largeHeadOffset(0));
        assertEquals(128 + 63 * 16 + 8, ArenaHeaderDescriptor.largeHeadOffset(ArenaHeaderDescriptor.LARGE_LISTS - 1));
        assertEquals(2048, ArenaHeaderDescriptor.FREE_HEADS_OFFSET);
        assertEquals(16385, ArenaHeaderDescriptor.FREE_LISTS);
        assertEquals(2048 + 16384 * 8, ArenaHeaderDescriptor.freeHeadOffset(ArenaHeaderDescriptor.FREE_LISTS - 1));
        // The map's offset and the header's length are those every arena file of version 2 has.
        assertEquals(133184, ArenaHeaderDescriptor.MAP_OFFSET);
        assertEquals(34 * 4096, ArenaHeaderDescriptor.HEADER_LENGTH);
        assertEquals(6080, ArenaHeaderDescriptor.MAP_BYTES);
        assertEquals(0x4A4E4341_52454E41L, ArenaHeaderDescriptor.MAGIC);
        assertEquals(2, ArenaHeaderDescriptor.VERSION);
        assertEquals(ArenaHeaderDescriptor.HEADER_LENGTH, NativeArena.HEADER_LENGTH);
        assertEquals(ArenaHeaderDescriptor.MAP_OFFSET, NativeArena.MAP_OFFSET);
        assertEquals(0, ArenaHeaderDescriptor.MAP_OFFSET % ArenaHeaderDescriptor.MAP_ALIGNMENT);
    }

    @Test
    void stateMarkerIsTheDocumentedLayout()
    {
        assertEquals(0, StateMarkerDescriptor.MAGIC_OFFSET);
        assertEquals(8, StateMarkerDescriptor.VERSION_OFFSET);
        assertEquals(12, StateMarkerDescriptor.FINGERPRINT_OFFSET);
        assertEquals(20, StateMarkerDescriptor.LAYOUT_OFFSET);
        assertEquals(28, StateMarkerDescriptor.HASH_SEED_OFFSET);
        assertEquals(36, StateMarkerDescriptor.HEAP_LENGTH_OFFSET);
        assertEquals(44, StateMarkerDescriptor.HEAP_CRC_OFFSET);
        assertEquals(52, StateMarkerDescriptor.FILES_OFFSET);
        assertEquals(56, StateMarkerDescriptor.ENTRIES_OFFSET);
        // The lengths the marker's reader and writer have always used: 8 + 4 + 8 * 5 + 4 + 8, and 8 * 7 + 4 * 2 + 8.
        assertEquals(64, StateMarkerDescriptor.FIXED_LENGTH);
        assertEquals(72, StateMarkerDescriptor.MIN_LENGTH);
        // "arena.dat" with 3 chunk sums: u16 + 9 + i64 + i32 + 3 x i32; heap.dat's entry has none.
        assertEquals(2 + 9 + 8 + 4 + 12, StateMarkerDescriptor.entryLength(9, 3));
        assertEquals(2 + 8 + 8 + 4, StateMarkerDescriptor.entryLength(8, 0));
        assertEquals(92, StateMarkerDescriptor.crcOffset(100));
        assertEquals(0x4A4E43434C45414EL, StateMarkerDescriptor.MAGIC);
        assertEquals(2, StateMarkerDescriptor.VERSION);
        assertEquals(1, StateMarkerDescriptor.VERSION_WITHOUT_SUMS);
    }

    @Test
    void heapImageIsTheDocumentedLayout()
    {
        assertEquals(0, HeapImageDescriptor.MAGIC_OFFSET);
        assertEquals(4, HeapImageDescriptor.LIVE_LEFT_OFFSET);
        assertEquals(12, HeapImageDescriptor.LIVE_RIGHT_OFFSET);
        assertEquals(20, HeapImageDescriptor.INDEX_SIZE_OFFSET);
        assertEquals(28, HeapImageDescriptor.UNMATCHABLE_BUCKET_OFFSET);
        assertEquals(36, HeapImageDescriptor.UNIQUE_LEFT_OFFSET);
        assertEquals(44, HeapImageDescriptor.UNIQUE_RIGHT_OFFSET);
        assertEquals(52, HeapImageDescriptor.STATE_PART_LENGTH);
        assertEquals(4, HeapImageDescriptor.END_LENGTH);
        assertEquals(0x4A4E4350, HeapImageDescriptor.MAGIC);
        assertEquals(0x4A4E4345, HeapImageDescriptor.END);
        // The room a persist has always allocated: 64 KiB + 4 x the wheel's estimate + the part's.
        assertEquals(64 * 1024 + 4 * 100 + 7, HeapImageDescriptor.room(100, 7));
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
        assertEquals(3, TimerWheelImage.VERSION);
        assertEquals(2, TimerWheelImage.VERSION_DENSE);
        assertEquals(0, TimerWheelImage.VERSION_OFFSET);
        assertEquals(4, TimerWheelImage.STARTED_OFFSET);
        assertEquals(5, TimerWheelImage.CURRENT_TICK_OFFSET);
        assertEquals(13, TimerWheelImage.PENDING_OFFSET);
        assertEquals(21, TimerWheelImage.SLOT_COUNT_OFFSET);
        // Version 3: the slots in use only, 21 bytes each.
        assertEquals(25, TimerWheelImage.USED_SLOTS_OFFSET);
        assertEquals(29, TimerWheelImage.USED_OFFSET);
        assertEquals(0, TimerWheelImage.SLOT_INDEX_OFFSET);
        assertEquals(4, TimerWheelImage.SLOT_HEAD_OFFSET);
        assertEquals(12, TimerWheelImage.SLOT_TAIL_OFFSET);
        assertEquals(20, TimerWheelImage.SLOT_UNSORTED_OFFSET);
        assertEquals(21, TimerWheelImage.SLOT_LENGTH);
        assertEquals(29, TimerWheelImage.length(0));
        assertEquals(29 + 21 * 3, TimerWheelImage.usedSlotOffset(3));
        assertEquals(29 + 21 * 4096, TimerWheelImage.maxLength(4096));
        // Version 2 (still read): dense, 17 bytes a slot.
        assertEquals(25, TimerWheelImage.DENSE_HEADS_OFFSET);
        assertEquals(25 + 8 * 4096, TimerWheelImage.denseTailsOffset(4096));
        assertEquals(25 + 16 * 4096, TimerWheelImage.denseUnsortedOffset(4096));
        assertEquals(25 + 17 * 4096, TimerWheelImage.denseLength(4096));
        assertEquals(25 + 17, TimerWheelImage.denseLength(1));
    }
}
