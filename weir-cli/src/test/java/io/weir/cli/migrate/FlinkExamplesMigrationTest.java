package io.weir.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weir migrate} on the sources of Flink's own streaming examples
 * (src/test/resources/flink-examples, see its README for their origin): the output parses, every
 * Flink import left is listed as a thing to do, and the output compiles against Weir but for
 * exactly the gaps listed here. A gap list that no longer matches fails the test: when Weir gains a
 * call (or the tool a rewrite), shorten the list.
 */
class FlinkExamplesMigrationTest {

  static final Path EXAMPLES =
      Path.of("src/test/resources/flink-examples/org/apache/flink/streaming/examples")
          .toAbsolutePath();

  static final String OWN_PACKAGE = "org.apache.flink.streaming.examples";

  @TempDir Path tmp;

  /** Migrates one example's directory into tmp/out and checks what every migration must hold. */
  private MigratedSources.Run migrate(String example) throws Exception {
    Path source = EXAMPLES.resolve(example);
    assertThat(source)
        .as("unpacked by the build from flink-examples-streaming's sources")
        .isDirectory();
    Path out = tmp.resolve("out");
    MigratedSources.Run run =
        MigratedSources.weir("migrate", source.toString(), "--output", out.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    MigratedSources.assertParses(out);
    MigratedSources.assertLeftImportsAreListed(out, OWN_PACKAGE, run.out());
    return run;
  }

  private Set<String> compileErrors() throws Exception {
    return MigratedSources.compile(tmp.resolve("out"), tmp.resolve("classes"));
  }

  @Test
  void wordCount() throws Exception {
    migrate("wordcount");

    // CLI.java reads the options with Flink's MultipleParameterTool (its GlobalJobParameters
    // carry over: ExecutionConfig.GlobalJobParameters); WordCount's file source is continuous
    // (Weir's FileSource has no
    // monitorContinuously), its sink takes Flink's encoder and rolling policies, and its
    // async-state option configures ForSt. None has a Weir counterpart
    // (MigratedWordCountRunTest runs the job once these are edited out).
    assertThat(compileErrors())
        .containsExactlyInAnyOrderElementsOf(
            Set.of(
                "CLI.java: cannot find symbol: class MultipleParameterTool",
                "CLI.java: cannot find symbol: class Path",
                "CLI.java: cannot find symbol: variable MultipleParameterTool",
                "CLI.java: package ExecutionOptions does not exist",
                "CLI.java: package org.apache.flink.configuration does not exist",
                "CLI.java: package org.apache.flink.core.fs does not exist",
                "CLI.java: package org.apache.flink.util does not exist",
                "WordCount.java: cannot find symbol: class SimpleStringEncoder",
                "WordCount.java: cannot find symbol: method configure(io.weir.api.config.Configuration)",
                "WordCount.java: cannot find symbol: method containsKey(java.lang.String)",
                "WordCount.java: cannot find symbol: method fromMap(java.util.Map<java.lang.String,java.lang.String>)",
                "WordCount.java: cannot find symbol: variable DefaultRollingPolicy",
                "WordCount.java: cannot find symbol: variable FORST_STATE_BACKEND_NAME",
                "WordCount.java: invalid method reference: method monitorContinuously(T)",
                "WordCount.java: package org.apache.flink.api.common.serialization does not exist",
                "WordCount.java: package org.apache.flink.runtime.state does not exist",
                "WordCount.java: package org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies does not exist",
                "WordCount.java: static import only from classes and interfaces"));
  }

  @Test
  void socketWindowWordCount() throws Exception {
    migrate("socket");

    // ParameterTool and flatMap(function, type) have Weir counterparts: nothing is left to do.
    assertThat(compileErrors()).isEmpty();
  }

  @Test
  void windowJoin() throws Exception {
    MigratedSources.Run run = migrate("join");

    // TimestampAssignerSupplier.Context, which the tool lists: Weir's createTimestampAssigner()
    // takes no context.
    assertThat(run.out())
        .contains(
            "WindowJoin.java:168: org.apache.flink.api.common.eventtime.TimestampAssignerSupplier"
                + ".Context: Weir's createTimestampAssigner() takes no context");
    assertThat(compileErrors())
        .containsExactlyInAnyOrderElementsOf(
            Set.of(
                "WindowJoin.java: cannot find symbol: class Context",
                "WindowJoin.java: cannot find symbol: class Path",
                "WindowJoin.java: cannot find symbol: class SimpleStringEncoder",
                "WindowJoin.java: cannot find symbol: variable DefaultRollingPolicy",
                "WindowJoin.java: method does not override or implement a method from a supertype",
                "WindowJoin.java: package org.apache.flink.api.common.serialization does not exist",
                "WindowJoin.java: package org.apache.flink.core.fs does not exist",
                "WindowJoin.java: package org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies does not exist"));
  }

  @Test
  void stateMachine() throws Exception {
    migrate("statemachine");

    // Serialization/DeserializationSchema (Weir's Kafka connector has its own
    // KafkaRecordDeserializer), state V2's async calls, the file sink's encoder and policy.
    assertThat(compileErrors())
        .containsExactlyInAnyOrderElementsOf(
            Set.of(
                "EventDeSerializationSchema.java: cannot find symbol: class DeserializationSchema",
                "EventDeSerializationSchema.java: cannot find symbol: class SerializationSchema",
                "EventDeSerializationSchema.java: method does not override or implement a method from a supertype",
                "EventDeSerializationSchema.java: package org.apache.flink.api.common.serialization does not exist",
                "StateMachineExample.java: cannot find symbol: class Path",
                "StateMachineExample.java: cannot find symbol: class SimpleStringEncoder",
                "StateMachineExample.java: cannot find symbol: method asyncClear()",
                "StateMachineExample.java: cannot find symbol: method asyncUpdate(org.apache.flink.streaming.examples.statemachine.dfa.State)",
                "StateMachineExample.java: cannot find symbol: method asyncValue()",
                "StateMachineExample.java: cannot find symbol: variable DefaultRollingPolicy",
                "StateMachineExample.java: cannot find symbol: variable KafkaRecordDeserializationSchema",
                "StateMachineExample.java: package org.apache.flink.api.common.serialization does not exist",
                "StateMachineExample.java: package org.apache.flink.connector.kafka.source.reader.deserializer does not exist",
                "StateMachineExample.java: package org.apache.flink.core.fs does not exist",
                "StateMachineExample.java: package org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies does not exist"));
  }
}
