package io.weir.runtime.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import io.weir.runtime.testing.matrix.MatrixCell;
import io.weir.runtime.testing.matrix.TestMatrix;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A sink whose writer batches elements and writes them on {@code flush}: at-least-once needs the
 * runtime to flush the writer at every checkpoint, before the barrier passes (Flink calls {@code
 * SinkWriter.flush(false)} in {@code prepareSnapshotPreBarrier}). Weir's {@code SinkTo} operator
 * flushes the writer in the synchronous part of every snapshot.
 */
@Timeout(60)
@TestMatrix(skip = MatrixCell.ROCKSDB_INCREMENTAL)
class BufferingSinkHarnessTest {

  static final List<String> WRITTEN = new ArrayList<>();

  /** Writes in batches of three, and whatever is left on flush. */
  static final class BatchingSink implements Sink<String> {
    private static final long serialVersionUID = 1L;

    @Override
    public SinkWriter<String> createWriter(WriterInitContext context) {
      return new SinkWriter<>() {
        private final List<String> batch = new ArrayList<>();

        @Override
        public void write(String element, Context ctx) {
          batch.add(element);
          if (batch.size() == 3) {
            flush(false);
          }
        }

        @Override
        public void flush(boolean endOfInput) {
          WRITTEN.addAll(batch);
          batch.clear();
        }
      };
    }
  }

  static final ExternalOutput<String> WRITTEN_OUTPUT =
      new ExternalOutput<>() {
        @Override
        public void reset() {
          WRITTEN.clear();
        }

        @Override
        public List<String> read() {
          return WRITTEN;
        }
      };

  @Test
  void elementsBufferedAtACheckpointAreFlushedIntoIt() {
    var harness =
        OperatorHarness.forSink(new BatchingSink())
            .input("a", "b", "c", "d", "e")
            .withoutFailover() // replays would duplicate: at-least-once at best
            .expectExternalOutput(WRITTEN_OUTPUT, List.of("a", "b", "c", "d", "e"));
    assertThat(harness.runUninterrupted()).isEmpty(); // a sink emits nothing downstream
    assertThat(WRITTEN).containsExactly("a", "b", "c", "d", "e");
    harness.verify();
  }
}
