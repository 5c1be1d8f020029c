package io.weir.cluster.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cluster.rpc.Failure;
import io.weir.cluster.rpc.Messages;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.task.TaskFailureException;
import org.junit.jupiter.api.Test;

/**
 * A task's failure keeps its whole cause chain with its frames across the control plane's hop from
 * the TaskManager to the JobManager, and the exception history shows it as the TaskManager raised
 * it.
 */
class FailureStackTraceTest {

  /** Stands for the user's code: its frames are the ones a user looks for. */
  private static final class UserFunction {
    static void parse() {
      throw new IllegalStateException(
          "Cannot parse record 3", new NumberFormatException("For input string: \"three\""));
    }
  }

  private static Throwable taskFailure() {
    try {
      UserFunction.parse();
      throw new AssertionError("parse threw nothing");
    } catch (IllegalStateException e) {
      return new TaskFailureException("Map", "Map", 0, 2, e);
    }
  }

  @Test
  void theCauseChainAndItsFramesSurviveTheHopToTheJobManager() throws Exception {
    Failure sent = Messages.toProto(taskFailure());
    // What the JobManager builds from the bytes it received.
    Throwable received = Messages.fromProto(Failure.parseFrom(sent.toByteArray()));

    String trace = ExceptionHistory.stackTraceOf(received);
    assertThat(trace)
        .startsWith("io.weir.runtime.task.TaskFailureException: Operator 'Map' in task 'Map'")
        .contains("Caused by: java.lang.IllegalStateException: Cannot parse record 3")
        .contains("Caused by: java.lang.NumberFormatException: For input string: \"three\"")
        .contains("\tat " + UserFunction.class.getName() + ".parse(FailureStackTraceTest.java:");
  }

  @Test
  void aFailureWrappedOnTheJobManagerStillShowsTheTaskManagersTrace() throws Exception {
    Throwable received = Messages.fromProto(Messages.toProto(taskFailure()));
    Throwable wrapped = new CorruptCheckpointException(7, "checkpoint 7 is corrupt", received);
    assertThat(ExceptionHistory.stackTraceOf(wrapped))
        .contains("Caused by: java.lang.IllegalStateException: Cannot parse record 3")
        .contains(UserFunction.class.getName() + ".parse(");
  }

  @Test
  void aFailureOfTheJobManagersOwnIsPrintedHere() {
    String trace =
        ExceptionHistory.stackTraceOf(new IllegalStateException("TaskManager tm-1 lost"));
    assertThat(trace)
        .startsWith("java.lang.IllegalStateException: TaskManager tm-1 lost")
        .contains("\tat " + FailureStackTraceTest.class.getName());
  }
}
