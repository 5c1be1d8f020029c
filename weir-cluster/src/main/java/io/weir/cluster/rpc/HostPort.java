package io.weir.cluster.rpc;

/**
 * A {@code HOST:PORT} address given on a command line.
 *
 * @param host the host name or address
 * @param port the port
 */
public record HostPort(String host, int port) {

  /**
   * Parses {@code address}; {@code what} names the option in the error.
   *
   * @throws IllegalArgumentException naming the option and the address
   */
  public static HostPort parse(String address, String what) {
    int colon = address == null ? -1 : address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException(
          what + " '" + address + "' is not HOST:PORT, e.g. 127.0.0.1:6123");
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      if (port < 1 || port > 65535) {
        throw new NumberFormatException();
      }
      return new HostPort(address.substring(0, colon), port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          what + " '" + address + "' has no valid port (1-65535) after the colon", e);
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
