package io.weir.runtime.storage;

import java.io.IOException;
import java.nio.file.Path;

/** A reader of state kept in {@link StateFiles}: the job's file storage and a loaded checkpoint. */
interface FileStateReader extends CheckpointStateReader {

  /** The files the handles resolve to. */
  StateFiles stateFiles();

  @Override
  default byte[] readState(StreamStateHandle handle) throws IOException {
    return stateFiles().read(handle);
  }

  @Override
  default void readStateToFile(StreamStateHandle handle, Path target) throws IOException {
    stateFiles().readToFile(handle, target);
  }

  @Override
  default void verifyState(StreamStateHandle handle) throws IOException {
    stateFiles().verify(handle);
  }
}
