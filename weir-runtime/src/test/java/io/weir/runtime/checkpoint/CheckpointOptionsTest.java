package io.weir.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.runtime.network.ChannelEvent;
import org.junit.jupiter.api.Test;

/** The kind of a snapshot survives the trip from the trigger through the barrier to every task. */
class CheckpointOptionsTest {

  @Test
  void aFullCheckpointReachesTheTasksBehindTheSourcesAsAFullCheckpoint() {
    CheckpointOptions full = CheckpointOptions.fullCheckpoint(BarrierHandler.Alignment.UNALIGNED);

    ChannelEvent.CheckpointBarrier barrier = full.toBarrier(7, 70, true);
    CheckpointOptions received =
        CheckpointOptions.of(barrier.withUnaligned(false), BarrierHandler.Alignment.UNALIGNED);

    assertThat(barrier.fullCheckpoint()).isTrue();
    assertThat(barrier.savepoint()).isFalse();
    assertThat(barrier.unaligned()).as("a full checkpoint may overtake").isTrue();
    assertThat(received).isEqualTo(full);
    assertThat(received.mayReuseEarlierFiles()).isFalse();
  }

  @Test
  void aCheckpointOfTheConfiguredKindAndASavepointStayWhatTheyWere() {
    CheckpointOptions checkpoint = CheckpointOptions.checkpoint(BarrierHandler.Alignment.ALIGNED);
    CheckpointOptions savepoint =
        CheckpointOptions.savepoint(CheckpointOptions.Type.SAVEPOINT, "file:///sp");

    assertThat(checkpoint.toBarrier(1, 0, true).fullCheckpoint()).isFalse();
    assertThat(CheckpointOptions.of(checkpoint.toBarrier(1, 0, true), checkpoint.alignment()))
        .isEqualTo(checkpoint);
    assertThat(CheckpointOptions.of(savepoint.toBarrier(2, 0, true), checkpoint.alignment()))
        .isEqualTo(savepoint);
    assertThat(checkpoint.mayReuseEarlierFiles()).isTrue();
    assertThat(savepoint.mayReuseEarlierFiles()).isFalse();
  }

  @Test
  void aFullCheckpointIsNoSavepoint() {
    assertThat(CheckpointOptions.Type.FULL_CHECKPOINT.isSavepoint()).isFalse();
    assertThatThrownBy(() -> CheckpointOptions.savepoint(CheckpointOptions.Type.FULL_CHECKPOINT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("FULL_CHECKPOINT");
    assertThatThrownBy(() -> new ChannelEvent.CheckpointBarrier(3, 0, true, false, null, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("savepoint");
  }
}
