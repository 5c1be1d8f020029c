package io.weir.examples;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The examples jar's {@code Main-Class}: runs the example its first argument names, with the rest
 * of the arguments, so that {@code ./weir run weir-examples.jar PageViewCount --rate 100} needs no
 * {@code -c}. (Flink ships one jar per example instead; {@code -c io.weir.examples.PageViewCount}
 * works here too.)
 */
public final class Examples {

  private Examples() {}

  /** The main method of one example. */
  @FunctionalInterface
  interface Main {
    void run(String[] args) throws Exception;
  }

  /** Every example, by the name of its class. */
  static final Map<String, Main> EXAMPLES = new LinkedHashMap<>();

  static {
    EXAMPLES.put("PageViewCount", PageViewCount::main);
    EXAMPLES.put("WindowedPageViews", WindowedPageViews::main);
    EXAMPLES.put("WordCount", WordCount::main);
    EXAMPLES.put("KeyedRunningSum", KeyedRunningSum::main);
    EXAMPLES.put("OrderShipmentJoin", OrderShipmentJoin::main);
  }

  public static void main(String[] args) throws Exception {
    Main example = args.length == 0 ? null : EXAMPLES.get(args[0]);
    if (example == null) {
      throw new IllegalArgumentException(
          (args.length == 0 ? "No example named" : "No example named '" + args[0] + "'")
              + ": give one of "
              + String.join(", ", EXAMPLES.keySet())
              + " after the jar, e.g. weir run weir-examples.jar PageViewCount --rate 100");
    }
    example.run(Arrays.copyOfRange(args, 1, args.length));
  }
}
