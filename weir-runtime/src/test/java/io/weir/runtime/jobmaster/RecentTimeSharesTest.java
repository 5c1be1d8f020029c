package io.weir.runtime.jobmaster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.weir.runtime.task.TaskState;
import io.weir.runtime.taskexecutor.ExecutionAttemptId;
import io.weir.runtime.taskexecutor.SubtaskSample;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecentTimeSharesTest {

  private static final ExecutionAttemptId ID = new ExecutionAttemptId("j", 1, 0, 0);
  private static final long S = 1_000_000_000L;

  private static SubtaskSample sample(long age, long idle, long backPressured) {
    return sample(age, idle, backPressured, 0);
  }

  /** A sample whose subtask read {@code records} records of 10 bytes and sent them on. */
  private static SubtaskSample sample(long age, long idle, long backPressured, long records) {
    return new SubtaskSample(
        ID,
        TaskState.RUNNING,
        0,
        records,
        records,
        records * 10,
        records * 10,
        age,
        idle,
        backPressured,
        "tm",
        "e",
        true,
        null,
        Long.MIN_VALUE,
        Long.MIN_VALUE,
        java.util.Map.of());
  }

  @Test
  void theFirstSampleIsTakenSinceTheDeployment() {
    RecentTimeShares.Shares shares = new RecentTimeShares().add(sample(10 * S, 5 * S, 2 * S));
    assertThat(shares.idle()).isCloseTo(0.5, within(1e-9));
    assertThat(shares.backPressured()).isCloseTo(0.2, within(1e-9));
    assertThat(shares.busy()).isCloseTo(0.3, within(1e-9));
  }

  @Test
  void laterSamplesAreTakenOverTheRecentWindow() {
    RecentTimeShares shares = new RecentTimeShares();
    shares.add(sample(10 * S, 10 * S, 0)); // idle all along
    shares.add(sample(12 * S, 12 * S, 0));
    // Back-pressured from 12 s to 16 s: the newest sample at least 5 s old is the one at 10 s.
    RecentTimeShares.Shares recent = shares.add(sample(16 * S, 12 * S, 4 * S));
    assertThat(recent.backPressured()).isCloseTo(4.0 / 6, within(1e-9));
    assertThat(recent.idle()).isCloseTo(2.0 / 6, within(1e-9));
    // The window moves on: the newest sample at least 5 s old is now the one at 12 s.
    RecentTimeShares.Shares next = shares.add(sample(18 * S, 12 * S, 6 * S));
    assertThat(next.backPressured()).isCloseTo(1, within(1e-9));
    // Still from the sample at 12 s, the newest at least 5 s old.
    RecentTimeShares.Shares sooner = shares.add(sample(19 * S, 13 * S, 6 * S));
    assertThat(sooner.idle()).isCloseTo(1.0 / 7, within(1e-9));
  }

  @Test
  void aSampleTooSoonAfterTheLastIsTakenSinceTheDeployment() {
    RecentTimeShares shares = new RecentTimeShares();
    shares.add(sample(10 * S, 0, 0));
    RecentTimeShares.Shares soon = shares.add(sample(10 * S + S / 2, 0, S / 2));
    assertThat(soon.backPressured()).isCloseTo(0.5 / 10.5, within(1e-9));
  }

  @Test
  void subtasksOfEarlierAttemptsAreForgotten() {
    RecentTimeShares shares = new RecentTimeShares();
    shares.add(sample(10 * S, 10 * S, 0));
    shares.retain(List.of());
    RecentTimeShares.Shares fresh = shares.add(sample(20 * S, 10 * S, 10 * S));
    assertThat(fresh.backPressured()).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void ratesAreTakenOverTheSameWindowAsTheShares() {
    RecentTimeShares window = new RecentTimeShares();
    RecentTimeShares.Shares first = window.add(sample(10 * S, 0, 0, 1_000));
    assertThat(first.recordsInPerSecond()).as("since the deployment").isCloseTo(100, within(1e-9));
    window.add(sample(12 * S, 0, 0, 3_000));

    RecentTimeShares.Shares recent = window.add(sample(16 * S, 0, 0, 13_000));

    // From the newest sample at least 5 s older (at 10 s): 12 000 records in 6 s.
    assertThat(recent.recordsInPerSecond()).isCloseTo(2_000, within(1e-9));
    assertThat(recent.recordsOutPerSecond()).isCloseTo(2_000, within(1e-9));
    assertThat(recent.bytesInPerSecond()).isCloseTo(20_000, within(1e-9));
    assertThat(recent.bytesOutPerSecond()).isCloseTo(20_000, within(1e-9));
  }
}
