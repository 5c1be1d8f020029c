package io.weir.state.rocksdb;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/** Runs file uploads or downloads on a few threads and waits for all of them. */
final class FileTransfer {

  private static final AtomicInteger THREADS = new AtomicInteger();

  private FileTransfer() {}

  /**
   * Runs every task on at most {@code threads} threads; returns their results in order.
   *
   * @throws IOException the first task's failure (the others are cancelled)
   */
  static <T> List<T> runAll(List<Callable<T>> tasks, int threads, String what) throws IOException {
    List<T> results = new ArrayList<>(tasks.size());
    if (tasks.isEmpty()) {
      return results;
    }
    if (threads <= 1 || tasks.size() == 1) {
      for (Callable<T> task : tasks) {
        results.add(call(task));
      }
      return results;
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(threads, tasks.size()),
            r -> {
              Thread t = new Thread(r, "weir-rocksdb-transfer-" + THREADS.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> task : tasks) {
        futures.add(pool.submit(task));
      }
      for (Future<T> f : futures) {
        try {
          results.add(f.get());
        } catch (ExecutionException e) {
          futures.forEach(other -> other.cancel(true));
          Throwable cause = e.getCause();
          if (cause instanceof IOException io) {
            throw io;
          }
          if (cause instanceof UncheckedIOException u) {
            throw u.getCause();
          }
          throw new IOException(what + " failed: " + cause, cause);
        }
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(what + " was interrupted");
    } finally {
      pool.shutdownNow();
    }
  }

  private static <T> T call(Callable<T> task) throws IOException {
    try {
      return task.call();
    } catch (UncheckedIOException e) {
      throw e.getCause();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }
}
