package io.weir.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.Configuration;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local copies of a subtask's snapshots: only the newest completed checkpoint's and the ones
 * after it are kept, an aborted one is dropped, a restore keeps only what it restores, and the
 * job's directory goes when the job ends.
 */
class TaskLocalStateStoreTest {

  static final String JOB = "0123456789abcdef0123456789abcdef";

  @TempDir Path dir;

  private Configuration conf(boolean backup, boolean fromLocal) {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.LOCAL_BACKUP_DIRECTORIES, dir.toString());
    if (backup) {
      conf.set(CheckpointingOptions.LOCAL_BACKUP_ENABLED, true);
    }
    conf.set(CheckpointingOptions.LOCAL_RECOVERY, fromLocal);
    return conf;
  }

  private static void copy(TaskLocalStateStore store, long id) throws Exception {
    Path d = store.newSnapshotDirectory(id, "op");
    Files.createDirectories(d);
    Files.writeString(d.resolve("file"), "state of " + id);
  }

  @Test
  void offByDefaultAndFromLocalTurnsOnTheBackup() {
    assertThat(TaskLocalStateStore.create(new Configuration(), JOB, 0, 0)).isNull();
    assertThat(TaskLocalStateStore.create(conf(false, false), JOB, 0, 0)).isNull();
    TaskLocalStateStore store = TaskLocalStateStore.create(conf(false, true), JOB, 1, 2);
    assertThat(store).isNotNull();
    assertThat(store.restoresFromLocal()).isTrue();
    assertThat(store.directory()).isEqualTo(dir.resolve("job_" + JOB).resolve("vtx_1_sti_2"));
    assertThat(TaskLocalStateStore.create(conf(true, false), JOB, 0, 0).restoresFromLocal())
        .isFalse();
  }

  @Test
  void aCompletedCheckpointSubsumesOlderCopiesAndKeepsLaterOnes() throws Exception {
    TaskLocalStateStore store = TaskLocalStateStore.create(conf(true, true), JOB, 0, 0);
    copy(store, 1);
    copy(store, 2);
    store.confirmCheckpoint(1);
    assertThat(store.checkpoints()).containsExactly(1L, 2L);
    copy(store, 3);
    store.confirmCheckpoint(2);
    assertThat(store.checkpoints()).containsExactly(2L, 3L);
    store.abortCheckpoint(3);
    assertThat(store.checkpoints()).containsExactly(2L);
    assertThat(store.snapshotForRestore(2, "op")).isDirectory();
    assertThat(store.snapshotForRestore(3, "op")).isNull();
  }

  @Test
  void aSavepointOrACheckpointWithoutACopySubsumesNoCopy() throws Exception {
    TaskLocalStateStore store = TaskLocalStateStore.create(conf(true, true), JOB, 0, 0);
    copy(store, 2);
    store.confirmCheckpoint(5); // a savepoint: written to its own directory, no copy here
    assertThat(store.checkpoints()).containsExactly(2L);
    assertThat(store.snapshotForRestore(2, "op")).isDirectory();
  }

  @Test
  void aRestoreKeepsOnlyTheCopyOfTheCheckpointItRestores() throws Exception {
    TaskLocalStateStore store = TaskLocalStateStore.create(conf(true, true), JOB, 0, 0);
    copy(store, 4);
    copy(store, 5);
    copy(store, 6);
    store.retainOnly(5);
    assertThat(store.checkpoints()).containsExactly(5L);
    store.retainOnly(-1);
    assertThat(store.checkpoints()).isEmpty();
  }

  @Test
  void copiesAreNotOfferedForRestoreWhenRecoveryFromLocalIsOff() throws Exception {
    TaskLocalStateStore store = TaskLocalStateStore.create(conf(true, false), JOB, 0, 0);
    copy(store, 1);
    assertThat(store.snapshotForRestore(1, "op")).isNull();
    assertThat(store.checkpoints()).containsExactly(1L);
  }

  @Test
  void theJobsDirectoryGoesWhenTheJobEnds() throws Exception {
    Configuration conf = conf(true, true);
    copy(TaskLocalStateStore.create(conf, JOB, 0, 0), 1);
    copy(TaskLocalStateStore.create(conf, JOB, 1, 1), 1);
    copy(TaskLocalStateStore.create(conf, "other", 0, 0), 1);
    TaskLocalStateStore.discardJob(conf, JOB);
    assertThat(dir.resolve("job_" + JOB)).doesNotExist();
    assertThat(dir.resolve("job_other")).isDirectory();
  }
}
