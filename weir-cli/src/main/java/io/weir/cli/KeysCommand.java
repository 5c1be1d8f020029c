package io.weir.cli;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.KnownKeys;
import io.weir.api.config.TimeUtils;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weir keys [PREFIX]}: the configuration keys of the modules on the command's class path,
 * from the one registry the submission's "did you mean" check and docs/configuration.md read.
 */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description =
        "List the configuration keys Weir reads: key, default, deprecated names and what each"
            + " does, by module.")
final class KeysCommand implements Callable<Integer> {

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "PREFIX",
      description = "Only keys that start with this, e.g. execution.checkpointing.")
  String prefix = "";

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    int shown = 0;
    for (Map.Entry<String, List<ConfigOption<?>>> module : KnownKeys.byModule().entrySet()) {
      List<ConfigOption<?>> options = new ArrayList<>();
      for (ConfigOption<?> option : module.getValue()) {
        if (option.key().startsWith(prefix)
            || option.deprecatedKeys().stream().anyMatch(k -> k.startsWith(prefix))) {
          options.add(option);
        }
      }
      if (options.isEmpty()) {
        continue;
      }
      options.sort(Comparator.comparing(ConfigOption::key));
      out.println(module.getKey());
      for (ConfigOption<?> option : options) {
        out.println(
            "  " + option.key() + " = " + (option.hasDefaultValue() ? format(option) : "(none)"));
        if (!option.description().isBlank()) {
          out.println("      " + option.description());
        }
        if (!option.deprecatedKeys().isEmpty()) {
          out.println("      deprecated names: " + String.join(", ", option.deprecatedKeys()));
        }
        shown++;
      }
    }
    out.flush();
    if (shown == 0) {
      throw new IllegalArgumentException(
          "No configuration key starts with '"
              + prefix
              + "': run 'weir keys' without a prefix for them all");
    }
    return 0;
  }

  private static String format(ConfigOption<?> option) {
    Object value = option.defaultValue();
    return value instanceof Duration d ? TimeUtils.format(d) : String.valueOf(value);
  }
}
