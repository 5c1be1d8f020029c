package io.weir.state.rocksdb;

import io.weir.api.StreamEnvironment;
import io.weir.runtime.state.SchemaEvolutionScenario;
import java.nio.file.Path;

/**
 * {@link SchemaEvolutionScenario} on RocksDB with incremental checkpoints: the restored SST files
 * hold the old layout, and a state that needs migration has its column family rewritten when it is
 * registered.
 */
class RocksDBSchemaEvolutionTest extends SchemaEvolutionScenario {

  @Override
  protected void configureBackend(StreamEnvironment env, Path localDir) {
    env.setStateBackend(
        new EmbeddedRocksDBStateBackend(true).setDbStoragePaths(localDir.toString()));
  }
}
