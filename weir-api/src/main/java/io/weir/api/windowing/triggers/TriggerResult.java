package io.weir.api.windowing.triggers;

/** What a trigger decides for a window. */
public enum TriggerResult {
  /** Nothing happens. */
  CONTINUE(false, false),
  /** The window function runs on the contents, then the contents are dropped. */
  FIRE_AND_PURGE(true, true),
  /** The window function runs on the contents, which stay. */
  FIRE(true, false),
  /** The contents are dropped without firing. */
  PURGE(false, true);

  private final boolean fire;
  private final boolean purge;

  TriggerResult(boolean fire, boolean purge) {
    this.fire = fire;
    this.purge = purge;
  }

  public boolean isFire() {
    return fire;
  }

  public boolean isPurge() {
    return purge;
  }
}
