package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /overview}, Flink's fields: the cluster's TaskManagers and slots and its jobs by
 * state.
 */
public record ClusterOverview(
    @JsonProperty("taskmanagers") int taskManagers,
    @JsonProperty("slots-total") int slotsTotal,
    @JsonProperty("slots-available") int slotsAvailable,
    @JsonProperty("jobs-running") int jobsRunning,
    @JsonProperty("jobs-finished") int jobsFinished,
    @JsonProperty("jobs-cancelled") int jobsCancelled,
    @JsonProperty("jobs-failed") int jobsFailed,
    @JsonProperty("flink-version") String version) {}
