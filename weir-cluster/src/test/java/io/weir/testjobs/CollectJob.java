package io.weir.testjobs;

import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.MapFunction;
import io.weir.api.functions.RichMapFunction;
import io.weir.api.source.datagen.DataGeneratorSource;
import io.weir.api.source.datagen.RateLimiterStrategy;
import io.weir.api.typeutils.Types;
import io.weir.api.util.CloseableIterator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A job shipped to the cluster as a jar that reads its own results with {@code executeAndCollect}
 * (in the JobManager's process, which runs its {@code main}) and writes what it read, one per line,
 * to a file that appears once complete. Arguments: mode, output file, then the mode's own:
 *
 * <ul>
 *   <li>{@code all}: the doubles of 1..2000, every one;
 *   <li>{@code limit}: the first 5 of an endless sequence ({@code executeAndCollect(5)});
 *   <li>{@code fail}: a job that fails at 50; writes the exception's causes, one per line;
 *   <li>{@code parallelism}: the parallelism a map ran at;
 *   <li>{@code restart CHECKPOINTS SIGNAL}: 0..999 with checkpoints, failing once when the signal
 *       file appears, which the program creates once it read the first result.
 * </ul>
 */
public final class CollectJob {

  private CollectJob() {}

  /** Throws once at 50. */
  public static final class FailAtFifty implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long map(Long value) {
      if (value == 50) {
        throw new IllegalStateException("no fifty");
      }
      return value;
    }
  }

  /** Throws once when the signal file appears (and deletes it). */
  public static final class FailOnSignal implements MapFunction<Long, Long> {
    private static final long serialVersionUID = 1L;
    private final String signal;

    FailOnSignal(String signal) {
      this.signal = signal;
    }

    @Override
    public Long map(Long value) throws Exception {
      if (Files.deleteIfExists(Path.of(signal))) {
        throw new IllegalStateException("injected failure at " + value);
      }
      return value;
    }
  }

  /** Each element becomes the parallelism of the subtask that mapped it. */
  public static final class Parallelism extends RichMapFunction<Integer, Integer> {
    @Override
    public Integer map(Integer value) {
      return getRuntimeContext().getNumberOfParallelSubtasks();
    }
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Path out = Path.of(args[1]);
    StreamEnvironment env = StreamEnvironment.create();
    List<String> lines = new ArrayList<>();
    switch (mode) {
      case "all" -> {
        try (CloseableIterator<Long> it =
            env.fromSequence(1, 2000).map(x -> 2 * x).returns(Types.LONG).executeAndCollect()) {
          it.forEachRemaining(x -> lines.add(String.valueOf(x)));
        }
      }
      case "limit" ->
          env.fromSequence(0, Long.MAX_VALUE)
              .map(x -> x)
              .returns(Types.LONG)
              .executeAndCollect(5)
              .forEach(x -> lines.add(String.valueOf(x)));
      case "fail" -> {
        CloseableIterator<Long> it =
            env.fromSequence(1, 100).map(new FailAtFifty()).executeAndCollect();
        try (it) {
          it.forEachRemaining(x -> {});
        } catch (RuntimeException e) {
          for (Throwable t = e; t != null; t = t.getCause()) {
            lines.add(t.toString());
          }
        }
      }
      case "parallelism" ->
          env.fromData(1)
              .map(new Parallelism())
              .returns(Types.INT)
              .executeAndCollect(1)
              .forEach(x -> lines.add(String.valueOf(x)));
      case "restart" -> {
        env.enableCheckpointing(Duration.ofMillis(50));
        env.getCheckpointConfig().setCheckpointStorage(args[2]);
        env.setRestartStrategy(RestartStrategy.fixedDelay(3, Duration.ZERO));
        Path signal = Path.of(args[3]);
        try (CloseableIterator<Long> it =
            env.fromSource(
                    new DataGeneratorSource<>(
                        i -> i, 1000, RateLimiterStrategy.perSecond(2000), Types.LONG),
                    "numbers")
                .map(new FailOnSignal(signal.toString()))
                .executeAndCollect()) {
          while (it.hasNext()) {
            lines.add(String.valueOf(it.next()));
            if (lines.size() == 1) {
              Files.createFile(signal);
            }
          }
        }
      }
      default -> throw new IllegalArgumentException("Unknown mode " + mode);
    }
    Path partial = out.resolveSibling(out.getFileName() + ".partial");
    Files.write(partial, lines);
    Files.move(partial, out, StandardCopyOption.ATOMIC_MOVE);
  }
}
