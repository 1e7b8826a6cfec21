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
 * {@code junction explain} of specs with row expansion (docs/SEMANTICS.md sections 12 and 13): a row of an expanded
 * input is explained through the rows it made ({@code made} on its pair lines, {@code withMade} for the other row's),
 * each decided as an unexpanded row of its kind; the standalone {@code "join": "expand"} pairs a row with its made
 * rows. Every scenario at 1 and 3 partitions.
 */
class ExplainExpansionTest
{
    @TempDir
    Path tmp;

    private int runs;

    private ExplainRun explain(final int partitions, final String spec, final String events, final String... options)
        throws IOException
    {
        final ExplainRun run = run(partitions, spec, events, options);
        assertEquals(0, run.exit(), run.err() + run.out());
        return run;
    }

    private ExplainRun run(final int partitions, final String spec, final String events, final String... options)
        throws IOException
    {
        final Path specFile = Files.writeString(tmp.resolve("s" + runs + ".join.json"), spec);
        final Path eventsFile = Files.writeString(tmp.resolve("e" + runs + ".events.jsonl"), events);
        runs++;
        final List<String> args = new ArrayList<>(List.of("explain", specFile.toString(), eventsFile.toString(),
            "--partitions", Integer.toString(partitions)));
        args.addAll(List.of(options));
        return ExplainRun.cli(args.toArray(new String[0]));
    }

    /** A pair line of made row {@code made} (-1: none) with the row of step {@code with}, its made row {@code withMade}. */
    private static JsonNode pair(final ExplainRun run, final long with, final int made, final int withMade, final String code,
        final String... detailParts)
    {
        final JsonNode pair = run.pair(with, made, withMade);
        assertTrue(pair != null, "no pair line with step " + with + ", made " + made + ", withMade " + withMade + ": " + run.out());
        assertEquals(code, pair.get("code").asText(), run.out());
        for (final String part : detailParts)
        {
            assertTrue(pair.get("detail").asText().contains(part), "detail lacks '" + part + "': " + run.out());
        }
        return pair;
    }

    private static void fate(final ExplainRun run, final String code, final int made, final String padded, final String outputs,
        final String... detailParts)
    {
        final JsonNode fate = run.fate();
        assertEquals(code, fate.get("fate").asText(), run.out());
        assertEquals(made, fate.path("made").asInt(-1), run.out());
        assertEquals(padded, fate.get("padded").toString(), run.out());
        assertEquals(outputs, fate.get("outputs").toString(), run.out());
        for (final String part : detailParts)
        {
            assertTrue(fate.get("detail").asText().contains(part), "fate detail lacks '" + part + "': " + run.out());
        }
    }

    /** @return how many pair lines the run printed */
    private static long pairLines(final ExplainRun run)
    {
        return run.lines().stream().filter(l -> l.has("code")).count();
    }

    // ------------------------------------------------------------------ regular, leftExpand

    /** docs/SEMANTICS.md section 12's show/click example: each ad of a show meets its own click. */
    private static final String SHOWS = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"log_id\",\"ad_id\"]," +
        "\"rightKey\":[\"log_id\",\"ad_id\"],\"leftExpand\":{\"unnest\":\"ad_ids\",\"as\":\"ad_id\",\"outer\":true}}";
    private static final String SHOW_EVENTS = """
        {"side":"left","row":{"log_id":"1","ad_ids":["ad1","ad2"]}}
        {"side":"right","row":{"log_id":"1","ad_id":"ad1","click":"c1"}}
        {"side":"right","row":{"log_id":"2","ad_id":"ad3","click":"c2"}}
        {"side":"left","row":{"log_id":"2","ad_ids":["ad3"]}}
        {"side":"left","row":{"log_id":"3","ad_ids":[]}}
        {"side":"right","row":{"log_id":"1","ad_id":"ad2","click":"c3"}}
        """;

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void eachMadeRowOfAShowMeetsItsOwnClick(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, SHOWS, SHOW_EVENTS, "--step", "0");
        assertEquals(1, pair(run, 1, 1, -1, "MATCHED").get("outputStep").asLong());
        assertEquals(5, pair(run, 5, 2, -1, "MATCHED").get("outputStep").asLong());
        assertEquals(2, pairLines(run), run.out());
        fate(run, "MATCHED", 2, "0", "[0,1,5]", "it made 2 rows (unnest of ad_ids)", "with the rows of steps 1, 5");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void theOtherRowsMadeRowsAreCandidatesAndWithNamesThemAll(final int partitions) throws IOException
    {
        final ExplainRun click = explain(partitions, SHOWS, SHOW_EVENTS, "--step", "2");
        pair(click, 3, -1, 1, "MATCHED");
        fate(click, "MATCHED", -1, "null", "[3]");
        assertTrue(!click.fate().has("made"), "an unexpanded input's row has no made count: " + click.out());
        final ExplainRun with = explain(partitions, SHOWS, SHOW_EVENTS, "--step", "1", "--with", "0");
        pair(with, 0, -1, 1, "MATCHED");
        pair(with, 0, -1, 2, "KEY_DIFFERS", "made row 2", "ad_id 'ad2'");
        final ExplainRun empty = explain(partitions, SHOWS, SHOW_EVENTS, "--step", "1", "--with", "4");
        pair(empty, 4, -1, 0, "NULL_KEY", "the left row of step 4 (made row 0) has a null key");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void anOuterExpansionOfAnEmptyArrayMakesThePaddedRow(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, SHOWS, SHOW_EVENTS, "--step", "4");
        assertEquals(0, pairLines(run), run.out());
        fate(run, "NULL_KEY", 1, "4", "[4]", "ad_ids is empty, so the outer expansion made its padded row 0", "'ad_id' is null");
    }

    private static final String ADS = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"ad\"],\"rightKey\":[\"ad\"]," +
        "\"rightFilter\":[{\"field\":\"ok\",\"op\":\"==\",\"value\":true}],\"leftExpand\":{\"unnest\":\"ads\",\"as\":\"ad\"}}";
    private static final String AD_EVENTS = """
        {"side":"left","row":{"id":1,"ads":["a","b"]}}
        {"side":"right","row":{"ad":"a","ok":true}}
        {"side":"right","row":{"ad":"b","ok":false}}
        {"side":"left","row":{"id":2,"ads":[]}}
        {"side":"left","row":{"id":3,"ads":null}}
        {"side":"left","row":{"id":4,"ads":"a"}}
        {"side":"left","row":{"id":5,"ads":["zz"]}}
        {"side":"left","row":{"id":6,"ads":[null]}}
        {"side":"left","row":{"id":7,"ads":["b"]}}
        """;

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void madeRowsAreDecidedOneByOne(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, ADS, AD_EVENTS, "--step", "0");
        pair(run, 1, 1, -1, "MATCHED");
        pair(run, 2, 2, -1, "FILTER_FAILED", "right filter ok == true failed", "right row of step 2");
        fate(run, "MATCHED", 2, "null", "[1]", "made row 1 (ad 'a') took part in an output pair", "made row 2 (ad 'b') met rows");
        final ExplainRun none = explain(partitions, ADS, AD_EVENTS, "--step", "8");
        pair(none, 2, 1, -1, "FILTER_FAILED");
        fate(none, "NO_MATCH", 1, "null", "[]", "it made 1 row", "rows of the key of a row it made existed");
        final ExplainRun noKey = explain(partitions, ADS, AD_EVENTS, "--step", "6");
        fate(noKey, "NO_ROW_WITH_KEY", 1, "null", "[]", "made row 1 (ad 'zz') has no row of its key");
        final ExplainRun nullKey = explain(partitions, ADS, AD_EVENTS, "--step", "7");
        fate(nullKey, "NULL_KEY", 1, "null", "[]", "'ad' is null");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aRowThatMadeNoRowsOrFailedItsExpansion(final int partitions) throws IOException
    {
        final ExplainRun empty = explain(partitions, ADS, AD_EVENTS, "--step", "3");
        assertEquals(0, pairLines(empty), empty.out());
        fate(empty, "NO_MATCH", 0, "null", "[]", "unnest of ads made no rows: ads is empty");
        final ExplainRun nul = explain(partitions, ADS, AD_EVENTS, "--step", "4");
        fate(nul, "NO_MATCH", 0, "null", "[]", "unnest of ads made no rows: ads is null");
        final ExplainRun failed = explain(partitions, ADS, AD_EVENTS, "--step", "5");
        fate(failed, "BAD_INPUT", 0, "null", "[]", "expansion_failed", "field 'ads' is a string, not an array");
        assertEquals("expansion_failed", failed.fate().get("deadLetter").asText());
        final ExplainRun withFailed = explain(partitions, ADS, AD_EVENTS, "--step", "1", "--with", "5");
        pair(withFailed, 5, -1, -1, "BAD_INPUT", "expansion_failed");
        final ExplainRun withEmpty = explain(partitions, ADS, AD_EVENTS, "--step", "1", "--with", "3");
        pair(withEmpty, 3, -1, -1, "NO_MATCH", "unnest of ads made no rows: ads is empty");
        final ExplainRun emptyWith = explain(partitions, ADS, AD_EVENTS, "--step", "3", "--with", "1");
        pair(emptyWith, 1, -1, -1, "NO_MATCH", "this row takes part in no pair");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void aFilteredRightRowNamesTheMadeRowItMet(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, ADS, AD_EVENTS, "--step", "2");
        pair(run, 0, -1, 2, "FILTER_FAILED");
        pair(run, 8, -1, 1, "FILTER_FAILED");
        fate(run, "NO_MATCH", -1, "null", "[]", "right filter ok == true failed");
    }

    // ------------------------------------------------------------------ regular, rightExpand

    private static final String TAGS = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"tag\"],\"rightKey\":[\"tag\"]," +
        "\"rightExpand\":{\"unnest\":\"tags\",\"as\":\"tag\"},\"rightFilter\":[{\"field\":\"tag\",\"op\":\"!=\",\"value\":\"x\"}]}";
    private static final String TAG_EVENTS = """
        {"side":"left","row":{"tag":"a","v":1}}
        {"side":"right","row":{"id":1,"tags":["a","b","x"]}}
        {"side":"left","row":{"tag":"x"}}
        {"side":"right","op":"-D","row":{"id":1,"tags":["a","b","x"]}}
        {"side":"left","row":{"tag":"b"}}
        {"side":"right","row":{"id":2,"tags":[]}}
        """;

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void rightExpandMatchedRetractedAndFiltered(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, TAGS, TAG_EVENTS, "--step", "1");
        pair(run, 0, 1, -1, "MATCHED");
        pair(run, 4, 2, -1, "RETRACTED", "made row 2", "retracted at step 3");
        pair(run, 2, 3, -1, "FILTER_FAILED", "tag != 'x' failed", "(made row 3)");
        fate(run, "MATCHED", 3, "null", "[1,3]", "it made 3 rows (unnest of tags)");
        final ExplainRun retraction = explain(partitions, TAGS, TAG_EVENTS, "--step", "3");
        pair(retraction, 0, 1, -1, "MATCHED");
        fate(retraction, "MATCHED", 3, "null", "[1,3]", "step 3 retracts the right row of step 1");
        final ExplainRun left = explain(partitions, TAGS, TAG_EVENTS, "--step", "4");
        pair(left, 1, -1, 2, "RETRACTED");
        fate(left, "NO_MATCH", -1, "4", "[4]");
        final ExplainRun with = explain(partitions, TAGS, TAG_EVENTS, "--step", "4", "--with", "1");
        pair(with, 1, -1, 1, "KEY_DIFFERS", "tag 'a'");
        pair(with, 1, -1, 2, "RETRACTED");
        pair(with, 1, -1, 3, "KEY_DIFFERS", "tag 'x'");
        final ExplainRun withRetraction = explain(partitions, TAGS, TAG_EVENTS, "--step", "0", "--with", "3");
        pair(withRetraction, 3, -1, 1, "MATCHED", "step 3 retracts the right row of step 1");
        final ExplainRun empty = explain(partitions, TAGS, TAG_EVENTS, "--step", "5");
        fate(empty, "NO_MATCH", 0, "null", "[]", "unnest of tags made no rows: tags is empty");
    }

    // ------------------------------------------------------------------ interval

    private static final String INTERVAL = "{\"join\":\"interval\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
        "\"interval\":{\"lower\":0,\"upper\":10},\"leftExpand\":{\"unnest\":\"ks\",\"as\":\"k\",\"ordinality\":\"pos\",\"outer\":true}}";
    private static final String INTERVAL_EVENTS = """
        {"side":"right","ts":100,"row":{"k":"a","v":1}}
        {"side":"left","ts":95,"row":{"id":1,"ks":["a",null,"b"]}}
        {"side":"left","ts":95,"row":{"id":2,"ks":[]}}
        {"side":"left","ts":95,"row":{"id":3,"ks":"x"}}
        {"watermark":200}
        {"side":"left","ts":50,"row":{"id":4,"ks":["a","b"]}}
        {"side":"right","ts":300,"row":{"k":"b","v":2}}
        """;

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void intervalMadeRowsMatchPadAndFallOutside(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, INTERVAL, INTERVAL_EVENTS, "--step", "1");
        pair(run, 0, 1, -1, "MATCHED");
        pair(run, 6, 3, -1, "OUTSIDE_INTERVAL", "205 ms after", "outside by 195 ms");
        fate(run, "MATCHED", 3, "1", "[1,4]", "made row 2 (k null) has a null key");
        final ExplainRun with = explain(partitions, INTERVAL, INTERVAL_EVENTS, "--step", "0", "--with", "1");
        pair(with, 1, -1, 1, "MATCHED");
        pair(with, 1, -1, 2, "NULL_KEY", "(made row 2)");
        pair(with, 1, -1, 3, "KEY_DIFFERS");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void intervalMadeRowsAreLateOneByOne(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, INTERVAL, INTERVAL_EVENTS, "--step", "5");
        pair(run, 0, 1, -1, "LATE", "made row 1 of this row was late", "below the join watermark 200");
        fate(run, "LATE", 2, "null", "[]", "made row 1 (k 'a') was late; made row 2 (k 'b') was late");
        assertEquals("late", run.fate().get("deadLetter").asText());
        final ExplainRun failed = explain(partitions, INTERVAL, INTERVAL_EVENTS, "--step", "3");
        fate(failed, "BAD_INPUT", 0, "null", "[]", "expansion_failed");
        final ExplainRun padded = explain(partitions, INTERVAL, INTERVAL_EVENTS, "--step", "2");
        fate(padded, "NULL_KEY", 1, "2", "[2]", "made row 0");
    }

    // ------------------------------------------------------------------ window

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void tumblingWindowOfMadeRows(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"window\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"tumbling\",\"size\":10},\"leftExpand\":{\"unnest\":\"ks\",\"as\":\"k\"}}";
        final String events = """
            {"side":"left","ts":3,"row":{"ks":[1,2,3]}}
            {"side":"right","ts":7,"row":{"k":1}}
            {"side":"right","ts":12,"row":{"k":2}}
            {"watermark":9}
            {"side":"right","ts":5,"row":{"k":3}}
            """;
        final ExplainRun run = explain(partitions, spec, events, "--step", "0");
        assertEquals(3, pair(run, 1, 1, -1, "MATCHED", "[0, 10)").get("outputStep").asLong());
        pair(run, 2, 2, -1, "DIFFERENT_WINDOW", "[0, 10)", "[10, 20)");
        pair(run, 4, 3, -1, "LATE", "late_window");
        fate(run, "MATCHED", 3, "3", "[3]");
        final ExplainRun right = explain(partitions, spec, events, "--step", "2");
        pair(right, 0, -1, 2, "DIFFERENT_WINDOW");
        fate(right, "NO_MATCH", -1, "null", "[]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void sessionsArePerMadeRow(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"window\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"session\",\"gap\":5},\"leftExpand\":{\"unnest\":\"ks\",\"as\":\"k\"}}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"left","ts":0,"row":{"ks":[1,2]}}
            {"side":"right","ts":3,"row":{"k":1}}
            {"watermark":7}
            {"side":"right","ts":4,"row":{"k":2}}
            """, "--step", "0");
        pair(run, 1, 1, -1, "MATCHED", "session [0, 8)");
        pair(run, 3, 2, -1, "EXPIRED", "[0, 5)", "fired at step 2");
        fate(run, "MATCHED", 2, "null", "[2]");
    }

    // ------------------------------------------------------------------ temporal and asof, leftExpand

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void temporalLeftExpandPicksAVersionPerMadeRow(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"temporal\",\"type\":\"left\",\"leftKey\":[\"cur\"],\"rightKey\":[\"cur\"]," +
            "\"leftExpand\":{\"unnest\":\"curs\",\"as\":\"cur\"}}";
        final String events = """
            {"side":"right","ts":1000,"row":{"cur":"EUR","rate":114}}
            {"side":"right","ts":1000,"row":{"cur":"USD","rate":1}}
            {"side":"right","ts":2500,"row":{"cur":"EUR","rate":116}}
            {"side":"left","ts":2000,"row":{"order":1,"curs":["EUR","USD","GBP"]}}
            {"watermark":2000}
            """;
        final ExplainRun run = explain(partitions, spec, events, "--step", "3");
        pair(run, 0, 1, -1, "MATCHED", "step 4");
        pair(run, 2, 1, -1, "NOT_SELECTED", "after the left row's ts 2,000");
        pair(run, 1, 2, -1, "MATCHED");
        assertEquals(3, pairLines(run), run.out());
        fate(run, "MATCHED", 3, "4", "[4]", "made row 3 (cur 'GBP') has no row of its key");
        final ExplainRun version = explain(partitions, spec, events, "--step", "0");
        pair(version, 3, -1, 1, "MATCHED");
        fate(version, "MATCHED", -1, "null", "[4]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void asofLeftExpandPicksAMatchPerMadeRow(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"asof\",\"type\":\"left\",\"leftKey\":[\"sym\"],\"rightKey\":[\"sym\"]," +
            "\"asof\":{\"direction\":\"backward\"},\"leftExpand\":{\"unnest\":\"syms\",\"as\":\"sym\"}}";
        final ExplainRun run = explain(partitions, spec, """
            {"side":"right","ts":100,"row":{"sym":"X","px":1}}
            {"side":"right","ts":200,"row":{"sym":"X","px":2}}
            {"side":"right","ts":150,"row":{"sym":"Y","px":3}}
            {"side":"left","ts":250,"row":{"syms":["X","Y","Z"]}}
            {"watermark":400}
            """, "--step", "3");
        pair(run, 1, 1, -1, "MATCHED");
        pair(run, 0, 1, -1, "NOT_SELECTED", "right row of step 1 (ts 200) wins");
        pair(run, 2, 2, -1, "MATCHED");
        fate(run, "MATCHED", 3, "4", "[4]");
    }

    // ------------------------------------------------------------------ multi-way, an input's expand

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void multiWayInputExpand(final int partitions) throws IOException
    {
        final String spec = "{\"join\":\"multi\",\"inputs\":[{\"name\":\"orders\",\"key\":[\"oid\"]}," +
            "{\"name\":\"lines\",\"type\":\"left\",\"key\":[\"oid\"],\"expand\":{\"unnest\":\"items\"," +
            "\"as\":{\"sku\":\"sku\",\"qty\":\"qty\"},\"ordinality\":\"line\"}}]," +
            "\"condition\":[{\"left\":\"orders.min\",\"op\":\"<=\",\"right\":\"lines.qty\"}]}";
        final String events = """
            {"side":"orders","row":{"oid":1,"min":2}}
            {"side":"lines","row":{"oid":1,"items":[{"sku":"A","qty":2},{"sku":"B","qty":1},null]}}
            {"side":"lines","row":{"oid":1,"items":[]}}
            """;
        final ExplainRun run = explain(partitions, spec, events, "--step", "1");
        pair(run, 0, 1, -1, "MATCHED");
        pair(run, 0, 2, -1, "CONDITION_FAILED", "orders.min <= lines.qty", "lines.qty was 1");
        pair(run, 0, 3, -1, "CONDITION_FAILED", "lines.qty was null");
        fate(run, "MATCHED", 3, "null", "[1]");
        assertEquals("lines", run.fate().get("input").asText());
        final ExplainRun order = explain(partitions, spec, events, "--step", "0");
        pair(order, 1, -1, 1, "MATCHED");
        pair(order, 1, -1, 2, "CONDITION_FAILED");
        final ExplainRun empty = explain(partitions, spec, events, "--step", "2");
        fate(empty, "NO_MATCH", 0, "null", "[]", "unnest of items made no rows: items is empty");
    }

    // ------------------------------------------------------------------ standalone "join": "expand"

    private static final String EXPAND = "{\"join\":\"expand\",\"type\":\"inner\",\"expand\":{\"function\":\"split\"," +
        "\"args\":[\"csv\",\";\"],\"as\":\"part\",\"ordinality\":\"n\"},\"leftFilter\":[{\"field\":\"kind\",\"op\":\"==\"," +
        "\"value\":\"list\"}],\"condition\":[{\"left\":\"min\",\"op\":\"<=\",\"right\":\"n\"}]}";
    private static final String EXPAND_EVENTS = """
        {"side":"left","row":{"kind":"list","min":2,"csv":"a;b;c"}}
        {"side":"left","row":{"kind":"other","min":1,"csv":"a;b"}}
        {"side":"left","row":{"kind":"list","min":1,"csv":null}}
        {"side":"left","row":{"kind":"list","min":1,"csv":5}}
        {"side":"left","op":"-D","row":{"kind":"list","min":2,"csv":"a;b;c"}}
        """;

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void standaloneExpandKeepsTheMadeRowsTheOnClauseHolds(final int partitions) throws IOException
    {
        final ExplainRun run = explain(partitions, EXPAND, EXPAND_EVENTS, "--step", "0");
        pair(run, 0, 1, -1, "CONDITION_FAILED", "left.min <= right.n failed", "min was 2", "n was 1");
        assertEquals(0, pair(run, 0, 2, -1, "MATCHED").get("outputStep").asLong());
        pair(run, 0, 3, -1, "MATCHED");
        fate(run, "MATCHED", 3, "null", "[0]", "kept 2 of the 3 rows split of csv at ';' made");
        final ExplainRun filtered = explain(partitions, EXPAND, EXPAND_EVENTS, "--step", "1");
        pair(filtered, 1, 1, -1, "FILTER_FAILED", "left filter kind == 'list' failed: kind was 'other'");
        pair(filtered, 1, 2, -1, "FILTER_FAILED");
        fate(filtered, "NO_MATCH", 2, "null", "[]", "kept none");
        final ExplainRun retraction = explain(partitions, EXPAND, EXPAND_EVENTS, "--step", "4");
        pair(retraction, 4, 2, -1, "MATCHED");
        fate(retraction, "MATCHED", 3, "null", "[4]");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void standaloneExpandNoRowsFailedAndPadded(final int partitions) throws IOException
    {
        final ExplainRun none = explain(partitions, EXPAND, EXPAND_EVENTS, "--step", "2");
        assertEquals(0, pairLines(none), none.out());
        fate(none, "NO_MATCH", 0, "null", "[]", "split of csv at ';' made no rows: csv is null");
        final ExplainRun failed = explain(partitions, EXPAND, EXPAND_EVENTS, "--step", "3");
        fate(failed, "BAD_INPUT", 0, "null", "[]", "expansion_failed", "not a string");
        assertEquals("expansion_failed", failed.fate().get("deadLetter").asText());
        final String left = EXPAND.replace("\"inner\"", "\"left\"");
        final ExplainRun padded = explain(partitions, left, EXPAND_EVENTS, "--step", "1");
        fate(padded, "NO_MATCH", 2, "1", "[1]", "emits it once with right null (step 1)");
        final ExplainRun paddedNone = explain(partitions, left, EXPAND_EVENTS, "--step", "2");
        fate(paddedNone, "NO_MATCH", 0, "2", "[2]", "csv is null");
    }

    // ------------------------------------------------------------------ refusals stay

    @ParameterizedTest
    @ValueSource(ints = {1, 3})
    void badStepsOfAnExpansionSpecExitTwo(final int partitions) throws IOException
    {
        final String[][] refused = {{"--step", "9"}, {"--step", "4"}, {"--step", "1", "--with", "0"}, {"--step", "0", "--with", "5"}};
        final String[] messages = {"--step 9: beyond the log", "--step 4 (line 5) is a watermark line, not a row",
            "--with 0 (line 1) is a row of the same input (left)", "a standalone expand join has one input"};
        final String[] specs = {INTERVAL, INTERVAL, EXPAND, EXPAND};
        final String[] logs = {INTERVAL_EVENTS, INTERVAL_EVENTS, EXPAND_EVENTS, EXPAND_EVENTS + "{\"side\":\"right\",\"row\":{\"x\":1}}\n"};
        for (int i = 0; i < refused.length; i++)
        {
            final ExplainRun run = run(partitions, specs[i], logs[i], refused[i]);
            assertEquals(2, run.exit(), run.out() + run.err());
            assertTrue(run.err().contains(messages[i]), run.err());
            assertEquals("", run.out());
        }
    }
}
