package io.weir.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.javaparser.StaticJavaParser;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rewrites of one file, and what it lists, on small sources. */
class SourceMigratorTest {

  private final SourceMigrator migrator =
      new SourceMigrator(FlinkToWeirMap.load(), Set.of("org.apache.flink.examples.Own"));

  private SourceMigrator.Result migrate(String source) {
    return migrator.migrate(StaticJavaParser.parse(source), source);
  }

  @Test
  void importsQualifiedNamesAndRenamedClassesAreRewrittenAndTheRestIsKeptAsItWas() {
    String source =
        """
        package com.example;

        import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
        import org.apache.flink.api.java.tuple.*;
        import static org.apache.flink.api.common.typeinfo.Types.STRING;
        import org.apache.flink.examples.Own;

        /** Kept   as   it   was. */
        class Job {
          public static void main(String[] args) throws Exception {
            final StreamExecutionEnvironment env =    StreamExecutionEnvironment.getExecutionEnvironment();
            org.apache.flink.streaming.api.datastream.DataStream<Tuple2<String, Integer>> s = null;
            var t = org.apache.flink.api.common.typeinfo.Types.INT; // a comment
            var other = org.apache.flink.streaming.api.environment.StreamExecutionEnvironment.getExecutionEnvironment();
          }
        }
        """;

    SourceMigrator.Result result = migrate(source);

    assertThat(result.text())
        .isEqualTo(
            """
            package com.example;

            import io.weir.api.StreamEnvironment;
            import io.weir.api.tuple.*;
            import static io.weir.api.typeutils.Types.STRING;
            import org.apache.flink.examples.Own;

            /** Kept   as   it   was. */
            class Job {
              public static void main(String[] args) throws Exception {
                final StreamEnvironment env =    StreamEnvironment.create();
                io.weir.api.DataStream<Tuple2<String, Integer>> s = null;
                var t = io.weir.api.typeutils.Types.INT; // a comment
                var other = io.weir.api.StreamEnvironment.create();
              }
            }
            """);
    assertThat(result.todo()).isEmpty();
  }

  @Test
  void whatHasNoWeirCounterpartIsListedAtItsLine() {
    String source =
        """
        import org.apache.flink.util.MultipleParameterTool;
        import org.apache.flink.table.api.*;

        class Job {
          void main(StreamExecutionEnvironment env, TableEnvironment tables) {
            var p = MultipleParameterTool.fromArgs(null);
          }
        }
        """;

    SourceMigrator.Result result = migrate(source);

    assertThat(result.text()).isEqualTo(source);
    assertThat(result.todo())
        .extracting(f -> f.line() + ": " + f.message())
        .containsExactly(
            "1: org.apache.flink.util.MultipleParameterTool: Weir has no MultipleParameterTool (a"
                + " key with several values): use ParameterTool (io.weir.api.util.ParameterTool),"
                + " where the last value of a key given twice counts",
            "2: org.apache.flink.table.api.*: the Table API and SQL are not in"
                + " Weir: express the query with DataStream operations");
  }

  @Test
  void aNestedClassWeirLacksIsListedWhereItIsNamedThroughItsOuterClass() {
    String source =
        """
        import org.apache.flink.api.common.eventtime.TimestampAssignerSupplier;
        import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;

        class Strategy {
          Object a(TimestampAssignerSupplier.Context context) { return null; }
          Object g(WatermarkGeneratorSupplier.Context context) { return null; }
        }
        """;

    SourceMigrator.Result result = migrate(source);

    assertThat(result.text())
        .contains("Object a(TimestampAssignerSupplier.Context context)")
        .contains("import io.weir.api.eventtime.TimestampAssignerSupplier;");
    assertThat(result.todo())
        .extracting(f -> f.line() + ": " + f.message())
        .containsExactly(
            "5: org.apache.flink.api.common.eventtime.TimestampAssignerSupplier.Context: Weir's"
                + " createTimestampAssigner() takes no context: drop the parameter");
  }

  @Test
  void aWildcardImportBecomesOneForEachWeirPackageTheFileUses() {
    String source =
        """
        import org.apache.flink.api.common.functions.*;

        class Job {
          MapFunction<String, String> f;
          InvalidTypesException e;
        }
        """;

    SourceMigrator.Result result = migrate(source);

    assertThat(result.text())
        .startsWith(
            "import io.weir.api.functions.*;\nimport io.weir.api.typeutils.*;\n\nclass Job {");
  }

  @Test
  void aCallThatMeansNothingOnWeirIsRemovedAndNoted() {
    String source =
        """
        class Job {
          void build(Object keyed) {
            if (async) {
              keyed.enableAsyncState();
            }
            keyed = keyed.enableAsyncState().flatMap(f);
          }
        }
        """;

    SourceMigrator.Result result = migrate(source);

    assertThat(result.text())
        .isEqualTo(
            """
            class Job {
              void build(Object keyed) {
                if (async) {
                }
                keyed = keyed.flatMap(f);
              }
            }
            """);
    assertThat(result.notes()).extracting(SourceMigrator.Finding::line).containsExactly(4, 6);
  }
}
