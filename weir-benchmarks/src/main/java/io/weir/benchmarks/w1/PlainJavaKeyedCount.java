package io.weir.benchmarks.w1;

import io.weir.benchmarks.ChildMain;
import io.weir.benchmarks.Engine;
import io.weir.benchmarks.JobArgs;
import io.weir.benchmarks.Result;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The physical limit for W1: the same arithmetic and {@code HashMap<Long, Long>} updates with no
 * framework, one thread per core (2). Thread {@code t} takes the {@code i} in {@code 1..N} with
 * {@code i % 2 == t} and counts into its own map, so there is no shuffle, no serialization and no
 * synchronization: what a stream processor costs on top of this is its own overhead.
 *
 * <p>Arguments: {@code off [records]}. Prints one {@link Result} line.
 */
public final class PlainJavaKeyedCount {
  private static final int THREADS = 2;

  /** Where each thread's checksum of its emitted {@code (key, count)} pairs ends up. */
  @SuppressWarnings("unused") // written so the JIT cannot drop the work
  private static volatile long blackhole;

  private PlainJavaKeyedCount() {}

  public static void main(String[] args) {
    ChildMain.run(() -> measure(args));
  }

  private static void measure(String[] args) throws Exception {
    JobArgs job = JobArgs.parse(args, "W1", List.of("off"), 20_000_000L);
    long n = job.records();

    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    try {
      long start = System.nanoTime();
      List<Future<Long>> parts = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        parts.add(threads.submit(countShare(t, n)));
      }
      long checksum = 0;
      for (Future<Long> part : parts) {
        checksum ^= join(part);
      }
      long nanos = System.nanoTime() - start;
      blackhole = checksum;
      Result.of(Engine.PLAIN, "W1", job.config(), n, nanos).print();
    } finally {
      threads.shutdownNow();
    }
  }

  /** Thread {@code t}'s share: the {@code i} in {@code 1..n} with {@code i % THREADS == t}. */
  private static Callable<Long> countShare(int t, long n) {
    return () -> {
      Map<Long, Long> counts = new HashMap<>();
      long checksum = 0;
      long first = t == 0 ? THREADS : t;
      for (long i = first; i <= n; i += THREADS) {
        long key = ((i * 0x9E3779B97F4A7C15L) >>> 47) % 100_000;
        Long current = counts.get(key);
        long next = current == null ? 1L : current + 1L;
        counts.put(key, next);
        // Emit (key, count): fold it into a checksum that reaches a volatile write.
        checksum = checksum * 31 + (key ^ next);
      }
      return checksum;
    };
  }

  private static long join(Future<Long> part) throws InterruptedException {
    try {
      return part.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("A counting thread failed", e.getCause());
    }
  }
}
