package io.weir.runtime.storage;

import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;

class LocalFileSystemContractTest extends FileSystemContract {

  @TempDir Path tmp;

  @Override
  protected FileSystem fs() {
    return LocalFileSystem.INSTANCE;
  }

  @Override
  protected String newDirectory() {
    return tmp.resolve(UUID.randomUUID().toString()).toString();
  }
}
