package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What {@code weir run} prints of a failed job's stack trace without {@code --verbose}. */
class JobFailureTest {

  private static final String TRACE =
      "io.weir.runtime.task.TaskFailureException: Task 'Map' (subtask 1 of 1, index 0) failed:"
          + " java.lang.IllegalStateException: Cannot parse record 3\n"
          + "\tat io.weir.runtime.task.StreamTask.wrapFailure(StreamTask.java:268)\n"
          + "\tat java.base/java.lang.Thread.run(Thread.java:840)\n"
          + "Caused by: java.lang.IllegalStateException: Cannot parse record 3\n"
          + "\tat com.example.Job$Parse.map(Job.java:33)\n"
          + "\tat io.weir.runtime.operators.StreamMap.processElement(StreamMap.java:20)\n"
          + "\t... 4 more\n"
          + "Caused by: java.lang.NumberFormatException: For input string: \"three\"\n"
          + "\tat java.base/java.lang.Long.parseLong(Long.java:711)\n"
          + "\tat com.example.Job.parse(Job.java:41)\n"
          + "\tat com.example.Job$Parse.map(Job.java:31)\n"
          + "\t... 5 more\n";

  @Test
  void theUsersFramesUnderTheExceptionsTheyBelongTo() {
    assertThat(JobFailure.userFrames(TRACE))
        .isEqualTo(
            "Caused by: java.lang.IllegalStateException: Cannot parse record 3\n"
                + "\tat com.example.Job$Parse.map(Job.java:33)\n"
                + "Caused by: java.lang.NumberFormatException: For input string: \"three\"\n"
                + "\tat com.example.Job.parse(Job.java:41)\n"
                + "\tat com.example.Job$Parse.map(Job.java:31)\n");
  }

  @Test
  void withoutFramesOfTheUsersTheRootCauseAndItsFirstFrames() {
    String trace =
        "java.lang.IllegalStateException: TaskManager lost\n"
            + "\tat io.weir.cluster.A.a(A.java:1)\n"
            + "Caused by: java.io.IOException: connection reset\n"
            + "\tat io.weir.cluster.B.b(B.java:2)\n"
            + "\tat java.base/java.lang.Thread.run(Thread.java:840)\n";
    assertThat(JobFailure.userFrames(trace))
        .isEqualTo(
            "Caused by: java.io.IOException: connection reset\n"
                + "\tat io.weir.cluster.B.b(B.java:2)\n"
                + "\tat java.base/java.lang.Thread.run(Thread.java:840)\n");
  }

  @Test
  void framesOfTheJdkAndOfWeirAreNotTheUsers() {
    assertThat(JobFailure.isUserFrame("at com.example.Job.main(Job.java:1)")).isTrue();
    assertThat(JobFailure.isUserFrame("at java.base/java.lang.Thread.run(Thread.java:1)"))
        .isFalse();
    assertThat(JobFailure.isUserFrame("at jdk.internal.reflect.X.y(X.java:1)")).isFalse();
    assertThat(JobFailure.isUserFrame("at sun.nio.ch.X.y(X.java:1)")).isFalse();
    assertThat(JobFailure.isUserFrame("at io.weir.runtime.task.StreamTask.run(S.java:1)"))
        .isFalse();
    assertThat(JobFailure.isUserFrame("at app//com.example.Job.main(Job.java:1)")).isTrue();
  }

  @Test
  void listHeadingsAreFlinks() {
    assertThat(ListCommand.heading("Running/Restarting Jobs"))
        .isEqualTo("------------------ Running/Restarting Jobs -------------------");
    assertThat(ListCommand.heading("Scheduled Jobs"))
        .isEqualTo("----------------------- Scheduled Jobs -----------------------");
    assertThat(ListCommand.heading("Terminated Jobs"))
        .isEqualTo("---------------------- Terminated Jobs -----------------------");
  }

  @Test
  void aCausesMessageThatRepeatsTheMessageIsSaidOnce() {
    Exception error =
        new RuntimeException(
            "java.io.IOException: disk full", new java.io.IOException("disk full"));
    assertThat(WeirCli.describe(error)).isEqualTo("disk full");
    assertThat(WeirCli.describe(new CommandFailure("job.jar: bad", new Exception("internal"))))
        .isEqualTo("job.jar: bad");
    assertThat(
            WeirCli.describe(
                new java.io.IOException(
                    "Cannot reach the JobManager at 127.0.0.1:1", new java.net.ConnectException())))
        .isEqualTo("Cannot reach the JobManager at 127.0.0.1:1");
  }
}
