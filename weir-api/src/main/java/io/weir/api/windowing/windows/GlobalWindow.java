package io.weir.api.windowing.windows;

/** The one window of {@code GlobalWindows}: every element of a key, until a trigger fires. */
public record GlobalWindow() implements Window {

  private static final GlobalWindow INSTANCE = new GlobalWindow();

  public static GlobalWindow get() {
    return INSTANCE;
  }

  @Override
  public long maxTimestamp() {
    return Long.MAX_VALUE;
  }
}
