package io.junction.api;

/**
 * A user table function for a row expansion ({@link Expansion#function}): SQL's {@code LATERAL TABLE(f(..))}.
 * It reads one input row and adds the rows it makes to {@link TableRows}: {@link TableRows#row()} per row,
 * then its values by the position of the new field. It must be deterministic (equal rows give equal
 * expansions: a retraction retracts what the equal earlier row made, and the engine may call it more than
 * once for one row). It runs on the publishing thread. A function that throws makes its input row a bad
 * input (a dead letter with code {@code expansion_failed}, nothing of the row published), never a failed
 * engine.
 */
@FunctionalInterface
public interface TableFunction
{
    /**
     * @param row    the input row (valid during the call only).
     * @param schema the row's schema, to find fields by name once ({@link Schema#indexOf}).
     * @param out    where the produced rows go.
     */
    void expand(RowView row, Schema schema, TableRows out);
}
