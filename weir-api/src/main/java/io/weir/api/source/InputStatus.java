package io.weir.api.source;

/** What a source reader says after one call to {@code pollNext}. */
public enum InputStatus {
  /** Call again right away: more records are ready. */
  MORE_AVAILABLE,
  /** Nothing now: the runtime waits for {@code isAvailable()} before calling again. */
  NOTHING_AVAILABLE,
  /** This reader has no more records, ever. */
  END_OF_INPUT
}
