package io.weir.api.source;

import java.io.Serializable;
import java.util.List;
import java.util.OptionalInt;

/**
 * A parallel source of records, divided into splits (files, partitions, ranges).
 *
 * <p>Weir assigns splits statically: {@link #createSplits} runs once when the job is first started,
 * splits are dealt round robin to the subtasks, and from then on the splits with their progress
 * live in checkpoints, so a restore (at any parallelism) deals the checkpointed splits out again.
 * This is Flink's split model without the enumerator round trips.
 */
public interface Source<T, SplitT> extends Serializable {

  Boundedness getBoundedness();

  /** The splits of the whole input, for a job started without state. */
  List<SplitT> createSplits(int parallelism) throws Exception;

  SourceReader<T, SplitT> createReader(SourceReaderContext context) throws Exception;

  SimpleVersionedSerializer<SplitT> getSplitSerializer();

  /**
   * The subtask that must read {@code split} when the source runs with {@code parallelism}
   * subtasks, for sources whose readers find new splits on their own (a Kafka reader discovering
   * partitions): with a fixed owner per split, a reader knows which new splits are its own without
   * asking the others, and a restore at any parallelism deals every split to its owner. Empty, the
   * default, deals splits round robin. Called where splits are assigned, for fresh and restored
   * splits alike.
   */
  default OptionalInt ownerOf(SplitT split, int parallelism) {
    return OptionalInt.empty();
  }
}
