package io.weir.cluster.rest.messages;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code GET /config}, Flink's fields: what a dashboard needs to know of the server.
 *
 * @param refreshInterval how often a dashboard polls, in milliseconds
 * @param timezoneName the JobManager's time zone
 * @param timezoneOffset its offset from UTC now, in milliseconds
 * @param version Weir's version (in Flink's field)
 * @param features what the API lets a client do
 */
public record DashboardConfig(
    @JsonProperty("refresh-interval") long refreshInterval,
    @JsonProperty("timezone-name") String timezoneName,
    @JsonProperty("timezone-offset") long timezoneOffset,
    @JsonProperty("flink-version") String version,
    @JsonProperty("features") Features features) {

  /** Whether jars can be submitted and jobs cancelled through the API. */
  public record Features(
      @JsonProperty("web-submit") boolean webSubmit,
      @JsonProperty("web-cancel") boolean webCancel) {}
}
