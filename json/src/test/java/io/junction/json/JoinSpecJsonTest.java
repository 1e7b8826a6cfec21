package io.junction.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.AsofSpec;
import io.junction.api.CoGroupBuiltin;
import io.junction.api.CompareOp;
import io.junction.api.FieldFilter;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.Side;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Schema;
import io.junction.api.WindowSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.junction.api.FieldType;
import java.util.ArrayList;

/** SEMANTICS 1 "Join spec": what is accepted, the defaults, and that every rejection names its field. */
class JoinSpecJsonTest
{

    private static JoinSpec parse(final String json)
    {
        return JoinSpecJson.parse(json).spec();
    }

    @Test
    void readsEveryFieldOfAnIntervalJoin()
    {
        final JoinSpecJson.Parsed parsed = JoinSpecJson.parse("{" +
            "\"join\":\"interval\",\"type\":\"left\",\"leftKey\":[\"log_id\",\"site\"],\"rightKey\":[\"log_id\",\"site\"]," +
            "\"interval\":{\"lower\":-30000,\"upper\":30000,\"upperInclusive\":false}," +
            "\"leftFilter\":[{\"field\":\"status\",\"op\":\"==\",\"value\":\"ok\"},{\"field\":\"w\",\"op\":\">=\",\"value\":2.0}]," +
            "\"rightFilter\":[{\"field\":\"x\",\"op\":\"!=\",\"value\":null}]," +
            "\"condition\":[{\"left\":\"price\",\"op\":\"<=\",\"right\":\"budget\"}]," +
            "\"allowedLateness\":500}");
        final Schema schema = Schema.of("extra", "log_id", "site", "status", "w", "x", "price", "budget", "more");
        final JoinSpec spec = parsed.spec(schema);
        assertEquals(JoinKind.INTERVAL, spec.kind());
        assertEquals(JoinType.LEFT, spec.type());
        assertEquals(List.of("log_id", "site"), spec.leftKey());
        assertEquals(-30000, spec.interval().lower());
        assertEquals(30000, spec.interval().upper());
        assertTrue(spec.interval().lowerInclusive(), "lowerInclusive defaults to true");
        assertEquals(false, spec.interval().upperInclusive());
        assertEquals(500, spec.allowedLateness());
        assertEquals(2, spec.leftFilter().size());
        assertEquals(CompareOp.GE, spec.leftFilter().get(1).op());
        assertEquals(Literal.of(2L), spec.leftFilter().get(1).value(), "2.0 is the long 2, as in rows");
        assertEquals(Literal.ofNull(), spec.rightFilter().get(0).value());
        assertEquals(1, spec.condition().size());
        assertEquals(List.of("log_id", "site", "status", "w", "x", "price", "budget"), parsed.fieldNames(),
            "keys, filter fields, condition fields, each once, in that order");
        assertEquals(schema, spec.leftSchema());
        assertThrows(IllegalArgumentException.class, () -> parsed.spec(Schema.of("log_id", "site")),
            "a schema without the spec's names is refused");
    }

    @Test
    void readsTheOutputBudget()
    {
        final String regular = "{\"join\":\"regular\",\"type\":\"left\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]";
        assertEquals(0, parse(regular + "}").maxFanOut(), "absent: unbounded");
        assertEquals(1000, parse(regular + ",\"maxFanOut\":1000}").maxFanOut());
        assertEquals(1000, parse(regular.replace("regular", "interval") +
            ",\"interval\":{\"lower\":0,\"upper\":5},\"maxFanOut\":1000}").maxFanOut());
        final JoinSpecException negative = assertThrows(JoinSpecException.class, () -> parse(regular + ",\"maxFanOut\":-1}"));
        assertEquals("maxFanOut", negative.field());
        final JoinSpecException temporal = assertThrows(JoinSpecException.class, () ->
            parse(regular.replace("regular", "temporal") + ",\"maxFanOut\":10}"));
        assertEquals("maxFanOut", temporal.field());
        assertTrue(temporal.getMessage().contains("at most one line per row"), temporal.getMessage());
    }

    @Test
    void readsWindowsWithTheirDefaults()
    {
        final WindowSpec tumbling = parse("{\"join\":\"window\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"tumbling\",\"size\":10}}").window();
        assertEquals(WindowSpec.Kind.TUMBLING, tumbling.kind());
        assertEquals(10, tumbling.size());
        assertEquals(0, tumbling.offset());
        final WindowSpec sliding = parse("{\"join\":\"window\",\"type\":\"full\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"sliding\",\"size\":10000,\"slide\":5000}}").window();
        assertEquals(5000, sliding.slide());
        final WindowSpec session = parse("{\"join\":\"window\",\"type\":\"anti\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"session\",\"gap\":5000}}").window();
        assertEquals(5000, session.gap());
    }

    @Test
    void readsARegularJoinWithTtl()
    {
        final JoinSpec spec = parse("{\"join\":\"regular\",\"type\":\"semi\",\"leftKey\":[\"k\"],\"rightKey\":[\"id\"],\"stateTtl\":50}");
        assertEquals(JoinKind.REGULAR, spec.kind());
        assertEquals(50, spec.stateTtl());
        assertNull(spec.interval());
    }

    @Test
    void readsAStateTtlPerSide()
    {
        final JoinSpec both = parse("{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"stateTtl\":50," +
            "\"rightStateTtl\":900}");
        assertEquals(50, both.stateTtl(Side.LEFT), "stateTtl applies to the side without its own");
        assertEquals(900, both.stateTtl(Side.RIGHT));
        final JoinSpec one = parse("{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"leftStateTtl\":7}");
        assertEquals(7, one.stateTtl(Side.LEFT));
        assertEquals(0, one.stateTtl(Side.RIGHT), "no TTL: kept forever");
    }

    @Test
    void readsUniqueKeys()
    {
        final JoinSpecJson.Parsed parsed = JoinSpecJson.parse("{\"join\":\"regular\",\"type\":\"left\"," +
            "\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"leftUniqueKey\":[\"order_id\"],\"rightUniqueKey\":[\"k\",\"line\"]," +
            "\"leftFilter\":[{\"field\":\"status\",\"op\":\"==\",\"value\":\"ok\"}]}");
        assertEquals(List.of("k", "order_id", "line", "status"), parsed.fieldNames(),
            "keys, unique keys, filter fields, each once, in that order");
        final JoinSpec spec = parsed.spec();
        assertEquals(List.of("order_id"), spec.leftUniqueKey());
        assertEquals(List.of("k", "line"), spec.rightUniqueKey());
        assertThrows(IllegalArgumentException.class, () -> parsed.spec(Schema.of("k", "line", "status")),
            "a schema without a unique-key field is refused");
        assertEquals(List.of(), parse("{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}")
            .leftUniqueKey(), "none declared");
    }

    @Test
    void allowsCommentsLikeTheSpecExample()
    {
        parse("{\"join\":\"regular\", // the kind\n \"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
    }

    /** Each row: the spec, then the field path its rejection must name. */
    @Test
    void readsTemporalAndLookupJoins()
    {
        final JoinSpec temporal = parse("{\"join\":\"temporal\",\"type\":\"left\",\"leftKey\":[\"currency\"]," +
            "\"rightKey\":[\"currency\"],\"condition\":[{\"left\":\"amount\",\"op\":\"<=\",\"right\":\"limit\"}]}");
        assertEquals(JoinKind.TEMPORAL, temporal.kind());
        assertEquals(JoinType.LEFT, temporal.type());
        final JoinSpec lookup = parse("{\"join\":\"LOOKUP\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"id\"]}");
        assertEquals(JoinKind.LOOKUP, lookup.kind());
        assertEquals(List.of("id"), lookup.rightKey());
    }

    @Test
    void readsAsofJoins()
    {
        final JoinSpec backward = parse("{\"join\":\"asof\",\"type\":\"left\",\"leftKey\":[\"sym\"],\"rightKey\":[\"sym\"]," +
            "\"asof\":{\"direction\":\"backward\"}}");
        assertEquals(JoinKind.ASOF, backward.kind());
        assertEquals(JoinType.LEFT, backward.type());
        assertEquals(AsofSpec.of(AsofSpec.Direction.BACKWARD), backward.asof());
        assertEquals(AsofSpec.Emit.FINAL, backward.asof().emit(), "emit defaults to final");
        assertFalse(backward.asof().hasTolerance(), "no tolerance: unbounded");
        final JoinSpec nearest = parse("{\"join\":\"ASOF\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"asof\":{\"direction\":\"nearest\",\"tolerance\":1000,\"emit\":\"eager\"},\"allowedLateness\":50," +
            "\"leftFilter\":[{\"field\":\"side\",\"op\":\"==\",\"value\":\"buy\"}]," +
            "\"condition\":[{\"left\":\"price\",\"op\":\"<=\",\"right\":\"ask\"}]}");
        assertEquals(AsofSpec.of(AsofSpec.Direction.NEAREST).withTolerance(1000).withEmit(AsofSpec.Emit.EAGER), nearest.asof());
        assertEquals(50, nearest.allowedLateness());
        assertEquals(1, nearest.condition().size());
        final JoinSpec forward = parse("{\"join\":\"asof\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
            "\"asof\":{\"direction\":\"Forward\",\"tolerance\":0,\"emit\":\"final\"}}");
        assertEquals(AsofSpec.of(AsofSpec.Direction.FORWARD).withTolerance(0), forward.asof());
        assertNotEquals(forward.fingerprint(), parse("{\"join\":\"asof\",\"type\":\"inner\",\"leftKey\":[\"k\"]," +
            "\"rightKey\":[\"k\"],\"asof\":{\"direction\":\"forward\",\"tolerance\":1}}").fingerprint(),
            "the options are part of the spec's fingerprint (durable state of one is refused by another)");
        final JoinSpecException unknown = assertThrows(JoinSpecException.class, () -> parse(
            "{\"join\":\"streaming\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}"));
        assertTrue(unknown.getMessage().contains("lookup, asof, multi or expand"), unknown.getMessage());
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a','b']}                       | rightKey",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'colour':'red'}            | colour",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0,'upper':1,'upperInclusiv':true}} | interval.upperInclusiv",
        "{'join':'regular','leftKey':['a'],'rightKey':['a']}                                          | type",
        "{'type':'inner','leftKey':['a'],'rightKey':['a']}                                            | join",
        "{'join':'regular','type':'inner','rightKey':['a']}                                           | leftKey",
        "{'join':'regular','type':'inner','leftKey':[],'rightKey':[]}                                 | leftKey",
        "{'join':'regular','type':'outer','leftKey':['a'],'rightKey':['a']}                           | type",
        "{'join':'streaming','type':'inner','leftKey':['a'],'rightKey':['a']}                         | join",
        "{'join':'regular','type':'inner','leftKey':'a','rightKey':['a']}                             | leftKey",
        "{'join':'regular','type':'inner','leftKey':[1],'rightKey':['a']}                             | leftKey[0]",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'leftFilter':[{'field':'s','op':'=~','value':'x'}]} | leftFilter[0].op",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'rightFilter':[{'field':'s','op':'=='}]} | rightFilter[0].value",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'rightFilter':[{'field':'s','op':'==','value':[1]}]} | rightFilter[0].value",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'condition':[{'left':'p','op':'<','right':'q','x':1}]} | condition[0].x",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'condition':[{'left':'p','op':'<>','right':'q'}]} | condition[0].op",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'condition':{'left':'p'}} | condition",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a']}                          | interval",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0}}   | interval.upper",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':'0','upper':1}} | interval.lower",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0,'upper':1,'lowerInclusive':'yes'}} | interval.lowerInclusive",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':5,'upper':1}} | interval",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0,'upper':1}} | interval",
        "{'join':'window','type':'inner','leftKey':['a'],'rightKey':['a']}                            | window",
        "{'join':'window','type':'inner','leftKey':['a'],'rightKey':['a'],'window':{'kind':'hopping','size':1}} | window.kind",
        "{'join':'window','type':'inner','leftKey':['a'],'rightKey':['a'],'window':{'kind':'tumbling','size':10,'gap':1}} | window.gap",
        "{'join':'window','type':'inner','leftKey':['a'],'rightKey':['a'],'window':{'kind':'sliding','size':10}} | window.slide",
        "{'join':'window','type':'inner','leftKey':['a'],'rightKey':['a'],'window':{'kind':'sliding','size':1001,'slide':1}} | window.slide",
        "{'join':'window','type':'inner','leftKey':['a'],'rightKey':['a'],'window':{'kind':'tumbling','size':0}} | window.size",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'allowedLateness':-1}      | allowedLateness",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'stateTtl':1.5}            | stateTtl",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0,'upper':1},'stateTtl':10} | stateTtl",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'rightStateTtl':-5}        | rightStateTtl",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0,'upper':1},'leftStateTtl':10} | stateTtl",
        "{'join':'regular','join':'interval','type':'inner','leftKey':['a'],'rightKey':['a']}         | spec",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'leftUniqueKeys':['a']}    | leftUniqueKeys",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'leftUniqueKey':[]}        | leftUniqueKey",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'leftUniqueKey':'a'}       | leftUniqueKey",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'rightUniqueKey':['a',2]}  | rightUniqueKey[1]",
        "{'join':'regular','type':'inner','leftKey':['a'],'rightKey':['a'],'rightUniqueKey':['b','a','b']} | rightUniqueKey[2]",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0,'upper':1},'leftUniqueKey':['a']} | leftUniqueKey",
        "{'join':'window','type':'inner','leftKey':['a'],'rightKey':['a'],'window':{'kind':'session','gap':5},'rightUniqueKey':['a']} | rightUniqueKey",
        "{'join':'temporal','type':'right','leftKey':['a'],'rightKey':['a']}                          | type",
        "{'join':'lookup','type':'semi','leftKey':['a'],'rightKey':['a']}                             | type",
        "{'join':'temporal','type':'left','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0,'upper':1}} | interval",
        "{'join':'lookup','type':'left','leftKey':['a'],'rightKey':['a'],'window':{'kind':'session','gap':5}} | window",
        "{'join':'temporal','type':'left','leftKey':['a'],'rightKey':['a'],'allowedLateness':10}      | allowedLateness",
        "{'join':'temporal','type':'inner','leftKey':['a'],'rightKey':['a'],'stateTtl':10}            | stateTtl",
        "{'join':'lookup','type':'inner','leftKey':['a'],'rightKey':['a'],'rightUniqueKey':['a']}     | rightUniqueKey",
        "{'join':'temporal','type':'inner','leftKey':['a'],'rightKey':['a','b']}                      | rightKey",
        "['join']                                                                                      | spec",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a']}                               | asof",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{}}                     | asof.direction",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'sideways'}} | asof.direction",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':1}}        | asof.direction",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward','toleranc':5}} | asof.toleranc",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward','tolerance':-5}} | asof.tolerance",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward','tolerance':1.5}} | asof.tolerance",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward','tolerance':'5'}} | asof.tolerance",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward','emit':'lazy'}} | asof.emit",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward','emit':true}} | asof.emit",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':'backward'}             | asof",
        "{'join':'asof','type':'full','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward'}} | type",
        "{'join':'asof','type':'anti','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'nearest'}} | type",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward'},'interval':{'lower':0,'upper':1}} | interval",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward'},'window':{'kind':'session','gap':5}} | window",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward'},'stateTtl':10} | stateTtl",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward'},'leftUniqueKey':['a']} | leftUniqueKey",
        "{'join':'asof','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward'},'allowedLateness':-1} | allowedLateness",
        "{'join':'temporal','type':'left','leftKey':['a'],'rightKey':['a'],'asof':{'direction':'backward'}} | asof",
        "{'join':'interval','type':'inner','leftKey':['a'],'rightKey':['a'],'interval':{'lower':0,'upper':1},'asof':{'direction':'forward'}} | asof",
    })
    void rejectsWithTheFieldNamed(final String singleQuoted, final String field)
    {
        final String json = singleQuoted.replace('\'', '"');
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> parse(json));
        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().startsWith(field + ": "), e.getMessage());
    }

    private static final String HEAD = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]";

    @Test
    void rejectsDeepNestingWithAMessageNotACrash()
    {
        final String nested = "[".repeat(10_000) + "]".repeat(10_000);
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(nested));
        assertEquals("spec", e.field(), e.getMessage());
        assertTrue(e.getMessage().contains("nesting depth"), e.getMessage());
        final String inside = HEAD + ",\"leftFilter\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";
        assertEquals("spec", assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(inside)).field());
    }

    @Test
    void rejectsMoreTermsThanTheBound()
    {
        final StringBuilder filters = new StringBuilder(HEAD).append(",\"leftFilter\":[");
        for (int i = 0; i < 5_000; i++)
        {
            filters.append(i == 0 ? "" : ",").append("{\"field\":\"f").append(i).append("\",\"op\":\"==\",\"value\":1}");
        }
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> parse(filters + "]}"));
        assertEquals("leftFilter", e.field(), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(JoinSpecJson.MAX_TERMS)), e.getMessage());

        final StringBuilder atBound = new StringBuilder(HEAD).append(",\"condition\":[");
        for (int i = 0; i < JoinSpecJson.MAX_TERMS; i++)
        {
            atBound.append(i == 0 ? "" : ",").append("{\"left\":\"l").append(i).append("\",\"op\":\"<\",\"right\":\"r").append(i).append("\"}");
        }
        assertEquals(JoinSpecJson.MAX_TERMS, parse(atBound + "]}").condition().size());
        final String overBound = atBound + ",{\"left\":\"x\",\"op\":\"<\",\"right\":\"y\"}]}";
        assertEquals("condition", assertThrows(JoinSpecException.class, () -> parse(overBound)).field());
        final String keys = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[" + "\"k\",".repeat(300) + "\"k\"],\"rightKey\":[\"k\"]}";
        assertEquals("leftKey", assertThrows(JoinSpecException.class, () -> parse(keys)).field());
    }

    @Test
    void numbersFollowTheIntegerOrNearestDoubleRule()
    {
        final JoinSpec spec = parse(HEAD + ",\"leftFilter\":[" +
            "{\"field\":\"a\",\"op\":\"==\",\"value\":9007199254740992.0}," +
            "{\"field\":\"b\",\"op\":\"==\",\"value\":9007199254740993.0}," +
            "{\"field\":\"c\",\"op\":\"==\",\"value\":1.00000000000000001}," +
            "{\"field\":\"d\",\"op\":\"==\",\"value\":9223372036854775808.0}," +
            "{\"field\":\"e\",\"op\":\"==\",\"value\":-0.0}]," +
            "\"allowedLateness\":9007199254740993.0}");
        assertEquals(Literal.of(9007199254740992L), spec.leftFilter().get(0).value());
        assertEquals(Literal.of(9007199254740993L), spec.leftFilter().get(1).value(), "exact, not through a double");
        assertEquals(Literal.of(1L), spec.leftFilter().get(2).value());
        assertEquals(Literal.of(0x1p63), spec.leftFilter().get(3).value());
        assertEquals(FieldType.DOUBLE, spec.leftFilter().get(3).value().type(), "2^63 does not fit a long");
        assertEquals(Literal.of(0L), spec.leftFilter().get(4).value());
        assertEquals(9007199254740993L, spec.allowedLateness());
    }

    @Test
    void readsAFileWithAByteOrderMarkAndRejectsOneThatIsNotUtf8(@TempDir final Path dir) throws Exception
    {
        final byte[] text = (HEAD + "}").getBytes(StandardCharsets.UTF_8);
        final byte[] bom = new byte[text.length + 3];
        bom[0] = (byte) 0xEF;
        bom[1] = (byte) 0xBB;
        bom[2] = (byte) 0xBF;
        System.arraycopy(text, 0, bom, 3, text.length);
        assertEquals(JoinKind.REGULAR, JoinSpecJson.read(Files.write(dir.resolve("bom.join.json"), bom)).kind());
        final byte[] bad = text.clone();
        bad[2] = (byte) 0xFF;
        final JoinSpecException e = assertThrows(JoinSpecException.class,
            () -> JoinSpecJson.read(Files.write(dir.resolve("bad.join.json"), bad)));
        assertTrue(e.getMessage().contains("UTF-8"), e.getMessage());
        final Path huge = Files.write(dir.resolve("huge.join.json"), new byte[JoinSpecJson.MAX_SPEC_BYTES + 1]);
        assertEquals("spec", assertThrows(JoinSpecException.class, () -> JoinSpecJson.read(huge)).field());
    }

    @Test
    void readsInListsAndDisjunctions()
    {
        final JoinSpecJson.Parsed parsed = JoinSpecJson.parse(HEAD +
            ",\"leftFilter\":[{\"field\":\"state\",\"op\":\"in\",\"value\":[\"OR\",\"ID\",null,3]}," +
            "{\"any\":[{\"field\":\"a\",\"op\":\"<\",\"value\":0},{\"any\":[{\"field\":\"b\",\"op\":\"in\",\"value\":[true]}]}]}]}");
        assertEquals(List.of("k", "state", "a", "b"), parsed.fieldNames(), "the fields inside any and in count too");
        final JoinSpec spec = parsed.spec();
        final FieldFilter in = spec.leftFilter().get(0);
        assertEquals(CompareOp.IN, in.op());
        assertEquals(List.of(Literal.of("OR"), Literal.of("ID"), Literal.ofNull(), Literal.of(3)), in.values());
        final FieldFilter any = spec.leftFilter().get(1);
        assertTrue(any.isAny());
        assertEquals(2, any.alternatives().size());
        assertEquals(FieldFilter.any(FieldFilter.in("b", Literal.of(true))), any.alternatives().get(1));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{'field':'s','op':'in','value':[]}|leftFilter[0].value|at least one literal",
        "{'field':'s','op':'in','value':'OR'}|leftFilter[0].value|needs a list",
        "{'field':'s','op':'==','value':['OR']}|leftFilter[0].value|needs op 'in'",
        "{'field':'s','op':'in'}|leftFilter[0].value|required",
        "{'field':'s','op':'in','value':[[1]]}|leftFilter[0].value[0]|must be a string",
        "{'any':[]}|leftFilter[0].any|at least one filter",
        "{'any':{'field':'s','op':'==','value':1}}|leftFilter[0].any|must be an array",
        "{'any':[{'field':'s','op':'==','value':1}],'field':'s'}|leftFilter[0].field|unknown",
        "{'any':[{'field':'s','op':'like','value':1}]}|leftFilter[0].any[0].op|unknown op",
    })
    void rejectsBadInListsAndDisjunctions(final String filter, final String path, final String message)
    {
        final String json = HEAD + ",\"leftFilter\":[" + filter.replace('\'', '"') + "]}";
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> parse(json));
        assertTrue(e.getMessage().startsWith(path), e.getMessage());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void rejectsInListsTooLongAnyNestedTooDeepAndInInConditions()
    {
        final StringBuilder list = new StringBuilder();
        for (int i = 0; i <= JoinSpecJson.MAX_TERMS; i++)
        {
            list.append(i == 0 ? "" : ",").append(i);
        }
        final JoinSpecException tooLong = assertThrows(JoinSpecException.class,
            () -> parse(HEAD + ",\"rightFilter\":[{\"field\":\"s\",\"op\":\"in\",\"value\":[" + list + "]}]}"));
        assertTrue(tooLong.getMessage().startsWith("rightFilter[0].value"), tooLong.getMessage());
        assertTrue(tooLong.getMessage().contains("more than the 256"), tooLong.getMessage());

        String nested = "{\"field\":\"s\",\"op\":\"==\",\"value\":1}";
        for (int i = 0; i < FieldFilter.MAX_DEPTH; i++)
        {
            nested = "{\"any\":[" + nested + "]}";
        }
        assertEquals(FieldFilter.MAX_DEPTH, parse(HEAD + ",\"leftFilter\":[" + nested + "]}").leftFilter().get(0).depth(),
            "the deepest nesting allowed parses");
        final String deeper = "{\"any\":[" + nested + "]}";
        final JoinSpecException tooDeep = assertThrows(JoinSpecException.class, () -> parse(HEAD + ",\"leftFilter\":[" + deeper + "]}"));
        assertTrue(tooDeep.getMessage().contains("nested more than 8 levels"), tooDeep.getMessage());

        final JoinSpecException inCondition = assertThrows(JoinSpecException.class,
            () -> parse(HEAD + ",\"condition\":[{\"left\":\"a\",\"op\":\"in\",\"right\":\"b\"}]}"));
        assertTrue(inCondition.getMessage().startsWith("condition[0].op"), inCondition.getMessage());
    }

    @Test
    void readsAConditionOffset()
    {
        final JoinSpec spec = parse(HEAD + ",\"condition\":[{\"left\":\"ts\",\"leftOffset\":1000,\"op\":\"<\",\"right\":\"ts\"}," +
            "{\"left\":\"a\",\"op\":\"==\",\"right\":\"b\"}]}");
        assertEquals(1000, spec.condition().get(0).leftOffset());
        assertEquals(0, spec.condition().get(1).leftOffset(), "no offset");
        assertEquals("left.ts + 1000 < right.ts", spec.condition().get(0).toString());
        for (final String bad : new String[] {"\"1000\"", "1.5", "1e30", "null"})
        {
            final JoinSpecException e = assertThrows(JoinSpecException.class,
                () -> parse(HEAD + ",\"condition\":[{\"left\":\"ts\",\"leftOffset\":" + bad + ",\"op\":\"<\",\"right\":\"ts\"}]}"));
            assertTrue(e.getMessage().startsWith("condition[0].leftOffset"), e.getMessage());
        }
    }

    private static final String WINDOW = "{\"join\":\"window\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
        "\"window\":{\"kind\":\"tumbling\",\"size\":10}";

    @Test
    void readsACoGroupBuiltin()
    {
        for (final CoGroupBuiltin builtin : CoGroupBuiltin.values())
        {
            final JoinSpecJson.Parsed parsed = JoinSpecJson.parse(WINDOW + ",\"type\":\"full\",\"coGroup\":\"" + builtin.jsonName() + "\"}");
            assertEquals(builtin, parsed.coGroup());
            final JoinSpec spec = parsed.spec();
            assertEquals(builtin, spec.coGroupBuiltin());
            assertTrue(spec.coGroup() != null);
        }
        assertEquals(List.of("k", "leftCount", "rightCount"),
            names(parse(WINDOW + ",\"type\":\"left\",\"coGroup\":\"count\"}").coGroupSchema()));
        assertEquals(List.of("matches"),
            names(parse(WINDOW + ",\"type\":\"left\",\"coGroup\":\"leftWithMatchCount\"}").coGroupSchema()));
        assertNull(parse(WINDOW + ",\"type\":\"inner\",\"coGroup\":\"first\"}").coGroupSchema(), "first emits input rows only");
        assertNull(JoinSpecJson.parse(WINDOW + ",\"type\":\"inner\"}").coGroup(), "a window join");
    }

    private static List<String> names(final Schema schema)
    {
        final ArrayList<String> names = new ArrayList<>();
        for (int i = 0; i < schema.size(); i++)
        {
            names.add(schema.nameOf(i));
        }
        return names;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "'type':'full','coGroup':'sum'                                     | coGroup | unknown function 'sum' (expected one of count, first, last, leftWithMatchCount)",
        "'type':'full','coGroup':['count']                                 | coGroup | must be a string",
        "'type':'semi','coGroup':'count'                                   | coGroup | type must be inner, left, right or full",
        "'type':'full','coGroup':'count','condition':[{'left':'a','op':'<','right':'a'}] | condition | not with coGroup",
    })
    void rejectsABadCoGroup(final String fields, final String path, final String message)
    {
        final String json = (WINDOW + "," + fields + "}").replace('\'', '"');
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(json));
        assertEquals(path, e.field(), e.getMessage());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void rejectsACoGroupOnAnotherKindAndAKeyThatClashesWithTheCountFields()
    {
        final JoinSpecException regular = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(HEAD + ",\"coGroup\":\"count\"}"));
        assertEquals("coGroup", regular.field(), regular.getMessage());
        final JoinSpecException clash = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(
            "{\"join\":\"window\",\"type\":\"full\",\"leftKey\":[\"rightCount\"],\"rightKey\":[\"k\"]," +
            "\"window\":{\"kind\":\"session\",\"gap\":10},\"coGroup\":\"count\"}"));
        assertEquals("coGroup", clash.field(), clash.getMessage());
    }

    private static final String KEYS = "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"id\"],\"rightKey\":[\"id\"],";

    @Test
    void aSchemaDeclaresTypedFields()
    {
        final JoinSpecJson.Parsed parsed = JoinSpecJson.parse(KEYS
            + "\"leftFilter\":[{\"field\":\"amount\",\"op\":\">\",\"value\":0}],"
            + "\"schema\":[{\"name\":\"id\",\"type\":\"long\",\"required\":true},{\"name\":\"amount\",\"type\":\"double\"},"
            + "{\"name\":\"note\"}]}");
        final Schema schema = parsed.schema();
        assertEquals("Schema[id:long!, amount:double, note]", schema.toString());
        assertTrue(schema.isTyped());
        assertEquals(schema, parsed.spec().leftSchema(), "spec() is built against the declared schema");
        assertEquals(null, JoinSpecJson.parse(KEYS.substring(0, KEYS.length() - 1) + "}").schema(), "no schema: none declared");
    }

    @Test
    void aSchemaIsCheckedFieldByField()
    {
        assertRejected(KEYS + "\"schema\":[{\"name\":\"ID\"}]}", "schema", "does not declare the spec's field 'id'");
        assertRejected(KEYS + "\"schema\":{\"id\":\"long\"}}", "schema", "must be an array");
        assertRejected(KEYS + "\"schema\":[]}", "schema", "declares no field");
        assertRejected(KEYS + "\"schema\":[\"id\"]}", "schema[0]", "must be");
        assertRejected(KEYS + "\"schema\":[{\"name\":\"id\",\"type\":\"int\"}]}", "schema[0].type", "unknown type 'int'");
        assertRejected(KEYS + "\"schema\":[{\"name\":\"id\",\"typ\":\"long\"}]}", "schema[0].typ", "");
        assertRejected(KEYS + "\"schema\":[{\"name\":\"id\"},{\"name\":\"id\"}]}", "schema[1].name", "duplicate field 'id'");
        assertRejected(KEYS + "\"schema\":[{\"name\":\"id\",\"required\":\"yes\"}]}", "schema[0].required", "");
    }

    @Test
    void aSchemaRejectsComparisonsOfIncompatibleTypes()
    {
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(KEYS
            + "\"leftFilter\":[{\"field\":\"note\",\"op\":\"==\",\"value\":1}],"
            + "\"schema\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"note\",\"type\":\"string\"}]}"));
        assertTrue(e.getMessage().contains("note"), e.getMessage());
        final JoinSpecException keys = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"id\"],\"rightKey\":[\"name\"],"
                + "\"schema\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"name\",\"type\":\"string\"}]}"));
        assertTrue(keys.getMessage().contains("id") || keys.getMessage().contains("name"), keys.getMessage());
    }

    @Test
    void aMultiWaySpecTakesASchemaToo()
    {
        final JoinSpecJson.Parsed parsed = JoinSpecJson.parse("{\"join\":\"multi\",\"inputs\":["
            + "{\"name\":\"a\",\"key\":[\"k\"]},{\"name\":\"b\",\"type\":\"inner\",\"key\":[\"k\"]}],"
            + "\"schema\":[{\"name\":\"k\",\"type\":\"long\"}]}");
        assertEquals("Schema[k:long]", parsed.schema().toString());
        assertRejected("{\"join\":\"multi\",\"inputs\":[{\"name\":\"a\",\"key\":[\"k\"]},"
            + "{\"name\":\"b\",\"type\":\"inner\",\"key\":[\"k2\"]}],\"schema\":[{\"name\":\"k\"}]}",
            "schema", "does not declare the spec's field 'k2'");
    }

    private static void assertRejected(final String json, final String field, final String text)
    {
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(json), json);
        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().contains(text), e.getMessage());
    }

    @Test
    void aMisspeltSpecFieldIsRefusedWithTheClosestAllowedOne()
    {
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftkey\":[\"k\"],\"rightKey\":[\"k\"]}"));
        assertTrue(e.getMessage().contains("did you mean 'leftKey'?"), e.getMessage());
        final JoinSpecException nested = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(
            "{\"join\":\"interval\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]," +
                "\"interval\":{\"lower\":0,\"uper\":10}}"));
        assertTrue(nested.getMessage().contains("did you mean 'upper'?"), nested.getMessage());
        final JoinSpecException far = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(
            "{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"],\"banana\":1}"));
        assertFalse(far.getMessage().contains("did you mean"), "no guess for a name like none: " + far.getMessage());
    }

    @Test
    void twoJsonValuesAreRefusedWithoutTheParsersInternals()
    {
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(
            "{\"side\":\"left\",\"ts\":1,\"row\":{}}\n{\"side\":\"left\",\"ts\":2,\"row\":{}}\n"));
        assertFalse(e.getMessage().contains("com.fasterxml") || e.getMessage().contains("DeserializationFeature"), e.getMessage());
        assertTrue(e.getMessage().contains("more than one JSON value"), e.getMessage());
    }
}
