package io.weir.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class KeyGroupRangeAssignmentTest {

  @Property
  void everyKeyGroupIsOwnedByExactlyOneSubtask(
      @ForAll @IntRange(min = 1, max = 4096) int maxParallelism,
      @ForAll @IntRange(min = 1, max = 4096) int parallelismSeed) {
    int parallelism = 1 + (parallelismSeed - 1) % maxParallelism;
    int[] owners = new int[maxParallelism];
    int expectedStart = 0;
    for (int i = 0; i < parallelism; i++) {
      KeyGroupRange range =
          KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
              maxParallelism, parallelism, i);
      // Ranges are contiguous, in subtask order, and never empty.
      assertThat(range.startKeyGroup()).isEqualTo(expectedStart);
      assertThat(range.getNumberOfKeyGroups()).isPositive();
      for (int kg = range.startKeyGroup(); kg <= range.endKeyGroup(); kg++) {
        owners[kg]++;
        // The partitioner's function agrees with the range.
        assertThat(
                KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                    maxParallelism, parallelism, kg))
            .isEqualTo(i);
      }
      expectedStart = range.endKeyGroup() + 1;
    }
    assertThat(expectedStart).isEqualTo(maxParallelism);
    assertThat(owners).containsOnly(1);
  }

  @Property
  void aKeyAlwaysLandsInTheRangeOfTheSubtaskItIsRoutedTo(
      @ForAll long key,
      @ForAll @IntRange(min = 1, max = 1024) int maxParallelism,
      @ForAll @IntRange(min = 1, max = 1024) int parallelismSeed) {
    int parallelism = 1 + (parallelismSeed - 1) % maxParallelism;
    int keyGroup = KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism);
    int subtask =
        KeyGroupRangeAssignment.assignKeyToParallelOperator(key, maxParallelism, parallelism);
    assertThat(keyGroup).isBetween(0, maxParallelism - 1);
    assertThat(
            KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                    maxParallelism, parallelism, subtask)
                .contains(keyGroup))
        .isTrue();
  }

  @Property
  void aPowerOfTwoMaxParallelismGivesTheKeyGroupsAndSubtasksOfTheDivision(
      @ForAll int keyHash,
      @ForAll @IntRange(min = 0, max = 15) int log2MaxParallelism,
      @ForAll @IntRange(min = 1, max = 1 << 15) int parallelismSeed) {
    // The shortcut for powers of two must not move a key: savepoints and Flink's assignment
    // depend on murmurHash % maxParallelism and keyGroup * parallelism / maxParallelism.
    int maxParallelism = 1 << log2MaxParallelism;
    int parallelism = 1 + (parallelismSeed - 1) % maxParallelism;
    int keyGroup = KeyGroupRangeAssignment.computeKeyGroupForKeyHash(keyHash, maxParallelism);
    assertThat(keyGroup).isEqualTo(KeyGroupRangeAssignment.murmurHash(keyHash) % maxParallelism);
    assertThat(
            KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                maxParallelism, parallelism, keyGroup))
        .isEqualTo(keyGroup * parallelism / maxParallelism);
    assertThat(
            KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(
                maxParallelism, parallelism, maxParallelism - 1))
        .isEqualTo(parallelism - 1);
  }

  @Property
  void murmurHashIsNeverNegative(@ForAll int code) {
    assertThat(KeyGroupRangeAssignment.murmurHash(code)).isNotNegative();
  }

  @Property(tries = 20)
  void sequentialKeysSpreadEvenlyOverKeyGroups(
      @ForAll @IntRange(min = 0, max = 1_000_000) int start) {
    int maxParallelism = 128;
    int[] counts = new int[maxParallelism];
    int n = 128 * 200;
    for (long key = start; key < start + n; key++) {
      counts[KeyGroupRangeAssignment.assignToKeyGroup(key, maxParallelism)]++;
    }
    // 200 expected per group: a good mix keeps every group within a wide band.
    for (int c : counts) {
      assertThat(c).isBetween(120, 280);
    }
  }

  @Property
  void rangesIntersectLikeIntervals(
      @ForAll @IntRange(min = 0, max = 50) int a,
      @ForAll @IntRange(min = 0, max = 50) int b,
      @ForAll @IntRange(min = 0, max = 50) int c,
      @ForAll @IntRange(min = 0, max = 50) int d) {
    KeyGroupRange r1 = KeyGroupRange.of(Math.min(a, b), Math.max(a, b));
    KeyGroupRange r2 = KeyGroupRange.of(Math.min(c, d), Math.max(c, d));
    KeyGroupRange both = r1.intersection(r2);
    for (int kg = 0; kg <= 50; kg++) {
      assertThat(both.contains(kg)).isEqualTo(r1.contains(kg) && r2.contains(kg));
    }
  }

  @org.junit.jupiter.api.Test
  void nullKeysAreRejectedWithAMessage() {
    assertThatThrownBy(() -> KeyGroupRangeAssignment.assignToKeyGroup(null, 128))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("must not be null");
  }

  @org.junit.jupiter.api.Test
  void parallelismAboveMaxParallelismIsRejected() {
    assertThatThrownBy(() -> KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(4, 5, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max parallelism 4");
  }
}
