package io.weir.cluster.jobmanager;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cluster.ha.CheckpointsUnreadableException;
import java.net.SocketTimeoutException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A job whose retained checkpoints a new leader cannot read for now is recovered again until it can
 * be, rather than from an older checkpoint or never; any other failure is not tried again. The
 * attempts after the first run on the timer's thread here, so that what ran is known once the timer
 * has run a later task.
 */
class JobRecoveriesTest {

  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private final JobRecoveries recoveries = new JobRecoveries(timer, Runnable::run, 1, 4);

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  private static Exception unreadable() {
    // As the job's main reports it: the store's exception a few causes down.
    return new IllegalStateException(
        "The program's main failed",
        new CheckpointsUnreadableException(
            "Checkpoint 7 of job j cannot be read now",
            new SocketTimeoutException("reading chk-7/_metadata timed out")));
  }

  /** Waits until the timer ran everything due within {@code millis}. */
  private void drainTimer(long millis) throws InterruptedException {
    CountDownLatch drained = new CountDownLatch(1);
    timer.schedule(drained::countDown, millis, TimeUnit.MILLISECONDS);
    assertThat(drained.await(30, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aRecoveryThatMeetsUnreadableCheckpointsRunsAgainUntilItSucceeds() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    CountDownLatch recovered = new CountDownLatch(1);

    recoveries.recover(
        "job 'j'",
        () -> true,
        () -> {
          if (attempts.incrementAndGet() < 4) {
            throw unreadable();
          }
          recovered.countDown();
        });

    assertThat(recovered.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(attempts).hasValue(4);
  }

  @Test
  void anyOtherFailureIsNotTriedAgain() throws Exception {
    AtomicInteger attempts = new AtomicInteger();

    recoveries.recover(
        "job 'j'",
        () -> true,
        () -> {
          attempts.incrementAndGet();
          throw new IllegalArgumentException("The jar names no Main-Class");
        });

    assertThat(timer.getQueue()).isEmpty();
    drainTimer(20);
    assertThat(attempts).hasValue(1);
  }

  @Test
  void noAttemptRunsOnceTheTermThatStartedItEnded() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    AtomicBoolean leading = new AtomicBoolean(true);
    // The timer's one thread is held, so the retry stays queued until the test has seen it.
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    timer.execute(
        () -> {
          holding.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();

    recoveries.recover(
        "job 'j'",
        leading::get,
        () -> {
          attempts.incrementAndGet();
          leading.set(false); // the term ends while the first attempt fails
          throw unreadable();
        });

    assertThat(timer.getQueue()).as("the retry is scheduled").hasSize(1);
    release.countDown();
    drainTimer(20);
    assertThat(attempts).hasValue(1);
  }
}
