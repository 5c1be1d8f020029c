package io.weir.api.config;

import java.util.Collection;

/**
 * Makes a module's configuration options known, so that a misspelled key of Weir's own namespaces
 * is reported at submission (see {@link KnownKeys}). A module that reads {@code state.*}, {@code
 * execution.*} or another of those namespaces lists its options here and registers the provider in
 * {@code META-INF/services/io.weir.api.config.ConfigOptionProvider}.
 */
public interface ConfigOptionProvider {

  /** The options this module reads. */
  Collection<ConfigOption<?>> options();

  /** The module's name, which heads its section of {@code docs/configuration.md}. */
  String module();

  /** Every public static {@link ConfigOption} field of {@code holders}. */
  static Collection<ConfigOption<?>> declaredIn(Class<?>... holders) {
    return KnownKeys.declaredIn(holders);
  }
}
