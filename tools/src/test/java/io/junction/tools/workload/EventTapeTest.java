package io.junction.tools.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class EventTapeTest {

    @Test
    void shouldReplayTheSameChecksumAsDirectGeneration() {
        final EventTape tape = new EventTape();
        Workloads.w2(100_000, 20_000, tape);
        assertEquals(200_001, tape.size());                 // rows + end
        assertEquals(200_000L, tape.rows());
        final Checksum replayed = new Checksum();
        tape.replay(replayed);
        assertEquals("0646f7acbb3ee137", replayed.hex());
        assertEquals(100_000L, replayed.left());
        assertEquals(EventTape.TYPE_END, tape.type(tape.size() - 1));
        assertEquals(true, replayed.ended());
    }

    @Test
    void shouldStoreWatermarksAndRowsAcrossChunks() {
        final EventTape tape = new EventTape(10);
        final Checksum direct = new Checksum();
        Workloads.w1(1_000_000, new WorkloadsTest.Tee(tape, direct));
        final Checksum replayed = new Checksum();
        tape.replay(replayed);
        assertEquals(direct.hex(), replayed.hex());
        assertEquals(direct.events(), replayed.events());
        assertEquals(direct.watermarks(), replayed.watermarks());
        assertEquals(direct.events() + direct.watermarks() + 1, tape.size());
        assertEquals(true, tape.size() > EventTape.CHUNK_SIZE);

        // event 999 is the 1000th row; a watermark of max ts - 5000 follows it
        final int firstWatermark = 1000;
        assertEquals(EventTape.TYPE_WATERMARK, tape.type(firstWatermark));
        assertEquals(tape.ts(firstWatermark - 1) - 5000, tape.ts(firstWatermark));
        assertEquals(EventTape.TYPE_LEFT, tape.type(0));
        assertEquals(0L, tape.key(0));                       // mix64(0) = 0
        int second = 1;
        while (tape.type(second) != EventTape.TYPE_LEFT) {
            second++;                                        // skip clicks of impression 0 (delay 0)
        }
        assertEquals(SplitMix64.mix64(1), tape.key(second));
        assertEquals(1L, tape.f1(second));
    }

    @Test
    void shouldHoldW1BigInOneTape() {
        final EventTape tape = new EventTape(12_100_000);
        final Checksum direct = new Checksum();
        Workloads.generate(Workload.W1_BIG, new WorkloadsTest.Tee(tape, direct));
        assertEquals(10_000_000L, direct.left());
        assertEquals(direct.events() + direct.watermarks() + 1, tape.size());
        assertEquals(true, tape.size() > 12_000_000, "W1-big is about 12M events, got " + tape.size());
        final Checksum replayed = new Checksum();
        tape.replay(replayed);
        assertEquals(direct.hex(), replayed.hex());
        // not in the WORKLOADS.md table: pinned from this generator so that a change is noticed
        assertEquals(1_999_661L, direct.right());
        assertEquals(11_999L, direct.watermarks());
        assertEquals(12_011_661, tape.size());
        assertEquals("f32504e695f1d096", direct.hex());
    }

    @Test
    void shouldReplayARange() {
        final EventTape tape = new EventTape();
        Workloads.w2(1000, 10, tape);
        final Checksum a = new Checksum();
        final Checksum b = new Checksum();
        tape.replay(a, 0, 500);
        tape.replay(a, 500, tape.size());
        tape.replay(b);
        assertEquals(b.hex(), a.hex());
        assertThrows(IndexOutOfBoundsException.class, () -> tape.replay(b, 0, tape.size() + 1));
        assertThrows(IndexOutOfBoundsException.class, () -> tape.type(tape.size()));
    }
}
