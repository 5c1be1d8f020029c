package io.weir.api;

import java.util.Objects;

/**
 * Where the programs of this JVM receive the results of {@code executeAndCollect}: the collect sink
 * of the job, on whichever TaskManager runs it, connects back to the program that called {@code
 * executeAndCollect}, at a port it opened for that call. By default the port is on 127.0.0.1, which
 * is right where the tasks run in this JVM (local execution, {@code weir run} without {@code
 * --jobmanager}); a JobManager, which runs the programs of the jars submitted to it, sets its own
 * addresses ({@code jobmanager.bind-host}, {@code jobmanager.rpc.address}) when it starts. Thread
 * safe.
 */
public final class CollectEndpoint {

  private static volatile String bindHost = "127.0.0.1";
  private static volatile String advertisedHost = "127.0.0.1";

  private CollectEndpoint() {}

  /**
   * From now on {@code executeAndCollect} in this JVM listens on {@code bindHost} and tells its
   * collect sink to connect to {@code advertisedHost}: an address every TaskManager reaches.
   */
  public static void listenOn(String bindHost, String advertisedHost) {
    CollectEndpoint.bindHost = Objects.requireNonNull(bindHost, "bindHost");
    CollectEndpoint.advertisedHost = Objects.requireNonNull(advertisedHost, "advertisedHost");
  }

  static String bindHost() {
    return bindHost;
  }

  static String advertisedHost() {
    return advertisedHost;
  }
}
