package io.weir.api.config;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists this module's keys as they are declared. */
class ConfigurationDocsTest {

  @Test
  void theDocsListEveryKeyOfThisModule() throws Exception {
    ConfigDocs.check(Path.of("..", "docs", "configuration.md"), "weir-api");
  }

  @Test
  void theDocsListTheFlinkKeysWeirDoesNotActOn() throws Exception {
    ConfigDocs.checkFlinkKeys(Path.of("..", "docs", "configuration.md"));
  }
}
