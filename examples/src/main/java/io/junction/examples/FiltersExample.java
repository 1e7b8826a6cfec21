package io.junction.examples;

import io.junction.api.CompareOp;
import io.junction.api.FieldFilter;
import io.junction.api.FieldRef;
import io.junction.api.FieldType;
import io.junction.api.JoinKind;
import io.junction.api.JoinSpec;
import io.junction.api.JoinType;
import io.junction.api.Literal;
import io.junction.api.Schema;
import io.junction.api.Side;

/**
 * docs/JAVA_API.md's filters-and-predicates block, compiled: the lines between
 * {@code README:begin filters} and {@code README:end filters} are that block, word for word
 * ({@code ReadmeSnippetTest}). It prints the spec it builds.
 */
public final class FiltersExample
{
    private FiltersExample()
    {
    }

    public static void main(final String[] args)
    {
        // README:begin filters
        Schema auctions = Schema.of("seller", "category", "ts");
        Schema persons = Schema.of("id", "state", "score", "ts");
        FieldRef score = persons.ref("score");                                 // resolved once, at setup: a typo fails here
        FieldRef leftTs = auctions.ref("ts");
        FieldRef rightTs = persons.ref("ts");
        JoinSpec spec = JoinSpec.builder(JoinKind.REGULAR, JoinType.INNER)
            .schemas(auctions, persons)
            .leftKey("seller").rightKey("id")
            .leftFilter(FieldFilter.any(                                           // category == 10 OR category >= 90
                new FieldFilter("category", CompareOp.EQ, Literal.of(10)),
                new FieldFilter("category", CompareOp.GE, Literal.of(90))))
            .rightFilter(FieldFilter.in("state", Literal.of("OR"), Literal.of("ID"), Literal.of("CA"))) // state IN (...)
            .rightFilter(row -> row.type(score) == FieldType.LONG && row.getLong(score) > 0)         // any Java test
            .condition("ts", 1000, CompareOp.LT, "ts")                             // l.ts + 1000 < r.ts
            .condition((l, r) -> l.getLong(leftTs) % 7 != r.getLong(rightTs) % 7) // any Java test of the pair
            .stateTtl(Side.LEFT, 3_600_000).stateTtl(Side.RIGHT, 86_400_000)      // per-side state TTL
            .build();
        // README:end filters
        System.out.println(spec);
    }
}
