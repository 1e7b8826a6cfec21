package io.junction.internal.state;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The descriptors' offsets, derived field by field from sizes, land where their diagrams and the code need them. */
class DescriptorLayoutTest
{
    @Test
    void rowRecordHeaderIsTheDocumentedLayout()
    {
        assertEquals(0, RowDescriptor.KEY_PREV_OFFSET);
        assertEquals(8, RowDescriptor.KEY_NEXT_OFFSET);
        assertEquals(16, RowDescriptor.BUCKET_OFFSET);
        assertEquals(24, RowDescriptor.TS_OFFSET);
        assertEquals(32, RowDescriptor.TIMER_PREV_OFFSET);
        assertEquals(40, RowDescriptor.TIMER_NEXT_OFFSET);
        assertEquals(48, RowDescriptor.DEADLINE_OFFSET);
        assertEquals(56, RowDescriptor.COUNT_OFFSET);
        assertEquals(60, RowDescriptor.FLAGS_OFFSET);
        assertEquals(61, RowDescriptor.SIDE_OFFSET);
        assertEquals(62, RowDescriptor.KEY_LENGTH_OFFSET);
        assertEquals(64, RowDescriptor.ROW_LENGTH_OFFSET);
        assertEquals(68, RowDescriptor.RECORD_LENGTH_OFFSET);
        // The key bytes follow the header in an 8-aligned record: the header keeps them aligned.
        assertEquals(72, RowDescriptor.HEADER_LENGTH);
        assertEquals(0, RowDescriptor.HEADER_LENGTH % NativeArena.ALIGNMENT);
    }

    @Test
    void bucketIsTheDocumentedLayout()
    {
        assertEquals(0, BucketDescriptor.HASH_OFFSET);
        assertEquals(8, BucketDescriptor.LEFT_HEAD_OFFSET);
        assertEquals(16, BucketDescriptor.LEFT_TAIL_OFFSET);
        assertEquals(24, BucketDescriptor.RIGHT_HEAD_OFFSET);
        assertEquals(32, BucketDescriptor.RIGHT_TAIL_OFFSET);
        assertEquals(40, BucketDescriptor.LEFT_COUNT_OFFSET);
        // isEmpty reads both counts as one aligned i64.
        assertEquals(BucketDescriptor.LEFT_COUNT_OFFSET + Integer.BYTES, BucketDescriptor.RIGHT_COUNT_OFFSET);
        assertEquals(0, BucketDescriptor.LEFT_COUNT_OFFSET % Long.BYTES);
        assertEquals(48, BucketDescriptor.LENGTH);
    }
}
