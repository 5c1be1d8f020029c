package io.weir.runtime.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.CheckpointConfig;
import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.config.CoreOptions;
import io.weir.api.functions.Collector;
import io.weir.api.functions.FlatMapFunction;
import io.weir.api.functions.windowing.WindowFunction;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import io.weir.api.util.CloseableIterator;
import io.weir.api.windowing.windows.GlobalWindow;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls a Flink user writes from habit: fromData, execute() without a name, millisecond setters; a
 * word count as Flink's examples write it, with rolling and window aggregations, partitioning and
 * chaining calls, read back with executeAndCollect; a socket text stream.
 */
@Timeout(60)
class FlinkHabitsTest {

  static final List<String> LINES =
      List.of(
          "to be or not to be",
          "that is the question",
          "whether tis nobler in the mind to suffer",
          "the slings and arrows of outrageous fortune",
          "or to take arms against a sea of troubles");

  /** Flink's word count tokenizer. */
  public static final class Tokenizer implements FlatMapFunction<String, Tuple2<String, Integer>> {
    private static final long serialVersionUID = 1L;

    @Override
    public void flatMap(String value, Collector<Tuple2<String, Integer>> out) {
      for (String token : value.toLowerCase(Locale.ROOT).split("\\W+", -1)) {
        if (!token.isEmpty()) {
          out.collect(new Tuple2<>(token, 1));
        }
      }
    }
  }

  /** "word=count" of each window, from Flink's WindowFunction. */
  public static final class Describe
      implements WindowFunction<Tuple2<String, Integer>, String, String, GlobalWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void apply(
        String key,
        GlobalWindow window,
        Iterable<Tuple2<String, Integer>> input,
        Collector<String> out) {
      int n = 0;
      for (Tuple2<String, Integer> t : input) {
        n += t.f1;
      }
      out.collect(key + "=" + n);
    }
  }

  private static List<String> words() {
    List<String> words = new ArrayList<>();
    for (String line : LINES) {
      for (String token : line.toLowerCase(Locale.ROOT).split("\\W+", -1)) {
        if (!token.isEmpty()) {
          words.add(token);
        }
      }
    }
    return words;
  }

  @Test
  void aWordCountWrittenAsInFlinkGivesThePlainJavaCounts() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);

    DataStream<Tuple2<String, Integer>> tokens =
        env.fromData(LINES)
            .rebalance()
            .flatMap(new Tokenizer())
            .name("tokenizer")
            .startNewChain()
            .shuffle()
            .map(t -> t)
            .returns(Types.TUPLE(Types.STRING, Types.INT))
            .disableChaining()
            .rescale()
            .filter(t -> !t.f0.isEmpty())
            .slotSharingGroup("counting");
    List<Tuple2<String, Integer>> running = new ArrayList<>();
    try (CloseableIterator<Tuple2<String, Integer>> it =
        tokens
            .keyBy(t -> t.f0, Types.STRING)
            .sum(1)
            .setMaxParallelism(64)
            .executeAndCollect("word count")) {
      it.forEachRemaining(running::add);
    }

    // Plain Java: each word's running counts 1..n, in any order across words.
    Map<String, Integer> totals = new TreeMap<>();
    List<Tuple2<String, Integer>> expected = new ArrayList<>();
    for (String word : words()) {
      expected.add(Tuple2.of(word, totals.merge(word, 1, Integer::sum)));
    }
    assertThat(running).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void countWindowsAndApplyGiveThePlainJavaResults() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    var keyed = env.fromData(LINES).flatMap(new Tokenizer()).keyBy(t -> t.f0, Types.STRING);
    List<String> windows;
    try (CloseableIterator<String> it =
        keyed.countWindow(2).apply(new Describe()).executeAndCollect()) {
      windows = new ArrayList<>();
      it.forEachRemaining(windows::add);
    }

    Map<String, Integer> seen = new TreeMap<>();
    List<String> expected = new ArrayList<>();
    for (String word : words()) {
      if (seen.merge(word, 1, Integer::sum) % 2 == 0) {
        expected.add(word + "=2");
      }
    }
    // Local execution runs at the number of processors: windows of different words interleave.
    assertThat(windows).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void executeAndCollectWithALimitCancelsAnUnboundedJob() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);

    List<Long> first = env.fromSource(UnboundedSource.endless(0), "endless").executeAndCollect(5);

    assertThat(first).containsExactly(0L, 1L, 2L, 3L, 4L);
  }

  @Test
  void executeAndCollectMisuseIsRefusedSayingWhatToDo() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    assertThatThrownBy(() -> env.fromData(1, 2).executeAndCollect(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "executeAndCollect(limit): the limit must be at least 1, but was 0; use"
                + " executeAndCollect() for all elements");

    CloseableIterator<Integer> it = StreamEnvironment.create().fromData(1, 2).executeAndCollect();
    assertThat(it).toIterable().containsExactly(1, 2);
    assertThatThrownBy(it::next)
        .isInstanceOf(java.util.NoSuchElementException.class)
        .hasMessageContaining("every result was read");
    it.close();

    StreamEnvironment failing = StreamEnvironment.create();
    CloseableIterator<Integer> boom =
        failing
            .fromData(1, 2, 3)
            .map(
                x -> {
                  if (x == 3) {
                    throw new IllegalStateException("no threes");
                  }
                  return x;
                })
            .returns(Types.INT)
            .executeAndCollect();
    assertThatThrownBy(() -> boom.forEachRemaining(x -> {}))
        .satisfies(e -> assertThat(causes(e)).anyMatch(c -> "no threes".equals(c.getMessage())));
    boom.close();
  }

  /**
   * Flink's overloads that take the result type, for lambdas whose types erasure hides: {@code
   * flatMap(fn, type)} as in Flink's SocketWindowWordCount, {@code map(fn, type)}, {@code
   * process(fn, type)} on a stream and on a keyed stream.
   */
  @Test
  void theResultTypeMayBeGivenWithTheFunction() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    DataStream<String> words =
        env.fromData("a b", "b")
            .flatMap(
                (String line, Collector<String> out) -> {
                  for (String w : line.split(" ")) {
                    out.collect(w);
                  }
                },
                Types.STRING);
    List<String> out = new ArrayList<>();
    try (CloseableIterator<String> it =
        words
            .map(w -> Tuple2.of(w, 1), Types.TUPLE(Types.STRING, Types.INT))
            .keyBy(t -> t.f0, Types.STRING)
            .process(new KeyEqualsCount(), Types.STRING)
            .process(new Identity(), Types.STRING)
            .executeAndCollect("typed")) {
      it.forEachRemaining(out::add);
    }
    assertThat(out).containsExactly("a=1", "b=1", "b=1");
  }

  /** {@code key=count} of a keyed stream of (word, count). */
  static final class KeyEqualsCount
      extends io.weir.api.functions.KeyedProcessFunction<String, Tuple2<String, Integer>, String> {
    @Override
    public void processElement(Tuple2<String, Integer> t, Context ctx, Collector<String> o) {
      o.collect(ctx.getCurrentKey() + "=" + t.f1);
    }
  }

  /** Passes every element on. */
  static final class Identity extends io.weir.api.functions.ProcessFunction<String, String> {
    @Override
    public void processElement(String s, Context ctx, Collector<String> o) {
      o.collect(s);
    }
  }

  private static List<Throwable> causes(Throwable e) {
    List<Throwable> all = new ArrayList<>();
    for (Throwable t = e; t != null && !all.contains(t); t = t.getCause()) {
      all.add(t);
    }
    return all;
  }

  @Test
  void socketTextStreamReadsTheLinesAServerSends() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      StreamEnvironment env = StreamEnvironment.create();
      CloseableIterator<String> lines =
          env.socketTextStream("127.0.0.1", server.getLocalPort()).executeAndCollect();
      try (Socket client = server.accept();
          Writer out = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8)) {
        out.write("hello\nsocket\r\nworld");
      }
      List<String> received = new ArrayList<>();
      lines.forEachRemaining(received::add);
      lines.close();

      assertThat(received).containsExactly("hello", "socket", "world");
    }
  }

  @Test
  void socketTextStreamWithADelimiter() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      StreamEnvironment env = StreamEnvironment.create();
      CloseableIterator<String> words =
          env.socketTextStream("127.0.0.1", server.getLocalPort(), ";").executeAndCollect();
      try (Socket client = server.accept();
          Writer out = new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8)) {
        out.write("a;b;;c;");
      }
      List<String> received = new ArrayList<>();
      words.forEachRemaining(received::add);
      words.close();

      assertThat(received).containsExactly("a", "b", "", "c");
    }
  }

  @Test
  void aJobWrittenWithFlinksCallsRuns() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    CheckpointConfig checkpoints = env.getCheckpointConfig();
    checkpoints.setCheckpointInterval(50);
    checkpoints.setCheckpointTimeout(60_000);
    checkpoints.setMinPauseBetweenCheckpoints(10);
    CollectSink<Integer> doubled = new CollectSink<>();
    CollectSink<String> none = new CollectSink<>();
    env.fromData(1, 2, 3).map(x -> x * 2).sinkTo(doubled);
    env.fromData(List.<String>of(), Types.STRING).sinkTo(none);

    env.execute();

    assertThat(doubled.results()).containsExactlyInAnyOrder(2, 4, 6);
    assertThat(none.results()).isEmpty();
    assertThat(checkpoints.getCheckpointInterval()).isEqualTo(Duration.ofMillis(50));
    assertThat(checkpoints.getCheckpointTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(checkpoints.getMinPauseBetweenCheckpoints()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void aJobWithoutANameIsNamedByPipelineNameOrAsFlinkNamesIt() {
    StreamEnvironment unnamed = StreamEnvironment.create();
    StreamEnvironment named = StreamEnvironment.create();
    named.getConfiguration().set(CoreOptions.PIPELINE_NAME, "orders-enrichment");

    // A job without sinks is refused naming the job: the name execute() gave it.
    assertThatThrownBy(unnamed::execute)
        .hasMessageContaining(
            "No sinks defined in job '" + StreamEnvironment.DEFAULT_JOB_NAME + "'");
    assertThatThrownBy(named::executeAsync)
        .hasMessageContaining("No sinks defined in job 'orders-enrichment'");
    assertThatThrownBy(() -> unnamed.getCheckpointConfig().setCheckpointTimeout(0))
        .hasMessageContaining("execution.checkpointing.timeout");
  }

  @Test
  void executeAsyncWithoutANameRunsTheJobAndHandsBackItsClient() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    CollectSink<Integer> squares = new CollectSink<>();
    env.fromData(1, 2, 3).map(x -> x * x).sinkTo(squares);

    io.weir.api.JobClient client = env.executeAsync();
    io.weir.api.JobExecutionResult result =
        client.getJobExecutionResult().get(60, java.util.concurrent.TimeUnit.SECONDS);

    assertThat(result.getJobID()).isEqualTo(client.getJobID());
    assertThat(client.getJobStatus().get()).isEqualTo(io.weir.api.JobStatus.FINISHED);
    assertThat(squares.results()).containsExactlyInAnyOrder(1, 4, 9);
  }

  /** Reads a job parameter in open(), as Flink's examples do. */
  static final class Prefix extends io.weir.api.functions.RichMapFunction<String, String> {
    private String prefix;

    @Override
    public void open(io.weir.api.functions.OpenContext context) {
      prefix = getRuntimeContext().getGlobalJobParameters().getOrDefault("prefix", "?");
    }

    @Override
    public String map(String value) {
      return prefix + value;
    }
  }

  @Test
  void theJobsParametersReachEveryFunction() throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    io.weir.api.util.ParameterTool params =
        io.weir.api.util.ParameterTool.fromArgs(new String[] {"--prefix", "a:b,c "});
    env.getConfig().setGlobalJobParameters(params);
    assertThat(env.getConfig().getGlobalJobParameters().get("prefix")).isEqualTo("a:b,c ");

    List<String> out = new ArrayList<>();
    try (CloseableIterator<String> it =
        env.fromData("x", "y").map(new Prefix()).setParallelism(2).executeAndCollect()) {
      it.forEachRemaining(out::add);
    }

    assertThat(out).containsExactlyInAnyOrder("a:b,c x", "a:b,c y");
  }

  @Test
  void theJobsParametersCanBeSetAsFlinksKey() throws Exception {
    StreamEnvironment env =
        StreamEnvironment.create(
            new io.weir.api.config.Configuration()
                .setString("pipeline.global-job-parameters", "{prefix: 'p=', other: 1}"));

    List<String> out = new ArrayList<>();
    try (CloseableIterator<String> it = env.fromData("x").map(new Prefix()).executeAndCollect()) {
      it.forEachRemaining(out::add);
    }

    assertThat(out).containsExactly("p=x");
  }
}
