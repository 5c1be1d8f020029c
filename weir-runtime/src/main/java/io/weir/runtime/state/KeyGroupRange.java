package io.weir.runtime.state;

/**
 * A contiguous range of key groups, {@code [startKeyGroup, endKeyGroup]} inclusive, owned by one
 * subtask of a keyed operator. Empty when {@code endKeyGroup < startKeyGroup}.
 */
public record KeyGroupRange(int startKeyGroup, int endKeyGroup) {

  public KeyGroupRange {
    if (startKeyGroup < 0) {
      throw new IllegalArgumentException("Key group ranges start at 0 or above: " + startKeyGroup);
    }
  }

  public static KeyGroupRange of(int start, int end) {
    return new KeyGroupRange(start, end);
  }

  public int getNumberOfKeyGroups() {
    return Math.max(0, endKeyGroup - startKeyGroup + 1);
  }

  public boolean contains(int keyGroup) {
    return keyGroup >= startKeyGroup && keyGroup <= endKeyGroup;
  }

  /** The overlap of two ranges; possibly empty. */
  public KeyGroupRange intersection(KeyGroupRange other) {
    int start = Math.max(startKeyGroup, other.startKeyGroup);
    int end = Math.min(endKeyGroup, other.endKeyGroup);
    return new KeyGroupRange(start, Math.max(end, start - 1));
  }

  @Override
  public String toString() {
    return "KeyGroupRange[" + startKeyGroup + ".." + endKeyGroup + "]";
  }
}
