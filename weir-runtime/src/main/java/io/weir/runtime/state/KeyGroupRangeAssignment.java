package io.weir.runtime.state;

/**
 * The one function that decides where a key lives. The keyBy partitioner and the state backends
 * both use it, so a record always reaches the subtask that holds its key's state.
 *
 * <p>key group = murmur3-mixed {@code hashCode} modulo max parallelism; subtask i of p owns the
 * contiguous range of key groups whose {@code keyGroup * p / maxParallelism == i}. Contiguous
 * ranges make rescaling a matter of splitting and merging ranges.
 */
public final class KeyGroupRangeAssignment {

  /** Flink's default max parallelism, which Weir shares so jobs feel the same. */
  public static final int DEFAULT_MAX_PARALLELISM = 128;

  /** Key groups are written as two bytes in some formats. */
  public static final int UPPER_BOUND_MAX_PARALLELISM = 1 << 15;

  private KeyGroupRangeAssignment() {}

  /** The subtask that owns {@code key}. */
  public static int assignKeyToParallelOperator(Object key, int maxParallelism, int parallelism) {
    return computeOperatorIndexForKeyGroup(
        maxParallelism, parallelism, assignToKeyGroup(key, maxParallelism));
  }

  /**
   * The key group of {@code key}, which a keyed backend of {@code operatorName} owning {@code
   * range} is about to scope its state to.
   *
   * @throws NullPointerException if the key selector returned null
   * @throws IllegalStateException if the key's group is not in {@code range} (an unstable hashCode)
   */
  public static int checkedKeyGroup(
      Object key, int maxParallelism, KeyGroupRange range, String operatorName) {
    if (key == null) {
      throw new NullPointerException(
          "The key selector of '" + operatorName + "' returned null; keys must not be null");
    }
    int keyGroup = assignToKeyGroup(key, maxParallelism);
    if (!range.contains(keyGroup)) {
      throw new IllegalStateException(
          "Key '"
              + key
              + "' belongs to key group "
              + keyGroup
              + ", which is not in this subtask's "
              + range
              + " of operator '"
              + operatorName
              + "'. The key's hashCode() must be the same in every JVM and not change while"
              + " the key is in use (do not use arrays, enums' identity hashes or mutable keys).");
    }
    return keyGroup;
  }

  public static int assignToKeyGroup(Object key, int maxParallelism) {
    if (key == null) {
      throw new NullPointerException("A key must not be null");
    }
    return computeKeyGroupForKeyHash(key.hashCode(), maxParallelism);
  }

  /**
   * {@code murmurHash(keyHash) % maxParallelism}. Every record's key goes through here twice (the
   * partitioner and the keyed backend), so a power-of-two max parallelism, the default 128, takes
   * the low bits of the non-negative hash instead of an integer division: the same key group.
   */
  public static int computeKeyGroupForKeyHash(int keyHash, int maxParallelism) {
    int hash = murmurHash(keyHash);
    return isPowerOfTwo(maxParallelism) ? hash & (maxParallelism - 1) : hash % maxParallelism;
  }

  /**
   * {@code keyGroupId * parallelism / maxParallelism}, as a shift when the max parallelism is a
   * power of two (the product is non-negative: both factors are at most 2^15).
   */
  public static int computeOperatorIndexForKeyGroup(
      int maxParallelism, int parallelism, int keyGroupId) {
    int scaled = keyGroupId * parallelism;
    return isPowerOfTwo(maxParallelism)
        ? scaled >>> Integer.numberOfTrailingZeros(maxParallelism)
        : scaled / maxParallelism;
  }

  private static boolean isPowerOfTwo(int n) {
    return (n & (n - 1)) == 0;
  }

  /** The key groups of subtask {@code operatorIndex}; the inverse of the function above. */
  public static KeyGroupRange computeKeyGroupRangeForOperatorIndex(
      int maxParallelism, int parallelism, int operatorIndex) {
    checkParallelism(maxParallelism, parallelism);
    int start = (operatorIndex * maxParallelism + parallelism - 1) / parallelism;
    int end = ((operatorIndex + 1) * maxParallelism - 1) / parallelism;
    return new KeyGroupRange(start, end);
  }

  static void checkParallelism(int maxParallelism, int parallelism) {
    if (parallelism < 1 || parallelism > maxParallelism) {
      throw new IllegalArgumentException(
          "Parallelism "
              + parallelism
              + " must be between 1 and the max parallelism "
              + maxParallelism);
    }
  }

  /**
   * The murmur3 32-bit hash of one int (seed 0), made non-negative. Spreads keys whose {@code
   * hashCode}s are sequential (Long, Integer) evenly over the key groups.
   */
  public static int murmurHash(int code) {
    int k = code * 0xcc9e2d51;
    k = Integer.rotateLeft(k, 15);
    k *= 0x1b873593;
    int h = Integer.rotateLeft(k, 13);
    h = h * 5 + 0xe6546b64;
    h ^= 4;
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h >= 0 ? h : (h == Integer.MIN_VALUE ? 0 : -h);
  }
}
