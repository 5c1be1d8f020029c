package io.weir.api.source;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NumberSequenceSourceTest {

  /** fromSequence(0, Long.MAX_VALUE), an endless stream in Flink's examples, has 2^63 numbers. */
  @Test
  void theRangeFromZeroToTheLargestLongIsOneSplitAtParallelismOne() {
    assertThat(new NumberSequenceSource(0, Long.MAX_VALUE).createSplits(1))
        .containsExactly(new NumberSequenceSource.Split(0, Long.MAX_VALUE));
    assertThat(new NumberSequenceSource(0, Long.MAX_VALUE).createSplits(2))
        .containsExactly(
            new NumberSequenceSource.Split(0, (1L << 62) - 1),
            new NumberSequenceSource.Split(1L << 62, Long.MAX_VALUE));
  }

  /** The whole long range has 2^64 numbers, one more than a long counts. */
  @Test
  void theWholeLongRangeIsSplitEvenly() {
    assertThat(new NumberSequenceSource(Long.MIN_VALUE, Long.MAX_VALUE).createSplits(1))
        .containsExactly(new NumberSequenceSource.Split(Long.MIN_VALUE, Long.MAX_VALUE));
    assertThat(new NumberSequenceSource(Long.MIN_VALUE, Long.MAX_VALUE).createSplits(2))
        .containsExactly(
            new NumberSequenceSource.Split(Long.MIN_VALUE, -1),
            new NumberSequenceSource.Split(0, Long.MAX_VALUE));
  }

  @Test
  void aRangeSmallerThanTheParallelismLeavesTheOtherSubtasksWithoutASplit() {
    assertThat(new NumberSequenceSource(5, 6).createSplits(3))
        .containsExactly(
            new NumberSequenceSource.Split(5, 5), new NumberSequenceSource.Split(6, 6));
  }
}
