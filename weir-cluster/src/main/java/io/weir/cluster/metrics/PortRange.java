package io.weir.cluster.metrics;

import java.util.ArrayList;
import java.util.List;

/**
 * The ports to try, in order, from a setting such as {@code 9250}, {@code 9250-9260} or {@code
 * 9250,9252-9254} (Flink's port ranges); {@code 0} is any free port.
 */
record PortRange(String setting, List<Integer> ports) {

  PortRange {
    ports = List.copyOf(ports);
  }

  /**
   * Reads {@code setting} of {@code key}.
   *
   * @throws IllegalArgumentException naming the key and the part that is not a port or range
   */
  static PortRange parse(String key, String setting) {
    List<Integer> ports = new ArrayList<>();
    for (String part : setting.split(",", -1)) {
      String p = part.strip();
      int dash = p.indexOf('-');
      try {
        if (dash < 0) {
          ports.add(port(Integer.parseInt(p)));
          continue;
        }
        int from = port(Integer.parseInt(p.substring(0, dash).strip()));
        int to = port(Integer.parseInt(p.substring(dash + 1).strip()));
        if (from == 0 || to < from) {
          throw new NumberFormatException("not a range");
        }
        for (int port = from; port <= to; port++) {
          ports.add(port);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            key
                + " must be a port, a range of ports or a list of them (9250, 9250-9260,"
                + " 9250,9252), not '"
                + setting
                + "': '"
                + p
                + "' is none",
            e);
      }
    }
    return new PortRange(setting, ports);
  }

  private static int port(int port) {
    if (port < 0 || port > 65535) {
      throw new NumberFormatException("out of range");
    }
    return port;
  }
}
