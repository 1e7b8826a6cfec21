/**
 * The replay format's JSON as a library (docs/SEMANTICS.md 1), for the command line, the Kafka
 * runner and any service that takes join specs or rows as JSON:
 * <ul>
 *   <li>{@link io.junction.json.JoinSpecJson}: a join spec file ({@code *.join.json}) parsed strictly into
 *       a validated spec; a wrong spec throws {@link io.junction.json.JoinSpecException} naming the field;</li>
 *   <li>{@link io.junction.json.RowJson}: flat JSON objects to and from the engine's binary rows, with the
 *       replay format's number rule ({@link io.junction.json.JsonNumbers}); bad input throws the checked
 *       {@link io.junction.json.BadInputException};</li>
 *   <li>{@link io.junction.json.ResultJson}: the result JSON ({@code "op"}, {@code "left"}, {@code "right"}
 *       or {@code "rows"}).</li>
 * </ul>
 * Depends on the engine and Jackson only. Parsing JSON allocates: publish binary rows on a path that
 * must not.
 */
package io.junction.json;
