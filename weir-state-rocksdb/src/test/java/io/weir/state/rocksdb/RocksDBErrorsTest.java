package io.weir.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.config.Configuration;
import io.weir.api.typeutils.Types;
import io.weir.runtime.recovery.NonRecoverableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad settings and a broken environment give errors that name what is at fault. */
class RocksDBErrorsTest {

  @TempDir Path dir;

  @Test
  void aLocalDirectoryThatCannotBeWrittenNamesTheDirectoryAndTheKey() throws IOException {
    Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
    Configuration conf = TestBackends.configuration("rocksdb-incremental", file.resolve("db"));

    assertThatThrownBy(() -> TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, null))
        .isInstanceOf(NonRecoverableException.class)
        .hasMessageContaining("operator 'op'")
        .hasMessageContaining(file.resolve("db").toString())
        .hasMessageContaining("state.backend.rocksdb.localdir");
  }

  @Test
  void aBadOptionValueNamesItsKey() {
    Configuration conf = TestBackends.configuration("rocksdb-full", dir);
    conf.setString("state.backend.rocksdb.compression", "gzip");

    assertThatThrownBy(() -> TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, null))
        .hasMessageContaining("state.backend.rocksdb.compression")
        .hasMessageContaining("gzip");
    assertThat(dir).isEmptyDirectory(); // nothing left behind
  }

  @Test
  void anUnknownFullCheckpointFormatNamesTheKeyAndTheChoices() {
    Configuration conf = TestBackends.configuration("rocksdb-full", dir);
    conf.setString("state.backend.rocksdb.checkpoint.full-format", "sst");

    assertThatThrownBy(() -> TestBackends.create(conf, Types.LONG.createSerializer(), 0, 1, null))
        .hasMessageContaining("state.backend.rocksdb.checkpoint.full-format")
        .hasMessageContaining("'sst'")
        .hasMessageContaining("native")
        .hasMessageContaining("canonical");
    assertThat(dir).isEmptyDirectory();
  }

  @Test
  void theNativeLibraryFailingToLoadSaysWhichLibraryAndWhy() throws Exception {
    Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
    Path below = file.resolve("native");
    String output = NativeLibraryExtractionTest.probe(below, dir.resolve("tmp"));

    assertThat(output)
        .contains("ERROR Could not load RocksDB's native library librocksdbjni")
        .contains(below.toString())
        .contains("state.backend.rocksdb.native-library.dir")
        .contains("org.rocksdb:rocksdbjni");
  }
}
