package io.weir.cluster.rest.messages;

import java.util.List;

/**
 * Every failed call's reply: {@code {"errors": [...]}}, each message naming what is wrong.
 *
 * @param errors the messages
 */
public record ErrorResponse(List<String> errors) {}
