package io.weir.runtime.testing;

import java.util.List;

/**
 * What a sink made visible in the system it writes to, for a harness to check. Sinks are copied to
 * every instance by Java serialization, so they usually reach the system under test through a
 * static registry keyed by a name the test chooses; this interface reads that registry.
 *
 * @param <T> the type of what the system holds
 */
public interface ExternalOutput<T> {

  /** Forgets everything: called before every run of the script. */
  void reset();

  /** What the system holds now, in the order it became visible: called after every run. */
  List<T> read();
}
