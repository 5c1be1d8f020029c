package io.weir.cluster.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The fence on a real gRPC server on 127.0.0.1: a TaskManager's control port that answers
 * heartbeats, and a JobManager's channel that sends the epoch it leads with.
 */
class LeaderEpochFenceTest {

  private final LeaderEpochFence fence = new LeaderEpochFence();
  private final AtomicLong callerEpoch = new AtomicLong();
  private Server server;
  private ManagedChannel channel;
  private TaskManagerServiceGrpc.TaskManagerServiceBlockingStub taskManager;

  @BeforeEach
  void start() throws Exception {
    server =
        ControlPlane.server(new InetSocketAddress("127.0.0.1", 0))
            .addService(
                ServerInterceptors.intercept(
                    new TaskManagerServiceGrpc.TaskManagerServiceImplBase() {
                      @Override
                      public void heartbeat(
                          JobManagerHeartbeat request, StreamObserver<TaskManagerStatus> response) {
                        response.onNext(
                            TaskManagerStatus.newBuilder().setTaskManagerId("tm").build());
                        response.onCompleted();
                      }
                    },
                    fence.interceptor("test TaskManager")))
            .build()
            .start();
    channel =
        ControlPlane.channel("127.0.0.1", server.getPort())
            .intercept(LeaderEpochFence.client(callerEpoch::get))
            .build();
    taskManager = TaskManagerServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private TaskManagerStatus heartbeat() {
    return taskManager.heartbeat(JobManagerHeartbeat.getDefaultInstance());
  }

  @Test
  void withoutHighAvailabilityNoEpochIsSentOrChecked() {
    assertThat(heartbeat().getTaskManagerId()).isEqualTo("tm");
    assertThat(fence.newest()).isZero();
  }

  @Test
  void aCallOfTheNewestLeaderPassesAndTeachesItsEpoch() {
    fence.learn(2);
    callerEpoch.set(3);

    assertThat(heartbeat().getTaskManagerId()).isEqualTo("tm");
    assertThat(fence.newest()).isEqualTo(3);
  }

  @Test
  void aCallOfAnOlderLeaderIsRefusedNamingBothEpochs() {
    callerEpoch.set(4);
    heartbeat();
    callerEpoch.set(3); // the deposed leader, paused while the leader of epoch 4 took over

    StatusRuntimeException refused =
        catchThrowableOfType(this::heartbeat, StatusRuntimeException.class);

    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(refused.getStatus().getDescription())
        .isEqualTo("the leader of epoch 3 was fenced: the leader of epoch 4 has taken over");
  }

  @Test
  void onceALeaderIsKnownACallWithoutAnEpochIsRefused() {
    fence.learn(1);
    callerEpoch.set(0);

    StatusRuntimeException refused =
        catchThrowableOfType(this::heartbeat, StatusRuntimeException.class);

    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(refused.getStatus().getDescription())
        .startsWith("a JobManager that sent no epoch was fenced");
  }
}
