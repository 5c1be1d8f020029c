package io.weir.fs.hadoop;

import io.weir.api.config.ConfigDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists this module's keys as they are declared. */
class ConfigurationDocsTest {

  @Test
  void theDocsListEveryKeyOfThisModule() throws Exception {
    ConfigDocs.check(Path.of("..", "docs", "configuration.md"), "weir-fs-hadoop");
  }
}
