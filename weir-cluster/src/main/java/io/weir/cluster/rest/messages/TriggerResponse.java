package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The answer to an asynchronous operation ({@code POST /jobs/:jobid/savepoints}, {@code .../stop}):
 * the trigger id to poll {@code GET /jobs/:jobid/savepoints/:triggerid} with.
 *
 * @param requestId the trigger id
 */
public record TriggerResponse(@JsonProperty("request-id") String requestId) {}
