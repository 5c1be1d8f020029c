package io.weir.cluster.rest.messages;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The JSON of every REST message, pinned to the byte: field names are Flink's, and clients (Weir's
 * and Flink's tools) read them. Each reply also reads back into the record {@code ClusterClient}
 * reads it as.
 */
class RestMessagesJsonTest {

  private static final ObjectMapper JSON = RestJson.MAPPER;

  private static final JobSummary RUNNING =
      new JobSummary(
          "j1", "Count", "RUNNING", 1000, -1, 500, 1500, "com.example.Main", "abc", null, null);
  private static final JobSummary FINISHED =
      new JobSummary(
          "j2",
          "Count",
          "FINISHED",
          1000,
          2000,
          1000,
          2500,
          "com.example.Main",
          "abc",
          Map.of("records", 42L),
          null);
  private static final JobSummary FAILED =
      new JobSummary(
          "j3", "Count", "FAILED", 1000, 2000, 1000, 2500, "M", "abc", null, "boom; caused by: x");

  private static final String RUNNING_JSON =
      "{\"jid\":\"j1\",\"name\":\"Count\",\"state\":\"RUNNING\",\"start-time\":1000,"
          + "\"end-time\":-1,\"duration\":500,\"now\":1500,\"entryClass\":\"com.example.Main\","
          + "\"jarId\":\"abc\"";

  private static final JobExceptions EXCEPTIONS =
      JobExceptions.of(
          new JobExceptions.ExceptionHistory(
              List.of(
                  JobExceptions.Entry.of(
                      "java.lang.IllegalStateException",
                      "boom",
                      "java.lang.IllegalStateException: boom\n\tat com.example.Job.map(Job.java:1)\n",
                      1234,
                      "Map (2)",
                      "tm-1"),
                  JobExceptions.Entry.of("X", null, "X\n", 5, "Sink (1)", "-")),
              false));
  private static final String EXCEPTIONS_JSON =
      "{\"root-exception\":\"java.lang.IllegalStateException: boom\\n\\tat"
          + " com.example.Job.map(Job.java:1)\\n\",\"timestamp\":1234,\"all-exceptions\":["
          + "{\"exception\":\"java.lang.IllegalStateException: boom\\n\\tat"
          + " com.example.Job.map(Job.java:1)\\n\",\"task\":\"Map (2)\",\"location\":\"tm-1\","
          + "\"timestamp\":1234,\"taskManagerId\":\"tm-1\"},{\"exception\":\"X\\n\","
          + "\"task\":\"Sink (1)\",\"location\":\"-\",\"timestamp\":5,\"taskManagerId\":\"-\"}],"
          + "\"truncated\":false,\"exceptionHistory\":{\"entries\":[{\"exceptionName\":"
          + "\"java.lang.IllegalStateException\",\"message\":\"boom\",\"stacktrace\":"
          + "\"java.lang.IllegalStateException: boom\\n\\tat com.example.Job.map(Job.java:1)\\n\","
          + "\"timestamp\":1234,\"taskName\":\"Map (2)\",\"location\":\"tm-1\",\"endpoint\":"
          + "\"tm-1\",\"taskManagerId\":\"tm-1\",\"failureLabels\":{},\"concurrentExceptions\":[]},"
          + "{\"exceptionName\":\"X\",\"message\":null,\"stacktrace\":\"X\\n\",\"timestamp\":5,"
          + "\"taskName\":\"Sink (1)\",\"location\":\"-\",\"endpoint\":\"-\",\"taskManagerId\":"
          + "\"-\",\"failureLabels\":{},\"concurrentExceptions\":[]}],\"truncated\":false}}";

  @Test
  void jarUploadAndRun() throws Exception {
    pin(
        new JarUploadResponse("abc.jar", "abc", "success"),
        "{\"filename\":\"abc.jar\",\"id\":\"abc\",\"status\":\"success\"}");
    pin(new JarRunResponse("j1"), "{\"jobid\":\"j1\"}");
  }

  @Test
  void jobsAndTheirOverview() throws Exception {
    pin(
        new JobsResponse(
            List.of(
                new JobsResponse.JobIdWithStatus("j1", "RUNNING"),
                new JobsResponse.JobIdWithStatus("j2", "FINISHED"))),
        "{\"jobs\":[{\"id\":\"j1\",\"status\":\"RUNNING\"},{\"id\":\"j2\",\"status\":\"FINISHED\"}]}");
    pin(new JobsOverview(List.of(RUNNING)), "{\"jobs\":[" + RUNNING_JSON + "}]}");
    // Flink's per-job task counts: two of four subtasks wait for slots.
    pin(
        new JobsOverview(
            List.of(
                RUNNING.withTasks(
                    JobSummary.Tasks.of(4, List.of("RUNNING", "SCHEDULED", "SCHEDULED"))))),
        "{\"jobs\":["
            + RUNNING_JSON
            + ",\"tasks\":{\"total\":4,\"created\":1,\"scheduled\":2,\"deploying\":0,"
            + "\"running\":1,\"finished\":0,\"canceling\":0,\"canceled\":0,\"failed\":0,"
            + "\"reconciling\":0,\"initializing\":0}}]}");
  }

  @Test
  void aJobsSummaryHasMetricsOnceFinishedAndAFailureOnceFailed() throws Exception {
    pin(RUNNING, RUNNING_JSON + "}");
    pin(
        FINISHED,
        "{\"jid\":\"j2\",\"name\":\"Count\",\"state\":\"FINISHED\",\"start-time\":1000,"
            + "\"end-time\":2000,\"duration\":1000,\"now\":2500,"
            + "\"entryClass\":\"com.example.Main\",\"jarId\":\"abc\",\"metrics\":{\"records\":42}}");
    pin(
        FAILED,
        "{\"jid\":\"j3\",\"name\":\"Count\",\"state\":\"FAILED\",\"start-time\":1000,"
            + "\"end-time\":2000,\"duration\":1000,\"now\":2500,\"entryClass\":\"M\","
            + "\"jarId\":\"abc\",\"failure\":\"boom; caused by: x\"}");
  }

  @Test
  void jobDetailsAreTheSummaryTheExceptionsAndThePlan() throws Exception {
    pin(EXCEPTIONS, EXCEPTIONS_JSON);
    JobPlan.Plan plan =
        new JobPlan.Plan(
            "j1",
            "Count",
            List.of(
                new JobPlan.Node("0", 2, "Source", "Source", List.of()),
                new JobPlan.Node(
                    "1", 2, "Count", "Count", List.of(new JobPlan.Input(0, "0", "HASH")))));
    String planJson =
        "{\"jid\":\"j1\",\"name\":\"Count\",\"nodes\":["
            + "{\"id\":\"0\",\"parallelism\":2,\"operator\":\"Source\","
            + "\"description\":\"Source\",\"inputs\":[]},"
            + "{\"id\":\"1\",\"parallelism\":2,\"operator\":\"Count\","
            + "\"description\":\"Count\",\"inputs\":[{\"num\":0,\"id\":\"0\","
            + "\"ship_strategy\":\"HASH\"}]}]}";
    pin(new JobPlan(plan), "{\"plan\":" + planJson + "}");
    // Flink's JobDetailsInfo carries the plan as /jobs/:jobid/plan serves it under "plan".
    pin(
        JobDetails.of(RUNNING, EXCEPTIONS, plan, List.of(), Map.of(), Map.of()),
        RUNNING_JSON
            + ",\"exceptions\":"
            + EXCEPTIONS_JSON
            + ",\"vertices\":[],\"status-counts\":{},\"timestamps\":{},\"plan\":"
            + planJson
            + "}");
  }

  @Test
  void verticesCarryFlinksFieldNames() throws Exception {
    JobVertexInfo.IoMetrics io =
        new JobVertexInfo.IoMetrics(0, false, 0, false, 10, true, 20, true, 1, 2, 3);
    String ioJson =
        "{\"read-bytes\":0,\"read-bytes-complete\":false,\"write-bytes\":0,"
            + "\"write-bytes-complete\":false,\"read-records\":10,\"read-records-complete\":true,"
            + "\"write-records\":20,\"write-records-complete\":true,"
            + "\"accumulated-backpressured-time\":1,\"accumulated-idle-time\":2,"
            + "\"accumulated-busy-time\":3}";
    pin(io, ioJson);
    pin(
        new JobVertexInfo.Summary(
            "1", "Map", 128, 2, "RUNNING", 5, -1, 7, Map.of("RUNNING", 2), io),
        "{\"id\":\"1\",\"name\":\"Map\",\"maxParallelism\":128,\"parallelism\":2,"
            + "\"status\":\"RUNNING\",\"start-time\":5,\"end-time\":-1,\"duration\":7,"
            + "\"tasks\":{\"RUNNING\":2},\"metrics\":"
            + ioJson
            + "}");
    pin(
        new JobVertexInfo.Subtask(0, "RUNNING", 3, "h:1", "h:1", "tm-1", 5, -1, 7, io, null),
        "{\"subtask\":0,\"status\":\"RUNNING\",\"attempt\":3,\"host\":\"h:1\","
            + "\"endpoint\":\"h:1\",\"taskmanager-id\":\"tm-1\",\"start-time\":5,"
            + "\"end-time\":-1,\"duration\":7,\"metrics\":"
            + ioJson
            + "}");
    JobRecovery.Progress progress = new JobRecovery.Progress(100, 400, 1, 3, 50, 150, false, 9);
    String progressJson =
        "{\"bytes-read\":100,\"bytes-total\":400,\"files-read\":1,\"files-total\":3,"
            + "\"duration\":50,\"estimated-time-left\":150,\"done\":false,"
            + "\"records-replayed\":9}";
    pin(
        new JobVertexInfo.Subtask(
            0, "INITIALIZING", 3, "h:1", "h:1", "tm-1", 5, -1, 7, io, progress),
        "{\"subtask\":0,\"status\":\"INITIALIZING\",\"attempt\":3,\"host\":\"h:1\","
            + "\"endpoint\":\"h:1\",\"taskmanager-id\":\"tm-1\",\"start-time\":5,"
            + "\"end-time\":-1,\"duration\":7,\"metrics\":"
            + ioJson
            + ",\"restore\":"
            + progressJson
            + "}");
    pin(
        new JobRecovery(
            "RESTORING",
            7L,
            progress,
            List.of(new JobRecovery.Subtask("1", "Count", 0, "INITIALIZING", "tm-1", progress))),
        "{\"status\":\"RESTORING\",\"checkpoint-id\":7,\"total\":"
            + progressJson
            + ",\"subtasks\":[{\"vertex-id\":\"1\",\"vertex-name\":\"Count\",\"subtask\":0,"
            + "\"status\":\"INITIALIZING\",\"taskmanager-id\":\"tm-1\",\"restore\":"
            + progressJson
            + "}]}");
    pin(new JobRecovery("NONE", null, null, List.of()), "{\"status\":\"NONE\",\"subtasks\":[]}");
    pin(
        new JobVertexInfo.BackPressure(
            "ok",
            "high",
            9,
            List.of(
                new JobVertexInfo.SubtaskBackPressure(0, 3, "high", 0.75, 0.0, 0.25),
                new JobVertexInfo.SubtaskBackPressure(1, 3, "ok", null, null, null))),
        "{\"status\":\"ok\",\"backpressure-level\":\"high\",\"end-timestamp\":9,"
            + "\"subtasks\":[{\"subtask\":0,\"attempt-number\":3,\"backpressure-level\":\"high\","
            + "\"ratio\":0.75,\"idleRatio\":0.0,\"busyRatio\":0.25},"
            + "{\"subtask\":1,\"attempt-number\":3,\"backpressure-level\":\"ok\"}]}");
  }

  @Test
  void checkpoints() throws Exception {
    CheckpointingStatistics.Checkpoint completed =
        new CheckpointingStatistics.Checkpoint(
            3,
            "COMPLETED",
            true,
            100,
            20,
            4096,
            1024,
            "file:/cp/chk-3",
            false,
            null,
            List.of(
                new CheckpointingStatistics.Subtask(
                    "Map",
                    1,
                    2,
                    3,
                    true,
                    4,
                    5,
                    6,
                    7,
                    8,
                    "1",
                    118,
                    18,
                    2,
                    new CheckpointingStatistics.Commit(125, 9, null))),
            new CheckpointingStatistics.CriticalPath(
                "1", "Map", 1, "async", 6, "Map (2/2): async 6 ms", "incremental"));
    CheckpointingStatistics.Checkpoint failed =
        new CheckpointingStatistics.Checkpoint(
            4, "FAILED", false, 200, 30, 0, 0, null, true, "TIMEOUT: expired", List.of(), null);
    pin(
        new CheckpointingStatistics(
            new CheckpointingStatistics.Counts(1, 1, 0, 2),
            new CheckpointingStatistics.Summary(
                CheckpointingStatistics.Figures.of(List.of(1024L)),
                CheckpointingStatistics.Figures.of(List.of(4096L)),
                CheckpointingStatistics.Figures.of(List.of(20L))),
            new CheckpointingStatistics.Latest(
                completed,
                null,
                failed,
                new CheckpointingStatistics.Restored(2, 50, false, "file:/cp/chk-2")),
            List.of(completed, failed)),
        "{\"counts\":{\"completed\":1,\"failed\":1,\"in_progress\":0,\"total\":2},"
            + "\"summary\":{\"checkpointed_size\":{\"min\":1024,\"max\":1024,\"avg\":1024,"
            + "\"p50\":1024,\"p90\":1024,\"p99\":1024},\"state_size\":{\"min\":4096,"
            + "\"max\":4096,\"avg\":4096,\"p50\":4096,\"p90\":4096,\"p99\":4096},"
            + "\"end_to_end_duration\":{\"min\":20,\"max\":20,\"avg\":20,\"p50\":20,"
            + "\"p90\":20,\"p99\":20}},"
            + "\"latest\":{\"completed\":"
            + "{\"id\":3,\"status\":\"COMPLETED\",\"is_unaligned\":true,\"trigger_timestamp\":100,"
            + "\"end_to_end_duration\":20,\"state_size\":4096,\"checkpointed_size\":1024,"
            + "\"external_path\":\"file:/cp/chk-3\",\"is_savepoint\":false,\"subtasks\":"
            + "[{\"task\":\"Map\",\"index\":1,"
            + "\"start_delay\":2,\"alignment_duration\":3,\"unaligned\":true,"
            + "\"channel_state_size\":4,\"sync_duration\":5,\"async_duration\":6,"
            + "\"state_size\":7,\"checkpointed_size\":8,\"vertex_id\":\"1\","
            + "\"ack_timestamp\":118,\"end_to_end_duration\":18,\"files_written\":2,"
            + "\"commit\":{\"notified_timestamp\":125,\"duration\":9}}],"
            + "\"critical_path\":{\"vertex_id\":\"1\",\"task\":\"Map\",\"index\":1,"
            + "\"phase\":\"async\",\"duration\":6,\"description\":\"Map (2/2): async 6 ms\","
            + "\"advice\":\"incremental\"}},"
            + "\"failed\":{\"id\":4,\"status\":\"FAILED\",\"is_unaligned\":false,"
            + "\"trigger_timestamp\":200,\"end_to_end_duration\":30,\"state_size\":0,"
            + "\"checkpointed_size\":0,\"external_path\":null,\"is_savepoint\":true,"
            + "\"failure_message\":\"TIMEOUT: expired\",\"subtasks\":[]},"
            + "\"restored\":{\"id\":2,\"restore_timestamp\":50,\"is_savepoint\":false,"
            + "\"external_path\":\"file:/cp/chk-2\"}},"
            + "\"history\":[{\"id\":3,\"status\":\"COMPLETED\",\"is_unaligned\":true,"
            + "\"trigger_timestamp\":100,\"end_to_end_duration\":20,\"state_size\":4096,"
            + "\"checkpointed_size\":1024,\"external_path\":\"file:/cp/chk-3\","
            + "\"is_savepoint\":false,\"subtasks\":"
            + "[{\"task\":\"Map\",\"index\":1,\"start_delay\":2,\"alignment_duration\":3,"
            + "\"unaligned\":true,\"channel_state_size\":4,\"sync_duration\":5,"
            + "\"async_duration\":6,\"state_size\":7,\"checkpointed_size\":8,"
            + "\"vertex_id\":\"1\",\"ack_timestamp\":118,\"end_to_end_duration\":18,"
            + "\"files_written\":2,\"commit\":{\"notified_timestamp\":125,\"duration\":9}}],"
            + "\"critical_path\":{\"vertex_id\":\"1\",\"task\":\"Map\",\"index\":1,"
            + "\"phase\":\"async\",\"duration\":6,\"description\":\"Map (2/2): async 6 ms\","
            + "\"advice\":\"incremental\"}},"
            + "{\"id\":4,\"status\":\"FAILED\",\"is_unaligned\":false,"
            + "\"trigger_timestamp\":200,\"end_to_end_duration\":30,\"state_size\":0,"
            + "\"checkpointed_size\":0,\"external_path\":null,\"is_savepoint\":true,"
            + "\"failure_message\":\"TIMEOUT: expired\",\"subtasks\":[]}]}");
    pin(
        new CheckpointingStatistics(
            new CheckpointingStatistics.Counts(0, 0, 0, 0),
            new CheckpointingStatistics.Summary(
                CheckpointingStatistics.Figures.of(List.of()),
                CheckpointingStatistics.Figures.of(List.of()),
                CheckpointingStatistics.Figures.of(List.of())),
            new CheckpointingStatistics.Latest(null, null, null, null),
            List.of()),
        "{\"counts\":{\"completed\":0,\"failed\":0,\"in_progress\":0,\"total\":0},"
            + "\"summary\":{\"checkpointed_size\":{\"min\":0,\"max\":0,\"avg\":0,\"p50\":0,"
            + "\"p90\":0,\"p99\":0},\"state_size\":{\"min\":0,\"max\":0,\"avg\":0,\"p50\":0,"
            + "\"p90\":0,\"p99\":0},\"end_to_end_duration\":{\"min\":0,\"max\":0,\"avg\":0,"
            + "\"p50\":0,\"p90\":0,\"p99\":0}},"
            + "\"latest\":{},\"history\":[]}");
  }

  @Test
  void savepointsAndStops() throws Exception {
    pin(new TriggerResponse("t1"), "{\"request-id\":\"t1\"}");
    pin(SavepointStatus.inProgress(), "{\"status\":{\"id\":\"IN_PROGRESS\"}}");
    pin(
        SavepointStatus.completed("file:/sp/savepoint-1"),
        "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"location\":\"file:/sp/savepoint-1\"}}");
    pin(
        SavepointStatus.failed("java.io.IOException", "disk full"),
        "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failure-cause\":"
            + "{\"class\":\"java.io.IOException\",\"stack-trace\":\"disk full\"}}}");
  }

  @Test
  void cancelTaskManagersAndErrors() throws Exception {
    pin(new CancelJobResponse("j1", "CANCELLING"), "{\"jobid\":\"j1\",\"status\":\"CANCELLING\"}");
    pin(
        new TaskManagersResponse(
            List.of(
                new TaskManagersResponse.TaskManagerInfo(
                    "tm-1",
                    "127.0.0.1:4000",
                    4001,
                    4,
                    3,
                    new TaskManagersResponse.Hardware(8, 16L << 30, 1L << 30, 0),
                    List.of("j1/0/0#0"),
                    List.of("j1"),
                    8,
                    262144))),
        "{\"taskmanagers\":[{\"id\":\"tm-1\",\"path\":\"127.0.0.1:4000\",\"dataPort\":4001,"
            + "\"slotsNumber\":4,"
            + "\"freeSlots\":3,\"hardware\":{\"cpuCores\":8,\"physicalMemory\":17179869184,"
            + "\"freeMemory\":1073741824,\"managedMemory\":0},\"tasks\":[\"j1/0/0#0\"],\"loadedJobs\":[\"j1\"],"
            + "\"outputBuffers\":8,\"outputBufferBytes\":262144}]}");
    pin(new ErrorResponse(List.of("No job x")), "{\"errors\":[\"No job x\"]}");
  }

  @Test
  void requestsAsWeirsClientSendsThem() throws Exception {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("a", "1");
    pin(
        new JarRunRequest("com.example.Main", List.of("x"), 2, settings, null),
        "{\"entryClass\":\"com.example.Main\",\"programArgsList\":[\"x\"],\"parallelism\":2,"
            + "\"configuration\":{\"a\":\"1\"}}");
    pin(
        new JarRunRequest(null, List.of(), null, Map.of(), null),
        "{\"programArgsList\":[],\"configuration\":{}}");
    pin(
        new SavepointTriggerRequest("/sp", false),
        "{\"target-directory\":\"/sp\",\"cancel-job\":false}");
    pin(new SavepointTriggerRequest(null, false), "{\"cancel-job\":false}");
    pin(new StopWithSavepointRequest("/sp", true), "{\"targetDirectory\":\"/sp\",\"drain\":true}");
    pin(new StopWithSavepointRequest(null, false), "{\"drain\":false}");
  }

  @Test
  void requestsAsFlinksToolsSendThem() throws Exception {
    JarRunRequest flink =
        JSON.readValue(
            "{\"entryClass\":\"M\",\"parallelism\":\"3\",\"programArgsList\":[\"a\",1],"
                + "\"flinkConfiguration\":{\"k\":\"v\",\"n\":5},\"configuration\":{\"k\":\"x\"},"
                + "\"allowNonRestoredState\":false,\"jobId\":null,"
                + "\"savepointPath\":\"file:///sp/savepoint-1\",\"restoreMode\":\"CLAIM\"}",
            JarRunRequest.class);
    assertThat(flink.parallelism()).isEqualTo(3);
    assertThat(flink.args()).containsExactly("a", "1");
    assertThat(flink.settings())
        .containsExactly(
            Map.entry("k", "v"),
            Map.entry("n", "5"),
            Map.entry("execution.state-recovery.path", "file:///sp/savepoint-1"),
            Map.entry("execution.state-recovery.ignore-unclaimed-state", "false"),
            Map.entry("execution.state-recovery.claim-mode", "CLAIM"));

    JarRunRequest empty = JSON.readValue("{}", JarRunRequest.class);
    assertThat(empty.entryClass()).isNull();
    assertThat(empty.args()).isEmpty();
    assertThat(empty.settings()).isEmpty();

    SavepointTriggerRequest savepoint =
        JSON.readValue(
            "{\"cancel-job\":\"true\",\"formatType\":\"CANONICAL\"}",
            SavepointTriggerRequest.class);
    assertThat(savepoint.cancelJob()).isTrue();
    assertThat(savepoint.targetDirectory()).isNull();
    assertThat(JSON.readValue("{}", StopWithSavepointRequest.class))
        .isEqualTo(new StopWithSavepointRequest(null, false));
  }

  /** {@code message} is written as {@code json} exactly, and reads back equal. */
  private static void pin(Object message, String json) throws Exception {
    assertThat(JSON.writeValueAsString(message)).isEqualTo(json);
    assertThat(JSON.readValue(json, message.getClass())).isEqualTo(message);
  }
}
