package io.weir.cluster.rpc;

import java.util.ArrayList;
import java.util.List;

/** Error messages of a cause chain, for logs and replies that carry no stack trace. */
public final class WeirMessages {

  private WeirMessages() {}

  /** The messages of {@code error} and its causes, each once. */
  public static String describe(Throwable error) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = error; t != null; t = t.getCause()) {
      String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (messages.stream().noneMatch(x -> x.contains(m))) {
        messages.add(m);
      }
    }
    return String.join("; caused by: ", messages);
  }
}
