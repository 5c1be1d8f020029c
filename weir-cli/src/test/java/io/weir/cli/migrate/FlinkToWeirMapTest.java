package io.weir.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The map weir migrate applies stays true to Weir: every Weir class it names exists (weir-api, the
 * file and Kafka connectors and RocksDB are on the test class path), every renamed static call
 * exists, and no call it lists as missing has been added since.
 */
class FlinkToWeirMapTest {

  private final FlinkToWeirMap map = FlinkToWeirMap.load();

  @Test
  void everyWeirClassOfTheMapExists() {
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, String> entry : map.classes().entrySet()) {
      try {
        Class.forName(entry.getValue(), false, getClass().getClassLoader());
      } catch (ClassNotFoundException e) {
        missing.add(entry.getKey() + " = " + entry.getValue());
      }
    }
    assertThat(missing)
        .as("Weir classes in " + FlinkToWeirMap.RESOURCE + " that do not exist")
        .isEmpty();
    assertThat(map.classes()).hasSizeGreaterThan(150);
  }

  @Test
  void everyRenamedStaticCallExistsInWeir() throws Exception {
    for (Map.Entry<String, String> entry : map.staticCalls().entrySet()) {
      if (entry.getValue().startsWith("!")) {
        continue;
      }
      String flinkSimpleName = entry.getKey().substring(0, entry.getKey().indexOf('.'));
      String weirClass =
          map.classes().entrySet().stream()
              .filter(e -> e.getKey().endsWith("." + flinkSimpleName))
              .map(Map.Entry::getValue)
              .findFirst()
              .orElseThrow(() -> new AssertionError("no Flink class " + flinkSimpleName));
      boolean exists = false;
      for (Method method : Class.forName(weirClass).getMethods()) {
        exists |=
            method.getName().equals(entry.getValue()) && Modifier.isStatic(method.getModifiers());
      }
      assertThat(exists)
          .as(entry + ": " + weirClass + " has no static " + entry.getValue())
          .isTrue();
    }
  }

  @Test
  void noCallListedAsMissingOrDroppedHasBeenAddedToWeir() throws Exception {
    Set<String> weirMethods = new HashSet<>();
    for (String weirClass : new HashSet<>(map.classes().values())) {
      for (Method method : Class.forName(weirClass).getMethods()) {
        if (method.getDeclaringClass() != Object.class) {
          weirMethods.add(method.getName());
        }
      }
    }
    Set<String> listed = new HashSet<>(map.missingCalls().keySet());
    listed.addAll(map.droppedCalls().keySet());
    listed.retainAll(weirMethods);
    assertThat(listed)
        .as(
            "calls listed as missing in "
                + FlinkToWeirMap.RESOURCE
                + " that Weir has now: remove"
                + " them from the map and from docs/migrating-from-flink.md")
        .isEmpty();
  }

  @Test
  void aNestedClassFollowsItsOuterClassAndTheLongestKeyWins() {
    assertThat(map.lookup("org.apache.flink.connector.kafka.source.KafkaSource.Inner"))
        .contains(new FlinkToWeirMap.Target.Mapped("io.weir.connector.kafka.KafkaSource.Inner"));
    assertThat(map.lookup("org.apache.flink.api.java.tuple.Tuple2"))
        .contains(new FlinkToWeirMap.Target.Mapped("io.weir.api.tuple.Tuple2"));
    assertThat(map.lookup("org.apache.flink.api.java.tuple.Tuple9").orElseThrow())
        .isInstanceOf(FlinkToWeirMap.Target.Untranslatable.class)
        .hasToString(
            "Untranslatable[advice=Weir has tuples of 2 to 5 fields (io.weir.api.tuple): use a"
                + " record for more]");
    assertThat(map.lookup("org.apache.flink.table.api.TableEnvironment").orElseThrow().toString())
        .contains("the Table API and SQL are not in Weir");
    assertThat(map.lookup("org.apache.flink.unknown.Thing").orElseThrow().toString())
        .contains("no Weir counterpart is known");
    assertThat(map.lookup("com.example.Mine")).isEmpty();
  }
}
