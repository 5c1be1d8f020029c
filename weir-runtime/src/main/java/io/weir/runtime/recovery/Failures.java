package io.weir.runtime.recovery;

import io.weir.api.SuppressRestartsException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;

/** Classifies the failure of a job attempt: whether restarting can help. */
public final class Failures {

  private Failures() {}

  /**
   * The first {@link NonRecoverable} exception (or a user's {@link SuppressRestartsException})
   * among {@code failure}, its causes and their suppressed exceptions, or null when restarting may
   * help.
   */
  public static Throwable findNonRecoverable(Throwable failure) {
    Deque<Throwable> todo = new ArrayDeque<>();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    if (failure != null) {
      todo.add(failure);
    }
    while (!todo.isEmpty()) {
      Throwable t = todo.poll();
      if (!seen.add(t)) {
        continue;
      }
      if (t instanceof NonRecoverable || t instanceof SuppressRestartsException) {
        return t;
      }
      if (t.getCause() != null) {
        todo.add(t.getCause());
      }
      Collections.addAll(todo, t.getSuppressed());
    }
    return null;
  }
}
