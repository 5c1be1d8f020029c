package io.weir.runtime.testing;

/**
 * A record an operator under test emitted to a side output: the harness records it among the main
 * output, so expect it there, as {@code new SideOutput("late", element)}.
 *
 * @param tag the id of the side output's {@code OutputTag}
 * @param value the record
 */
public record SideOutput(String tag, Object value) {}
