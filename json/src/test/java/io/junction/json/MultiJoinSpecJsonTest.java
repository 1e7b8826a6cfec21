package io.junction.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.MultiJoinSpec;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SEMANTICS 10: the {@code "join": "multi"} spec, parsed and rejected naming the field. */
class MultiJoinSpecJsonTest
{
    private static final String THREE = "{\"join\":\"multi\",\"inputs\":[{\"name\":\"orders\",\"key\":[\"id\"]}," +
        "{\"name\":\"payments\",\"key\":[\"order_id\"],\"type\":\"inner\",\"filter\":[{\"field\":\"amt\",\"op\":\">\",\"value\":0}]}," +
        "{\"name\":\"shipments\",\"key\":[\"order_id\"],\"type\":\"left\",\"stateTtl\":500}]," +
        "\"condition\":[{\"left\":\"orders.amt\",\"op\":\">=\",\"right\":\"payments.amt\"}]}";

    @Test
    void readsTheOutputBudget()
    {
        assertEquals(0, JoinSpecJson.parse(THREE).spec().maxFanOut(), "absent: unbounded");
        final String budgeted = THREE.substring(0, THREE.length() - 1) + ",\"maxFanOut\":64}";
        assertEquals(64, JoinSpecJson.parse(budgeted).spec().maxFanOut());
        assertEquals(64, JoinSpecJson.parse(budgeted).spec().multi().maxFanOut());
        final String negative = THREE.substring(0, THREE.length() - 1) + ",\"maxFanOut\":-2}";
        assertEquals("maxFanOut", assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(negative)).field());
    }

    @Test
    void parsesInputsTypesKeysFiltersTtlsAndConditions()
    {
        final JoinSpecJson.Parsed parsed = JoinSpecJson.parse(THREE);
        assertEquals(JoinKind.MULTI, parsed.kind());
        assertEquals(List.of("orders", "payments", "shipments"), parsed.inputNames());
        assertEquals(List.of("id", "order_id", "amt"), parsed.fieldNames());
        final JoinSpec spec = parsed.spec();
        final MultiJoinSpec multi = spec.multi();
        assertEquals(3, multi.inputs());
        assertNull(multi.type(0));
        assertEquals(JoinType.INNER, multi.type(1));
        assertEquals(JoinType.LEFT, multi.type(2));
        assertEquals(List.of("order_id"), multi.key(2));
        assertEquals(1, multi.filter(1).size());
        assertEquals(500, multi.stateTtl(2));
        assertEquals(0, multi.stateTtl(1));
        assertEquals(1, multi.conditions().size());
        assertEquals(1, multi.conditions().get(0).level());
    }

    @Test
    void binarySpecsHaveNoInputNames()
    {
        assertNull(JoinSpecJson.parse("{\"join\":\"regular\",\"type\":\"inner\",\"leftKey\":[\"k\"],\"rightKey\":[\"k\"]}").inputNames());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "unknown top-level field | {'join':'multi','leftKey':['id'],'inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'inner'}]} | leftKey",
        "missing inputs | {'join':'multi'} | inputs",
        "one input | {'join':'multi','inputs':[{'name':'a','key':['k']}]} | inputs",
        "unknown input field | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'inner','side':1}]} | inputs[1].side",
        "first input with a type | {'join':'multi','inputs':[{'name':'a','key':['k'],'type':'inner'},{'name':'b','key':['k'],'type':'inner'}]} | inputs[0].type",
        "later input without a type | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k']}]} | inputs[1].type",
        "a full join | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'full'}]} | inputs[1].type",
        "key arity | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k','j'],'type':'left'}]} | inputs[1].key",
        "missing key | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','type':'left'}]} | inputs[1].key",
        "duplicate name | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'a','key':['k'],'type':'left'}]} | inputs[1].name",
        "name with a dot | {'join':'multi','inputs':[{'name':'a.b','key':['k']},{'name':'c','key':['k'],'type':'left'}]} | inputs[0].name",
        "bad filter op | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'left','filter':[{'field':'x','op':'~','value':1}]}]} | inputs[1].filter[0].op",
        "negative ttl | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'left','stateTtl':-1}]} | inputs[1].stateTtl",
        "condition on the first input alone | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'left'}],'condition':[{'left':'a.x','op':'<','right':'a.y'}]} | condition[0]",
        "condition naming an unknown input | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'left'}],'condition':[{'left':'a.x','op':'<','right':'c.y'}]} | condition[0].right",
        "condition without an input | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'left'}],'condition':[{'left':'x','op':'<','right':'b.y'}]} | condition[0].left",
        "condition offset | {'join':'multi','inputs':[{'name':'a','key':['k']},{'name':'b','key':['k'],'type':'left'}],'condition':[{'left':'a.x','leftOffset':1,'op':'<','right':'b.y'}]} | condition[0].leftOffset",
    })
    void rejectsNamingTheField(final String what, final String json, final String field)
    {
        final JoinSpecException e = assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(json.replace('\'', '"')));
        assertEquals(field, e.field(), what + ": " + e.getMessage());
    }

    @Test
    void seventeenInputsAreRejected()
    {
        final StringBuilder sb = new StringBuilder("{\"join\":\"multi\",\"inputs\":[{\"name\":\"i0\",\"key\":[\"k\"]}");
        for (int i = 1; i < 17; i++)
        {
            sb.append(",{\"name\":\"i").append(i).append("\",\"key\":[\"k\"],\"type\":\"left\"}");
        }
        final String json = sb.append("]}").toString();
        assertEquals("inputs", assertThrows(JoinSpecException.class, () -> JoinSpecJson.parse(json)).field());
        assertEquals(16, JoinSpecJson.parse(json.replace(",{\"name\":\"i16\",\"key\":[\"k\"],\"type\":\"left\"}", ""))
            .inputNames().size());
    }
}
