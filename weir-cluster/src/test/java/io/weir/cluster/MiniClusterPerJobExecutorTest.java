package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.cluster.client.ClusterExecutor;
import io.weir.runtime.testing.matrix.Deployment;
import org.junit.jupiter.api.Test;

/** This module's tests bring the matrix's mini cluster deployment, and change nothing else. */
class MiniClusterPerJobExecutorTest {

  @Test
  void theMiniClusterDeploymentIsFoundAndOutranksTheClusterExecutor() {
    assertThat(Deployment.MINI_CLUSTER.isAvailable()).isTrue();
    assertThat(new MiniClusterPerJobExecutor.Factory().priority())
        .isGreaterThan(new ClusterExecutor.Factory().priority());
  }

  @Test
  void outsideAMiniClusterCellJobsGoWhereTheClusterExecutorSendsThem() {
    assertThat(Deployment.current()).isEqualTo(Deployment.LOCAL);
    assertThat(new MiniClusterPerJobExecutor.Factory().create())
        .isInstanceOf(ClusterExecutor.class);
  }
}
