package io.weir.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.runtime.checkpoint.InputChannelStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.StateElement;
import io.weir.runtime.checkpoint.TaskRestore;
import io.weir.runtime.state.DefaultOperatorStateStore;
import io.weir.runtime.state.KeyGroupRange;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.DamagedStateException;
import io.weir.runtime.storage.StorageReference;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A subtask's restore counted as it reads, against totals taken from what it restores. */
class RestoreProgressTest {

  private static final StreamStateHandle.File KEYED = new StreamStateHandle.File("chk-3/a", 700, 1);
  private static final StreamStateHandle.File LISTS = new StreamStateHandle.File("chk-3/b", 200, 2);
  private static final StreamStateHandle.Inline SPLITS =
      new StreamStateHandle.Inline(new byte[] {1, 2, 3}, 3);

  /** Reads every handle as that many zero bytes; a handle named "damaged" is damaged. */
  private static final CheckpointStateReader STORAGE =
      new CheckpointStateReader() {
        @Override
        public byte[] readState(StreamStateHandle handle) throws IOException {
          if (handle instanceof StreamStateHandle.File f && f.relativePath().endsWith("damaged")) {
            throw new DamagedStateException("injected: " + f.relativePath() + " is damaged");
          }
          return new byte[(int) handle.size()];
        }

        @Override
        public StorageReference reference() {
          throw new UnsupportedOperationException();
        }
      };

  private static TaskRestore restore(long checkpointId) {
    TaskRestore.OperatorRestore op =
        new TaskRestore.OperatorRestore(
            List.of(new KeyGroupsStateHandle(KeyGroupRange.of(0, 63), new long[64], KEYED)),
            List.of(),
            Map.of(
                "offsets",
                new TaskRestore.AssignedList(
                    DefaultOperatorStateStore.Mode.SPLIT,
                    // Two elements of one stream: the stream is read once.
                    List.of(
                        new StateElement.Stored(LISTS, 0), new StateElement.Stored(LISTS, 40)))));
    return new TaskRestore(
        checkpointId,
        STORAGE,
        false,
        Map.of("op", op),
        // The channel state shares the stream of the lists: still one piece.
        List.of(new InputChannelStateHandle(0, LISTS, new long[] {80})),
        List.of(),
        new TaskRestore.AssignedSplits(
            List.of(new StateElement.Inline(new byte[] {9})), List.of()));
  }

  @Test
  void aRestoreTotalsEachPieceOfItsStateOnceAndCountsFilesApartFromInlineState() {
    RestoreProgress progress = restore(3).progress();

    RestoreProgress.Sample before = progress.sample(System.nanoTime());
    assertThat(before.checkpointId()).isEqualTo(3);
    assertThat(before.bytesTotal()).isEqualTo(700 + 200);
    assertThat(before.filesTotal()).isEqualTo(2);
    assertThat(before.bytesRead()).isZero();
    assertThat(before.done()).isFalse();
    assertThat(before.estimatedMillisLeft()).as("nothing read: no rate yet").isEqualTo(-1);
  }

  @Test
  void aFreshStartHasNoRestoreToMeasure() {
    assertThat(TaskRestore.fresh(TaskRestore.AssignedSplits.NONE).progress()).isNull();
  }

  @Test
  void whatTheRestoreReadsIsCountedOnceReadAndAFailedReadIsNot() throws Exception {
    TaskRestore restore = restore(3);
    RestoreProgress progress = restore.progress();
    CheckpointStateReader counted = restore.countingInto(progress).storage();
    progress.begin();

    counted.readState(KEYED);
    counted.readState(SPLITS);
    assertThatThrownBy(() -> counted.readState(new StreamStateHandle.File("chk-3/damaged", 50, 0)))
        .isInstanceOf(DamagedStateException.class);

    RestoreProgress.Sample sample = progress.sample(System.nanoTime());
    assertThat(sample.bytesRead()).isEqualTo(700 + 3);
    assertThat(sample.filesRead()).as("inline state is no file").isEqualTo(1);
    assertThat(sample.done()).isFalse();

    counted.readState(LISTS);
    progress.end();
    RestoreProgress.Sample done = progress.sample(System.nanoTime());
    assertThat(done.done()).isTrue();
    assertThat(done.filesRead()).isEqualTo(done.filesTotal());
    assertThat(done.estimatedMillisLeft()).isZero();
    assertThat(progress.sample(System.nanoTime() + 60_000_000_000L).durationMillis())
        .as("a restore that ended keeps its duration")
        .isEqualTo(done.durationMillis());
  }

  @Test
  void theTimeLeftIsTheBytesLeftAtTheRateSoFar() {
    assertThat(new RestoreProgress.Sample(1, 250, 1000, 1, 4, 500, false).estimatedMillisLeft())
        .isEqualTo(1500);
    assertThat(new RestoreProgress.Sample(1, 1000, 1000, 4, 4, 500, false).estimatedMillisLeft())
        .as("all read, operators still opening")
        .isZero();
    assertThat(new RestoreProgress.Sample(1, 0, 1000, 0, 4, 500, false).estimatedMillisLeft())
        .isEqualTo(-1);
  }
}
