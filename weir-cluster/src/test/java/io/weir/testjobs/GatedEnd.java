package io.weir.testjobs;

import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A bounded source whose end waits for a gate file: its readers emit everything, then stay idle
 * (checkpoints go on) until the file exists, and only then end their input. A test that must see
 * the job still running after its faults opens the gate when it is done with them, so the job's end
 * never races the test's steps however fast or slow the machine is.
 */
public final class GatedEnd<T, S> implements Source<T, S> {
  private static final long serialVersionUID = 1L;

  private final Source<T, S> source;
  private final String gate;

  public GatedEnd(Source<T, S> source, String gate) {
    this.source = source;
    this.gate = gate;
  }

  @Override
  public Boundedness getBoundedness() {
    return source.getBoundedness();
  }

  @Override
  public List<S> createSplits(int parallelism) throws Exception {
    return source.createSplits(parallelism);
  }

  @Override
  public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
    return new Reader<>(source.createReader(context), Path.of(gate));
  }

  @Override
  public SimpleVersionedSerializer<S> getSplitSerializer() {
    return source.getSplitSerializer();
  }

  @Override
  public OptionalInt ownerOf(S split, int parallelism) {
    return source.ownerOf(split, parallelism);
  }

  private static final class Reader<T, S> implements SourceReader<T, S> {
    private final SourceReader<T, S> reader;
    private final Path gate;
    private ScheduledExecutorService watcher;
    private CompletableFuture<Void> opened;
    private boolean ended;

    Reader(SourceReader<T, S> reader, Path gate) {
      this.reader = reader;
      this.gate = gate;
    }

    @Override
    public void addSplits(List<S> splits) {
      reader.addSplits(splits);
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
      if (!ended) {
        InputStatus status = reader.pollNext(output);
        if (status != InputStatus.END_OF_INPUT) {
          return status;
        }
        ended = true;
      }
      if (Files.exists(gate)) {
        return InputStatus.END_OF_INPUT;
      }
      watchGate();
      return InputStatus.NOTHING_AVAILABLE;
    }

    /** Completes {@link #isAvailable} once the gate file exists, looking every 20 ms. */
    private void watchGate() {
      if (opened != null && !opened.isDone()) {
        return;
      }
      if (watcher == null) {
        watcher =
            Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "gated-end-watcher");
                  t.setDaemon(true);
                  return t;
                });
      }
      CompletableFuture<Void> future = new CompletableFuture<>();
      ScheduledFuture<?> look =
          watcher.scheduleWithFixedDelay(
              () -> {
                if (Files.exists(gate)) {
                  future.complete(null);
                }
              },
              0,
              20,
              TimeUnit.MILLISECONDS);
      future.whenComplete((v, e) -> look.cancel(false));
      opened = future;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return opened == null || !ended ? reader.isAvailable() : opened;
    }

    @Override
    public List<S> snapshotState(long checkpointId) {
      return reader.snapshotState(checkpointId);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
      reader.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void close() throws Exception {
      if (watcher != null) {
        watcher.shutdownNow();
      }
      reader.close();
    }
  }
}
