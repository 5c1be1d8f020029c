package io.weir.cluster.ha;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoint ids on a real ZooKeeper server, taken by two "leaders" at once. */
class ZooKeeperCheckpointIDCounterTest {

  private static final String JOB = "0123456789abcdef0123456789abcdef";

  @TempDir static Path dir;

  @RegisterExtension
  static final ZooKeeperServerExtension ZOOKEEPER = new ZooKeeperServerExtension();

  private static ZooKeeperHaServices services() {
    return ZooKeeperHaServices.start(
        HaTesting.configuration(ZOOKEEPER.connectString(), dir.resolve("storage")));
  }

  @Test
  void twoLeadersTakingIdsAtOnceNeverGetTheSameOne() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try (ZooKeeperHaServices old = services();
        ZooKeeperHaServices current = services()) {
      ZooKeeperCheckpointIDCounter a = old.checkpointIdCounter(JOB, 0);
      ZooKeeperCheckpointIDCounter b = current.checkpointIdCounter(JOB, 0);
      List<Future<List<Long>>> taken = new ArrayList<>();
      for (ZooKeeperCheckpointIDCounter counter : List.of(a, b, a, b)) {
        taken.add(
            threads.submit(
                () -> {
                  List<Long> ids = new ArrayList<>();
                  for (int i = 0; i < 50; i++) {
                    ids.add(counter.getAndIncrement());
                  }
                  return ids;
                }));
      }
      Set<Long> all = new TreeSet<>();
      for (Future<List<Long>> f : taken) {
        List<Long> ids = f.get();
        assertThat(ids).isSorted().doesNotHaveDuplicates();
        all.addAll(ids);
      }
      assertThat(all).hasSize(200);
      assertThat(a.get()).isEqualTo(200);
      assertThat(b.get()).isEqualTo(200);
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void aNewLeaderContinuesAfterTheLastIdAndAResumedJobAfterItsSavepoint() {
    String job = "fedcba9876543210fedcba9876543210";
    try (ZooKeeperHaServices first = services()) {
      ZooKeeperCheckpointIDCounter counter = first.checkpointIdCounter(job, 41);
      assertThat(counter.getAndIncrement()).isEqualTo(42);
      assertThat(counter.getAndIncrement()).isEqualTo(43);
    }
    try (ZooKeeperHaServices second = services()) {
      // a lower restored id never lowers the counter
      ZooKeeperCheckpointIDCounter counter = second.checkpointIdCounter(job, 7);
      assertThat(counter.get()).isEqualTo(43);
      assertThat(counter.getAndIncrement()).isEqualTo(44);
      assertThat(second.checkpointIdCounter(job, 100).getAndIncrement()).isEqualTo(101);
    }
  }
}
