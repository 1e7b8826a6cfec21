package io.junction.tools.replay;

/**
 * One line of replay output (a result or a dead letter) with the step that produced it, so that the
 * lines of all partitions can be merged back into input order after the run.
 *
 * @param step the 0-based index of the non-blank input line whose processing produced it
 * @param json the complete JSON line, without a line terminator
 */
public record StepLine(long step, String json)
{
}
