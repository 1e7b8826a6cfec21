package io.junction.tools.spec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.junction.api.CompareOp;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Schema;
import io.junction.api.WindowSpec;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** SPEC 1 "Join spec": what is accepted, the defaults, and that every rejection names its field. */
class JoinSpecJsonTest {

    private static JoinSpec parse(final String json) {
        return JoinSpecJson.parse(json, new Schema());
    }

    @Test
    void readsEveryFieldOfAnIntervalJoin() {
        final Schema schema = new Schema();
        final JoinSpec spec = JoinSpecJson.parse("{" +
            "\"join\":\"interval\",\"type\":\"left\",\"leftKey\":[\"log_id\",\"site\"],\"rightKey\":[\"log_id\",\"site\"]," +
            "\"interval\":{\"lower\":-30000,\"upper\":30000,\"upperInclusive\":false}," +
            "\"leftFilter\":[{\"field\":\"status\",\"op\":\"==\",\"value\":\"ok\"},{\"field\":\"w\",\"op\":\">=\",\"value\":2.0}]," +
            "\"rightFilter\":[{\"field\":\"x\",\"op\":\"!=\",\"value\":null}]," +
            "\"condition\":[{\"left\":\"price\",\"op\":\"<=\",\"right\":\"budget\"}]," +
            "\"allowedLateness\":500}", schema);
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
        for (final String name : List.of("log_id", "site", "status", "w", "x", "price", "budget")) {
            assertTrue(schema.indexOf(name) >= 0, name + " registered");
        }
    }

    @Test
    void readsWindowsWithTheirDefaults() {
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
    void readsARegularJoinWithTtl() {
        final JoinSpec spec = parse("{\"join\":\"regular\",\"type\":\"semi\",\"leftKey\":[\"k\"],\"rightKey\":[\"id\"],\"stateTtl\":50}");
        assertEquals(JoinKind.REGULAR, spec.kind());
        assertEquals(50, spec.stateTtl());
        assertNull(spec.interval());
    }

    @Test
    void allowsCommentsLikeTheSpecExample() {
        parse("{\"join\":\"regular\", // the kind\n \"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}");
    }

    /** Each row: the spec, then the field path its rejection must name. */
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
        "{'join':'regular','join':'interval','type':'inner','leftKey':['a'],'rightKey':['a']}         | spec",
        "['join']                                                                                      | spec",
    })
    void rejectsWithTheFieldNamed(final String singleQuoted, final String field) {
        final String json = singleQuoted.replace('\'', '"');
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> parse(json));
        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().startsWith(field + ": "), e.getMessage());
    }
}
