package io.weir.api;

import io.weir.api.util.CloseableIterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The iterator {@code executeAndCollect} returns: the elements of the job's collect sink, in the
 * order the sink received them, until the job ends; a failed job's exception is thrown from {@link
 * #hasNext}. {@link #close} cancels the job if it still runs. Used from the caller's thread.
 */
final class CollectResultIterator<T> implements CloseableIterator<T> {

  private final CollectSink<T> sink;
  private final CollectSink.Channel channel;
  private final JobClient client;
  private Object next;
  private boolean hasNext;
  private boolean closed;

  CollectResultIterator(CollectSink<T> sink, JobClient client) {
    this.sink = sink;
    this.channel = sink.channel();
    this.client = client;
  }

  @Override
  public boolean hasNext() {
    if (hasNext) {
      return true;
    }
    if (closed) {
      return false;
    }
    try {
      CompletableFuture<JobExecutionResult> result = client.getJobExecutionResult();
      while (true) {
        boolean ended = result.isDone();
        Object element = channel.queue.poll(ended ? 0 : 50, TimeUnit.MILLISECONDS);
        if (element != null) {
          next = element;
          hasNext = true;
          return true;
        }
        if (ended) {
          // Every element the sink wrote before the job ended is in the queue: it is empty.
          close();
          result.get();
          return false;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for the job's results", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException r
          ? r
          : new IllegalStateException("The job of executeAndCollect failed: " + cause, cause);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException(
          "The job of executeAndCollect has ended and every result was read; check hasNext()");
    }
    hasNext = false;
    T element = (T) next;
    next = null;
    return element;
  }

  /** Cancels the job if it still runs and waits until it has stopped. */
  @Override
  public void close() throws InterruptedException {
    if (closed) {
      return;
    }
    closed = true;
    sink.release();
    if (!client.getJobExecutionResult().isDone()) {
      try {
        client.cancel().get();
      } catch (ExecutionException e) {
        // the job ended on its own meanwhile; nothing is left to stop
      }
    }
  }
}
