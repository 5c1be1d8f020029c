package io.weir.connector.files;

import io.weir.api.sink.TwoPhaseCommitSink;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Sinks that write the elements of a stream as lines of UTF-8 text into files of a directory.
 *
 * <pre>{@code
 * lines.sinkTo(FileSink.exactlyOnce(Path.of("/data/out")));
 * }</pre>
 */
public final class FileSink {

  private FileSink() {}

  /**
   * Writes each element as one line ({@code '\n'}-terminated, UTF-8) so that every element is in
   * the committed files exactly once, even across failures and restores; needs checkpointing.
   *
   * <p>Each subtask writes into a hidden file {@code
   * .part-<subtask>-<attempt>-<run>-<n>.inprogress} of {@code directory}, which is flushed and
   * synced to disk when a checkpoint is taken and renamed atomically to {@code
   * part-<subtask>-<attempt>-<run>-<n>} when that checkpoint completes. {@code run} is drawn at
   * random for every subtask on every start, so a rerun or a restored job never overwrites the
   * files of another. Readers that skip hidden files, such as {@link FileSource}, see only
   * committed data. A checkpoint with no new elements creates no file.
   *
   * @param directory the output directory on the default file system; created when missing. Give
   *     every sink its own directory.
   */
  public static TwoPhaseCommitSink<String, ?> exactlyOnce(Path directory) {
    Objects.requireNonNull(directory, "directory");
    return new ExactlyOnceFileSink(directory.toAbsolutePath().normalize().toString());
  }
}
