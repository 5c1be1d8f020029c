package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.weir.api.StreamEnvironment;
import io.weir.api.typeutils.Types;
import io.weir.runtime.api.CollectSink;
import io.weir.runtime.testing.matrix.Deployment;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The test matrix's deployment axis as this module provides it: in a mini cluster cell (the
 * runtime-suite-mini-cluster execution of this module's pom) a job runs on a fresh mini cluster,
 * closed when it ends; in a local cell (this module's own run) {@link MiniClusterPerJobExecutor}
 * leaves it to local execution.
 */
@TestMatrix
class MiniClusterCellTest {

  @Test
  void aKeyedJobRunsOnTheCellsDeploymentWhichItLeavesBehindWhenItEnds(MatrixCell cell)
      throws Exception {
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    int jobsBefore = MiniClusterPerJobExecutor.jobs();
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    CollectSink<Long> sink = new CollectSink<>();
    env.fromSequence(1, 1000).keyBy(x -> x % 8, Types.LONG).reduce(Long::sum).sinkTo(sink);
    env.execute("on-the-cells-deployment");

    assertThat(sink.results()).hasSize(1000).contains(8L * (125 * 126 / 2));
    assertThat(MiniClusterPerJobExecutor.jobs() - jobsBefore)
        .as("jobs run on a mini cluster")
        .isEqualTo(cell.deployment() == Deployment.MINI_CLUSTER ? 1 : 0);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(newDataPlaneThreads(before))
                    .as("data plane threads of the job's mini cluster, after the job")
                    .isEmpty());
  }

  private static Set<String> newDataPlaneThreads(Set<Thread> before) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.getName().contains("EventLoopGroup"))
        .map(Thread::getName)
        .collect(Collectors.toSet());
  }
}
