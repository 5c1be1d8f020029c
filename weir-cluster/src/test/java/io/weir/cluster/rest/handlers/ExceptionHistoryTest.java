package io.weir.cluster.rest.handlers;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cluster.jobmanager.ExceptionHistory.ExceptionEntry;
import io.weir.cluster.rest.messages.JobExceptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code GET /jobs/:jobid/exceptions}: its root exception is what ended the last attempt. */
class ExceptionHistoryTest {

  private static ExceptionEntry failure(long time, String trace, int attempt) {
    return new ExceptionEntry(time, "X", trace, trace, "Map (1)", "tm-1", attempt);
  }

  @Test
  void theRootIsTheFirstFailureOfTheNewestFailedAttempt() {
    // Newest first, as the gateway keeps them: attempt 1 ended by the user's failure at 20, the
    // consumer's failure at 21 followed from it.
    JobExceptions answer =
        JobHandlers.exceptions(
            List.of(
                failure(21, "consumer lost its producer", 1),
                failure(20, "at com.example.Parse.map", 1),
                failure(10, "TaskManager lost", 0)));
    assertThat(answer.rootException()).isEqualTo("at com.example.Parse.map");
    assertThat(answer.timestamp()).isEqualTo(20);
    assertThat(answer.exceptionHistory().entries())
        .extracting(JobExceptions.Entry::stacktrace)
        .containsExactly(
            "consumer lost its producer", "at com.example.Parse.map", "TaskManager lost");
    assertThat(answer.allExceptions()).hasSize(3);
  }

  @Test
  void noFailureNoRoot() {
    JobExceptions answer = JobHandlers.exceptions(List.of());
    assertThat(answer.rootException()).isNull();
    assertThat(answer.timestamp()).isNull();
    assertThat(answer.exceptionHistory().entries()).isEmpty();
  }
}
