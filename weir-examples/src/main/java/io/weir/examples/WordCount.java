package io.weir.examples;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.Types;
import java.util.List;

/** The classic: split lines into words, count each word with a keyed running sum. */
public final class WordCount {

  private WordCount() {}

  /** The pipeline: lines in, (word, running count) out. */
  public static DataStream<Tuple2<String, Long>> counts(DataStream<String> lines) {
    return lines
        .flatMap(
            (String line, io.weir.api.functions.Collector<Tuple2<String, Long>> out) -> {
              for (String word : line.toLowerCase(java.util.Locale.ROOT).split("\\W+")) {
                if (!word.isEmpty()) {
                  out.collect(Tuple2.of(word, 1L));
                }
              }
            })
        .returns(Types.TUPLE(Types.STRING, Types.LONG))
        .name("Tokenizer")
        .keyBy(t -> t.f0, Types.STRING)
        .sum(1)
        .name("Count");
  }

  public static void main(String[] args) throws Exception {
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(2);
    List<String> text =
        List.of(
            "To be, or not to be, that is the question:",
            "Whether 'tis nobler in the mind to suffer",
            "The slings and arrows of outrageous fortune,",
            "Or to take arms against a sea of troubles");
    counts(env.fromCollection(text)).print();
    env.execute("word-count");
  }
}
