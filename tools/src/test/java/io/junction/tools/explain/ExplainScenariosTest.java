package io.junction.tools.explain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every reason code of {@code junction explain} (docs/SEMANTICS.md, "Explaining a join") produced by a scenario
 * of each join kind, at 1 and 3 partitions: the pair lines' codes, the fate, {@code padded} and {@code outputs}.
 */
class ExplainScenariosTest
{
    @TempDir
    Path tmp;

    private int runs;

    private ExplainRun explain(final int partitions, final String spec, final String events, final String... options)
        throws IOException
    {
        final Path specFile = Files.writeString(tmp.resolve("s" + runs + ".join.json"), spec);
        final Path eventsFile = Files.writeString(tmp.resolve("e" + runs + ".events.jsonl"), events);
        runs++;
        final List<String> args = new ArrayList<>(List.of("explain", specFile.toString(), eventsFile.toString(),
            "--partitions", Integer.toString(partitions)));
        args.addAll(List.of(options));
        final ExplainRun run = ExplainRun.cli(args.toArray(new String[0]));
        assertEquals(0, run.exit(), run.err() + run.out());
        return run;
    }

    private static void pair(final ExplainRun run, final long with, final String code, final String... detailParts)
    {
        final JsonNode pair = run.pair(with);
        assertTrue(pair != null, "no pair line with step " + with + ": " + run.out());
        assertEquals(code, pair.get("code").asText(), run.out());
        for (final String part : detailParts)
        {
            assertTrue(pair.get("detail").asText().contains(part), "detail lacks '" + part + "': " + run.out());
        }
    }

    private static void fate(final ExplainRun run, final String code, final String padded, final String outputs)
    {
        assertEquals(code, run.fate().get("fate").asText(), run.out());
        assertEquals(padded, run.fate().get("padded").toString(), run.out());
        assertEquals(outputs, run.fate().get("outputs").toString(), run.out());
    }

    private static String fateDetail(final ExplainRun run)
    {
        return run.fate().get("detail").asText();
    }

    // ------------------------------------------------------------------ regular

    private static final String REGULAR_INNER = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularMatchedNamesTheOutputStep(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, REGULAR_INNER, """
            {"side":"left","row":{"k":1,"v":"a"}}
            {"side":"right","row":{"k":1.0,"w":"b"}}
            {"side":"right","row":{"k":2,"w":"c"}}
            """, "--step", "0");
        pair(run, 1, "MATCHED", "step 1");
        assertEquals(1, run.pair(1).get("outputStep").asLong());
        assertEquals(null, run.pair(2), "a row of another key is no pair without --with");
        fate(run, "MATCHED", "null", "[1]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularKeyDiffersOnlyWithWith(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, REGULAR_INNER, """
            {"side":"left","row":{"k":1}}
            {"side":"right","row":{"k":2}}
            """, "--step", "0", "--with", "1");
        pair(run, 1, "KEY_DIFFERS", "k 1", "k 2");
        fate(run, "NO_ROW_WITH_KEY", "null", "[]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularKeyTypeDiffers(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, REGULAR_INNER, """
            {"side":"left","row":{"k":"1"}}
            {"side":"right","row":{"k":1}}
            {"side":"left","row":{"k":"1.0"}}
            {"side":"left","row":{"k":"2"}}
            """, "--step", "1");
        pair(run, 0, "KEY_TYPE_DIFFERS", "string", "number");
        pair(run, 2, "KEY_TYPE_DIFFERS");
        assertEquals(null, run.pair(3));
        fate(run, "NO_ROW_WITH_KEY", "null", "[]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularFilterFailedOnEitherSide(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"leftFilter\":[{\"field\":\"ok\",\"op\":\"==\",\"value\":true}],\"rightFilter\":[{\"field\":\"status\",\"op\":\"==\",\"value\":\"paid\"}]}";
        final String events = """
            {"side":"left","row":{"k":1,"ok":false}}
            {"side":"right","row":{"k":1,"status":"paid"}}
            {"side":"left","row":{"k":1,"ok":true}}
            {"side":"right","row":{"k":1,"status":"pending"}}
            """;
        final ExplainRun own = explain(partitions, spec, events, "--step", "0");
        pair(own, 1, "FILTER_FAILED", "left filter ok == true failed: ok was false");
        fate(own, "NO_MATCH", "0", "[0]");
        final ExplainRun other = explain(partitions, spec, events, "--step", "2");
        pair(other, 1, "MATCHED");
        pair(other, 3, "FILTER_FAILED", "right filter status == 'paid' failed: status was 'pending'");
        fate(other, "MATCHED", "null", "[2]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularConditionFailedNamesBothValues(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"condition\":[{\"left\":\"price\",\"op\":\"<=\",\"right\":\"budget\"}]}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"left","row":{"k":1,"price":12}}
            {"side":"right","row":{"k":1,"budget":10}}
            {"side":"right","row":{"k":1,"budget":"12"}}
            """, "--step", "0");
        pair(run, 1, "CONDITION_FAILED", "price was 12", "budget was 10");
        pair(run, 2, "CONDITION_FAILED", "a number and a string are unequal and unordered");
        fate(run, "NO_MATCH", "null", "[]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularRetractedBeforeTheRowCame(final int partitions) throws IOException
    {
        final String events = """
            {"side":"right","row":{"k":1}}
            {"side":"right","op":"-D","row":{"k":1}}
            {"side":"left","row":{"k":1}}
            {"side":"right","op":"-D","row":{"k":1}}
            """;
        final ExplainRun run = explain(partitions, REGULAR_INNER, events, "--step", "2");
        pair(run, 0, "RETRACTED", "retracted at step 1");
        fate(run, "NO_MATCH", "null", "[]");
        final ExplainRun retraction = explain(partitions, REGULAR_INNER, events, "--step", "1");
        assertTrue(fateDetail(retraction).contains("retracts the right row of step 0"), retraction.out());
        final ExplainRun bad = explain(partitions, REGULAR_INNER, events, "--step", "3");
        fate(bad, "BAD_INPUT", "null", "[]");
        assertEquals("retraction_not_in_state", bad.fate().get("deadLetter").asText());
        final ExplainRun withBad = explain(partitions, REGULAR_INNER, events, "--step", "2", "--with", "3");
        pair(withBad, 3, "BAD_INPUT", "retraction_not_in_state");
        final ExplainRun withRetraction = explain(partitions, REGULAR_INNER, events, "--step", "2", "--with", "1");
        pair(withRetraction, 1, "RETRACTED", "step 1 retracts the right row of step 0");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularExpiredByStateTtl(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"stateTtl\":1000}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"right","ts":0,"row":{"k":1}}
            {"side":"right","ts":4500,"row":{"k":1,"n":2}}
            {"watermark":5000}
            {"side":"left","ts":5000,"row":{"k":1}}
            """, "--step", "3");
        pair(run, 0, "EXPIRED", "stateTtl of 1,000 ms", "step 2");
        pair(run, 1, "MATCHED");
        fate(run, "MATCHED", "null", "[3]");
        final ExplainRun notStored = explain(partitions, spec, """
            {"watermark":5000}
            {"side":"right","ts":0,"row":{"k":1}}
            {"side":"left","ts":5000,"row":{"k":1}}
            """, "--step", "2");
        pair(notStored, 1, "EXPIRED", "arrived already past its stateTtl");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularNullKeyIsPaddedAtOnceAndDecidesItsPairs(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
        final String events = """
            {"side":"left","row":{"k":null}}
            {"side":"right","row":{"v":1}}
            {"side":"left","row":{"k":3}}
            """;
        final ExplainRun run = explain(partitions, spec, events, "--step", "0", "--with", "1");
        pair(run, 1, "NULL_KEY", "'k' is null");
        fate(run, "NULL_KEY", "0", "[0]");
        final ExplainRun other = explain(partitions, spec, events, "--step", "2", "--with", "1");
        pair(other, 1, "NULL_KEY", "'k' is absent");
        fate(other, "NO_ROW_WITH_KEY", "2", "[2]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularPaddedDelayPadsAtTheWatermarkOrNever(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"paddedDelay\":100}";
        final String events = """
            {"side":"left","ts":0,"row":{"k":1}}
            {"side":"left","ts":0,"row":{"k":2}}
            {"side":"right","ts":50,"row":{"k":1}}
            {"watermark":200}
            """;
        final ExplainRun matched = explain(partitions, spec, events, "--step", "0");
        pair(matched, 2, "MATCHED");
        fate(matched, "MATCHED", "null", "[2]");
        final ExplainRun padded = explain(partitions, spec, events, "--step", "1");
        fate(padded, "NO_ROW_WITH_KEY", "3", "[3]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularUpsertOutput(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"log_id\"],\"rightKey\":[\"log_id\"]," +
            "\"leftUniqueKey\":[\"log_id\"],\"rightUniqueKey\":[\"log_id\"],\"output\":\"upsert\"}";
        final String events = """
            {"side":"left","row":{"log_id":1,"show":"s1"}}
            {"side":"right","row":{"log_id":1,"click":"c1"}}
            {"side":"right","row":{"log_id":1,"click":"c2"}}
            """;
        final ExplainRun run = explain(partitions, spec, events, "--step", "0");
        pair(run, 1, "MATCHED", "step 1");
        pair(run, 2, "BAD_INPUT", "unique_key_violation");
        fate(run, "MATCHED", "0", "[0,1]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void regularSemiAndAnti(final int partitions) throws IOException
    {
        final String events = """
            {"side":"left","row":{"k":1}}
            {"side":"right","row":{"k":1}}
            {"side":"left","row":{"k":2}}
            """;
        final ExplainRun semi = explain(partitions, REGULAR_INNER.replace("inner", "semi"), events, "--step", "0");
        pair(semi, 1, "MATCHED");
        fate(semi, "MATCHED", "null", "[1]");
        final ExplainRun anti = explain(partitions, REGULAR_INNER.replace("inner", "anti"), events, "--step", "2");
        fate(anti, "NO_ROW_WITH_KEY", "2", "[2]");
        final ExplainRun antiMatched = explain(partitions, REGULAR_INNER.replace("inner", "anti"), events, "--step", "0");
        pair(antiMatched, 1, "MATCHED");
        fate(antiMatched, "MATCHED", "0", "[0,1]");
    }

    // ------------------------------------------------------------------ interval

    private static final String INTERVAL = "{\"join\":\"interval\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
        "\"interval\":{\"lower\":0,\"upper\":1000}}";

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void intervalMatchedOutsideAndLate(final int partitions) throws IOException
    {
        final String events = """
            {"side":"left","ts":1000,"row":{"k":1}}
            {"side":"right","ts":1500,"row":{"k":1,"n":1}}
            {"side":"right","ts":5000,"row":{"k":1,"n":2}}
            {"side":"right","ts":900,"row":{"k":1,"n":3}}
            {"watermark":4000}
            {"side":"right","ts":1200,"row":{"k":1,"n":4}}
            {"side":"left","ts":100,"row":{"k":1,"late":true}}
            """;
        final ExplainRun run = explain(partitions, INTERVAL, events, "--step", "0");
        pair(run, 1, "MATCHED", "step 1");
        pair(run, 2, "OUTSIDE_INTERVAL", "4,000 ms after", "upper bound is 1,000 ms", "outside by 3,000 ms");
        pair(run, 3, "OUTSIDE_INTERVAL", "100 ms before", "lower bound is 0 ms", "outside by 100 ms");
        pair(run, 5, "LATE", "below the join watermark 4,000");
        fate(run, "MATCHED", "null", "[1]");
        final ExplainRun late = explain(partitions, INTERVAL, events, "--step", "6");
        fate(late, "LATE", "null", "[]");
        assertEquals("late", late.fate().get("deadLetter").asText());
        pair(late, 1, "LATE");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void intervalUnmatchedRowIsPaddedAtTheWatermarkThatClosesIt(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, INTERVAL, """
            {"side":"left","ts":1000,"row":{"k":1}}
            {"side":"right","ts":3000,"row":{"k":1}}
            {"watermark":2500}
            """, "--step", "0");
        pair(run, 1, "OUTSIDE_INTERVAL");
        fate(run, "NO_MATCH", "2", "[2]");
    }

    // ------------------------------------------------------------------ window

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void tumblingWindowMatchedDifferentAndLate(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"window\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"tumbling\",\"size\":10}}";
        final String events = """
            {"side":"left","ts":3,"row":{"k":1}}
            {"side":"right","ts":7,"row":{"k":1,"n":1}}
            {"side":"right","ts":12,"row":{"k":1,"n":2}}
            {"watermark":9}
            {"side":"right","ts":5,"row":{"k":1,"n":3}}
            """;
        final ExplainRun run = explain(partitions, spec, events, "--step", "0");
        pair(run, 1, "MATCHED", "[0, 10)", "step 3");
        pair(run, 2, "DIFFERENT_WINDOW", "[0, 10)", "[10, 20)");
        pair(run, 4, "LATE", "late_window");
        fate(run, "MATCHED", "null", "[3]");
        final ExplainRun late = explain(partitions, spec, events, "--step", "4");
        fate(late, "LATE", "null", "[]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void slidingWindowThatFiredBeforeTheRowCameIsExpired(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"window\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"sliding\",\"size\":10,\"slide\":5}}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"left","ts":2,"row":{"k":1}}
            {"watermark":9}
            {"side":"right","ts":8,"row":{"k":1}}
            """, "--step", "2");
        pair(run, 0, "EXPIRED", "[0, 10)", "fired at step 1");
        fate(run, "NO_MATCH", "null", "[]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void sessionWindows(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"window\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"session\",\"gap\":5}}";
        final String events = """
            {"side":"left","ts":0,"row":{"k":1}}
            {"side":"right","ts":3,"row":{"k":1,"n":1}}
            {"side":"right","ts":30,"row":{"k":1,"n":2}}
            {"watermark":7}
            {"side":"right","ts":6,"row":{"k":1,"n":3}}
            """;
        final ExplainRun run = explain(partitions, spec, events, "--step", "0");
        pair(run, 1, "MATCHED", "session [0, 8)");
        pair(run, 2, "DIFFERENT_WINDOW", "[30, 35)");
        pair(run, 4, "EXPIRED", "fired at step 3");
        fate(run, "MATCHED", "null", "[3]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void coGroupCountGroupsTheRows(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"window\",\"type\":\"full\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"tumbling\",\"size\":10},\"coGroup\":\"count\"}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"left","ts":1,"row":{"k":1}}
            {"side":"right","ts":2,"row":{"k":1}}
            {"side":"right","ts":12,"row":{"k":1}}
            """, "--step", "0");
        pair(run, 1, "MATCHED", "coGroup 'count'");
        pair(run, 2, "DIFFERENT_WINDOW");
        fate(run, "MATCHED", "null", "[]");
    }

    // ------------------------------------------------------------------ temporal and lookup

    private static final String TEMPORAL = "{\"join\":\"temporal\",\"type\":\"left\",\"leftKey\":[\"cur\"],\"rightKey\":[\"cur\"]," +
        "\"rightFilter\":[{\"field\":\"rate\",\"op\":\">\",\"value\":0}]}";

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void temporalVersions(final int partitions) throws IOException
    {
        final String events = """
            {"side":"right","ts":1000,"row":{"cur":"EUR","rate":114}}
            {"side":"right","ts":1800,"row":{"cur":"EUR","rate":115}}
            {"side":"right","ts":2500,"row":{"cur":"EUR","rate":116}}
            {"side":"left","ts":2000,"row":{"order":1,"cur":"EUR"}}
            {"watermark":2000}
            {"side":"left","ts":1500,"row":{"order":2,"cur":"EUR"}}
            {"side":"left","ts":2600,"row":{"order":3,"cur":"EUR"}}
            {"side":"right","ts":2550,"row":{"cur":"EUR","rate":0}}
            """;
        final ExplainRun run = explain(partitions, TEMPORAL, events, "--step", "3");
        pair(run, 1, "MATCHED", "step 4");
        pair(run, 0, "NOT_SELECTED", "version of step 1");
        pair(run, 2, "NOT_SELECTED", "after the left row's ts 2,000");
        fate(run, "MATCHED", "null", "[4]");
        final ExplainRun late = explain(partitions, TEMPORAL, events, "--step", "5");
        fate(late, "LATE", "null", "[]");
        final ExplainRun later = explain(partitions, TEMPORAL, events, "--step", "6");
        pair(later, 0, "EXPIRED", "had left state at step 4");
        pair(later, 7, "FILTER_FAILED", "rate > 0 failed: rate was 0");
        fate(later, "NO_MATCH", "8", "[8]");
        final ExplainRun version = explain(partitions, TEMPORAL, events, "--step", "1");
        pair(version, 3, "MATCHED");
        pair(version, 6, "NOT_SELECTED");
        fate(version, "MATCHED", "null", "[4]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void lookupReadsTheVersionCurrentAtTheLeftRowsStep(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"lookup\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"right","row":{"k":1,"v":"a"}}
            {"side":"right","row":{"k":1,"v":"b"}}
            {"side":"left","row":{"k":1}}
            {"side":"right","row":{"k":1,"v":"c"}}
            """, "--step", "2");
        pair(run, 1, "MATCHED", "step 2");
        pair(run, 0, "NOT_SELECTED", "replaced");
        pair(run, 3, "NOT_SELECTED", "after the left row");
        fate(run, "MATCHED", "null", "[2]");
    }

    // ------------------------------------------------------------------ asof

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void asofFinalWithTolerance(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"asof\",\"type\":\"left\",\"leftKey\":[\"sym\"],\"rightKey\":[\"sym\"]," +
            "\"asof\":{\"direction\":\"backward\",\"tolerance\":100}}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"right","ts":100,"row":{"sym":"X","px":1}}
            {"side":"right","ts":300,"row":{"sym":"X","px":3}}
            {"side":"left","ts":250,"row":{"sym":"X"}}
            {"watermark":400}
            """, "--step", "2");
        pair(run, 0, "OUTSIDE_INTERVAL", "tolerance is 100 ms", "outside by 50 ms");
        pair(run, 1, "OUTSIDE_INTERVAL", "50 ms after");
        fate(run, "NO_MATCH", "3", "[3]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void asofEagerReplacedMatchIsNotSelected(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"asof\",\"type\":\"inner\",\"leftKey\":[\"sym\"],\"rightKey\":[\"sym\"]," +
            "\"asof\":{\"direction\":\"nearest\",\"emit\":\"eager\"}}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"right","ts":100,"row":{"sym":"X","px":1}}
            {"side":"left","ts":200,"row":{"sym":"X"}}
            {"side":"right","ts":190,"row":{"sym":"X","px":2}}
            """, "--step", "1");
        pair(run, 0, "NOT_SELECTED", "10 ms from");
        pair(run, 2, "MATCHED", "step 2");
        fate(run, "MATCHED", "null", "[1,2]");
    }

    // ------------------------------------------------------------------ multi-way

    private static final String MULTI = "{\"join\":\"multi\",\"inputs\":[{\"name\":\"orders\",\"key\":[\"id\"]}," +
        "{\"name\":\"payments\",\"key\":[\"order_id\"],\"type\":\"left\",\"filter\":[{\"field\":\"amt\",\"op\":\">\",\"value\":0}]}," +
        "{\"name\":\"shipments\",\"key\":[\"order_id\"],\"type\":\"left\",\"stateTtl\":100}]," +
        "\"condition\":[{\"left\":\"orders.amt\",\"op\":\">=\",\"right\":\"payments.amt\"}]}";

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void multiWayPairsWithEveryOtherInput(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, MULTI, """
            {"side":"shipments","ts":0,"row":{"order_id":1,"sid":"s0"}}
            {"side":"payments","ts":1000,"row":{"order_id":1,"pid":"p1","amt":10}}
            {"side":"payments","ts":1000,"row":{"order_id":1,"pid":"p2","amt":12}}
            {"side":"payments","ts":1000,"row":{"order_id":1,"pid":"p3","amt":0}}
            {"side":"payments","ts":1000,"row":{"order_id":1,"pid":"p4","amt":5}}
            {"side":"payments","op":"-D","ts":1000,"row":{"order_id":1,"pid":"p4","amt":5}}
            {"watermark":500}
            {"side":"orders","ts":1000,"row":{"id":1,"amt":10}}
            """, "--step", "7");
        pair(run, 1, "MATCHED", "step 7");
        pair(run, 2, "CONDITION_FAILED", "orders.amt >= payments.amt", "was 12");
        pair(run, 3, "FILTER_FAILED", "payments filter amt > 0 failed: amt was 0");
        pair(run, 4, "RETRACTED", "step 5");
        pair(run, 0, "EXPIRED", "step 6");
        fate(run, "MATCHED", "null", "[7]");
        assertEquals("orders", run.fate().get("input").asText());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void multiWayPairWithoutTheInnerInputBetween(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"multi\",\"inputs\":[{\"name\":\"o\",\"key\":[\"id\"]}," +
            "{\"name\":\"p\",\"key\":[\"id\"],\"type\":\"inner\"},{\"name\":\"s\",\"key\":[\"id\"],\"type\":\"left\"}]}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"o","row":{"id":1}}
            {"side":"s","row":{"id":1}}
            {"side":"s","row":{"id":"1"}}
            """, "--step", "0");
        pair(run, 1, "NO_MATCH", "the inner input 'p' has no row of this key");
        pair(run, 2, "KEY_TYPE_DIFFERS");
        fate(run, "NO_MATCH", "null", "[]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void asofLateRightRowAndLeftFilter(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"asof\",\"type\":\"left\",\"leftKey\":[\"sym\"],\"rightKey\":[\"sym\"]," +
            "\"leftFilter\":[{\"field\":\"qty\",\"op\":\">\",\"value\":0}],\"asof\":{\"direction\":\"forward\"}}";
        final String events = """
            {"side":"left","ts":100,"row":{"sym":"X","qty":5}}
            {"watermark":150}
            {"side":"right","ts":120,"row":{"sym":"X","px":1}}
            {"side":"right","ts":160,"row":{"sym":"X","px":2}}
            {"side":"left","ts":170,"row":{"sym":"X","qty":0}}
            """;
        final ExplainRun run = explain(partitions, spec, events, "--step", "0");
        pair(run, 2, "LATE", "below the join watermark 150");
        pair(run, 3, "MATCHED");
        fate(run, "MATCHED", "null", "[5]");
        final ExplainRun filtered = explain(partitions, spec, events, "--step", "4");
        pair(filtered, 3, "FILTER_FAILED", "left filter qty > 0 failed: qty was 0");
        fate(filtered, "NO_MATCH", "4", "[4]");
    }

    // ------------------------------------------------------------------ refusals

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aStepThatIsNoRowExitsTwoNamingTheLine(final int partitions) throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("r.join.json"), REGULAR_INNER);
        final Path events = Files.writeString(tmp.resolve("r.events.jsonl"), """
            {"side":"left","row":{"k":1}}

            {"watermark":5}
            not json
            {"side":"left","row":{"k":2}}
            """);
        final String[][] refused = {
            {"--step", "5"}, {"--step", "1"}, {"--step", "2"}, {"--step", "0", "--with", "3"}, {"--step", "-1"}};
        final String[] messages = {"--step 5: beyond the log, which has 4 step(s) (0 to 3)",
            "--step 1 (line 3) is a watermark line, not a row", "--step 2 (line 4) is not a row event",
            "--with 3 (line 5) is a row of the same input (left)", "--step -1: beyond the log"};
        for (int i = 0; i < refused.length; i++)
        {
            final List<String> args = new ArrayList<>(List.of("explain", spec.toString(), events.toString(),
                "--partitions", Integer.toString(partitions)));
            args.addAll(List.of(refused[i]));
            final ExplainRun run = ExplainRun.cli(args.toArray(new String[0]));
            assertEquals(2, run.exit(), run.out() + run.err());
            assertTrue(run.err().contains(messages[i]), run.err());
            assertEquals(1, run.err().strip().lines().count(), run.err());
            assertEquals("", run.out());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void swappedFilesExitTwoSayingWhichIsWhich(final int partitions) throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("w.join.json"), REGULAR_INNER);
        final Path events = Files.writeString(tmp.resolve("w.events.jsonl"), "{\"side\":\"left\",\"row\":{\"k\":1}}\n");
        final ExplainRun run = ExplainRun.cli("explain", events.toString(), spec.toString(), "--step", "0",
            "--partitions", Integer.toString(partitions));
        assertEquals(2, run.exit());
        assertTrue(run.err().contains("is an event log, not a join spec"), run.err());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aRejectedSpecExitsTwo(final int partitions) throws IOException
    {
        final Path spec = Files.writeString(tmp.resolve("bad.join.json"), "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"]}");
        final Path events = Files.writeString(tmp.resolve("bad.events.jsonl"), "{\"side\":\"left\",\"row\":{\"k\":1}}\n");
        final ExplainRun run = ExplainRun.cli("explain", spec.toString(), events.toString(), "--step", "0",
            "--partitions", Integer.toString(partitions));
        assertEquals(2, run.exit());
        assertTrue(run.err().contains("rejected join spec") && run.err().contains("rightKey"), run.err());
    }
}
