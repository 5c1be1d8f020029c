package io.weir.state.rocksdb;

import io.weir.api.StreamEnvironment;
import io.weir.runtime.state.SchemaEvolutionScenario;
import java.nio.file.Path;

/**
 * {@link SchemaEvolutionScenario} on RocksDB with full checkpoints in the canonical key-group
 * format: the restore writes the old layout's bytes into the database, and the state is migrated
 * when it is registered.
 */
class RocksDBCanonicalSchemaEvolutionTest extends SchemaEvolutionScenario {

  @Override
  protected void configureBackend(StreamEnvironment env, Path localDir) {
    env.setStateBackend(
        new EmbeddedRocksDBStateBackend(false).setDbStoragePaths(localDir.toString()));
    env.getConfiguration().set(RocksDBOptions.FULL_CHECKPOINT_FORMAT, "canonical");
  }
}
