package io.weir.runtime.state;

import io.weir.api.HashMapStateBackend;
import io.weir.api.StreamEnvironment;
import java.nio.file.Path;

/** {@link SchemaEvolutionScenario} on the heap backend: migration happens as the state loads. */
class HeapSchemaEvolutionTest extends SchemaEvolutionScenario {

  @Override
  protected void configureBackend(StreamEnvironment env, Path localDir) {
    env.setStateBackend(new HashMapStateBackend());
  }
}
