package io.weir.benchmarks.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.StreamEnvironment;
import io.weir.api.functions.SinkFunction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.LongStream;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each Nexmark query on Weir and on Flink (both at parallelism 2, heap state) over a small
 * generated input, against the same query computed in plain Java over the whole input at once
 * ({@link NexmarkReference}): the rows must be the same multiset. The input is 30 000 events at 1
 * 000 events per second of event time, so 30 s of event time: several 10 s windows.
 */
@Timeout(120)
class NexmarkQueriesTest {

  private static final NexmarkGenerator GENERATOR =
      new NexmarkGenerator(new NexmarkGenerator.Config(30_000, 2, 1_000, 1_767_225_600_000L));

  private static List<Event> events;

  @BeforeAll
  static void generate() {
    events = LongStream.range(0, GENERATOR.config().events()).mapToObj(GENERATOR::event).toList();
  }

  /** Rows as strings, sorted: a multiset that prints well when it differs. */
  private static List<String> rows(Iterable<?> results) {
    List<String> rows = new ArrayList<>();
    results.forEach(r -> rows.add(r.toString()));
    rows.sort(null);
    return rows;
  }

  @ParameterizedTest
  @ValueSource(strings = {"q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"})
  void weirAndFlinkGiveTheReferenceAnswer(String query) throws Exception {
    List<String> expected = rows(NexmarkReference.query(query, events));
    assertThat(expected).as("the reference answer of %s", query).isNotEmpty();

    assertThat(rows(onWeir(query))).as("Weir's %s", query).isEqualTo(expected);
    assertThat(rows(onFlink(query))).as("Flink's %s", query).isEqualTo(expected);
  }

  private static List<Object> onWeir(String query) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    Collect sink = new Collect();
    collect(WeirQueries.query(query, WeirQueries.events(env, GENERATOR)), sink);
    env.execute("nexmark-test-" + query);
    return sink.results();
  }

  @SuppressWarnings("unchecked")
  private static <T> void collect(io.weir.api.DataStream<T> stream, Collect sink) {
    stream.addSink((SinkFunction<T>) (SinkFunction<?>) sink);
  }

  private static List<Object> onFlink(String query) throws Exception {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    env.setParallelism(2);
    FlinkCollect sink = new FlinkCollect();
    collect(FlinkQueries.query(query, FlinkQueries.events(env, GENERATOR)), sink);
    env.execute("nexmark-test-" + query);
    return sink.results();
  }

  @SuppressWarnings("unchecked")
  private static <T> void collect(DataStream<T> stream, FlinkCollect sink) {
    stream.sinkTo((Sink<T>) (Sink<?>) sink);
  }

  /**
   * {@link Collect} on Flink: what its writers receive, in a queue the test reads after the job.
   */
  static final class FlinkCollect implements Sink<Object> {
    private static final long serialVersionUID = 1L;
    private final String id = UUID.randomUUID().toString();

    FlinkCollect() {
      Collect.RESULTS.put(id, new ConcurrentLinkedQueue<>());
    }

    @Override
    public SinkWriter<Object> createWriter(WriterInitContext context) {
      Queue<Object> queue = Collect.RESULTS.get(id);
      return new SinkWriter<>() {
        @Override
        public void write(Object element, Context context) {
          queue.add(element);
        }

        @Override
        public void flush(boolean endOfInput) {}

        @Override
        public void close() {}
      };
    }

    List<Object> results() {
      return new ArrayList<>(Collect.RESULTS.remove(id));
    }
  }

  /** Gathers what its subtasks receive, in a queue the test reads after the job. */
  static final class Collect implements SinkFunction<Object> {
    private static final long serialVersionUID = 1L;
    static final Map<String, Queue<Object>> RESULTS = new ConcurrentHashMap<>();
    private final String id = UUID.randomUUID().toString();

    Collect() {
      RESULTS.put(id, new ConcurrentLinkedQueue<>());
    }

    @Override
    public void invoke(Object value, Context context) {
      RESULTS.get(id).add(value);
    }

    List<Object> results() {
      return new ArrayList<>(RESULTS.remove(id));
    }
  }
}
