package io.weir.benchmarks;

import java.util.List;

/**
 * The arguments every workload main takes: {@code <config> [records]}, for example {@code cp1s
 * 20000000}. {@link SideBySide} always passes both.
 */
public record JobArgs(String config, long records) {

  /**
   * Parses {@code args} for {@code workload}; the error names the bad argument and what is
   * accepted.
   */
  public static JobArgs parse(
      String[] args, String workload, List<String> configs, long defaultRecords) {
    if (args.length < 1 || args.length > 2) {
      throw new IllegalArgumentException(usage(workload, configs));
    }
    String config = args[0];
    if (!configs.contains(config)) {
      throw new IllegalArgumentException(
          "Unknown configuration '"
              + config
              + "' for "
              + workload
              + ". "
              + usage(workload, configs));
    }
    long records = defaultRecords;
    if (args.length == 2) {
      try {
        records = Long.parseLong(args[1].replace("_", ""));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "Records must be a whole number, not '" + args[1] + "'. " + usage(workload, configs),
            e);
      }
      if (records < 1) {
        throw new IllegalArgumentException("Records must be at least 1, not " + records + ".");
      }
    }
    return new JobArgs(config, records);
  }

  private static String usage(String workload, List<String> configs) {
    return "Usage: <main class of " + workload + "> <" + String.join("|", configs) + "> [records]";
  }
}
