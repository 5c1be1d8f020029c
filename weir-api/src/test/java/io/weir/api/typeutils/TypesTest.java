package io.weir.api.typeutils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.tuple.Tuple2;
import io.weir.api.tuple.Tuple3;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class TypesTest {

  record Point(int x, long y) {}

  record Node(String name, List<Node> children) {}

  @Test
  void constantsEqualTheInformationOfTheirClassAndOfPrimitives() {
    assertThat(TypeInformation.of(String.class)).isEqualTo(Types.STRING);
    assertThat(TypeInformation.of(long.class)).isEqualTo(Types.LONG);
    assertThat(TypeInformation.of(int.class).getTypeClass()).isEqualTo(Integer.class);
    assertThat(Types.LONG.hashCode()).isEqualTo(TypeInformation.of(Long.class).hashCode());
    assertThat(Types.LONG).isNotEqualTo(Types.INT);
    assertThat(Types.STRING.isMissing()).isFalse();
  }

  @Test
  void factoriesEqualTypeHintsAndReflectiveTypes() {
    TypeInformation<Tuple2<String, Long>> tuple = Types.TUPLE(Types.STRING, Types.LONG);
    TypeInformation<Tuple2<String, Long>> hinted =
        new TypeHint<Tuple2<String, Long>>() {}.getTypeInfo();
    assertThat(tuple).isEqualTo(hinted);
    assertThat(hinted).isEqualTo(tuple);
    assertThat(tuple.hashCode()).isEqualTo(hinted.hashCode());
    assertThat(tuple.getTypeClass()).isEqualTo(Tuple2.class);
    assertThat(tuple.toString()).isEqualTo("Tuple2<String, Long>");

    assertThat(Types.LIST(Types.TUPLE(Types.STRING, Types.INT)))
        .isEqualTo(new TypeHint<List<Tuple2<String, Integer>>>() {}.getTypeInfo());
    assertThat(Types.MAP(Types.STRING, Types.LIST(Types.LONG)))
        .isEqualTo(new TypeHint<Map<String, List<Long>>>() {}.getTypeInfo());
    assertThat(Types.OBJECT_ARRAY(Types.LIST(Types.LONG)))
        .isEqualTo(new TypeHint<List<Long>[]>() {}.getTypeInfo());
    assertThat(Types.PRIMITIVE_ARRAY(Types.BYTE)).isEqualTo(TypeInformation.of(byte[].class));
    assertThat(Types.RECORD(Point.class)).isEqualTo(TypeInformation.of(Point.class));
    assertThat(new TypeHint<Tuple2<String, Long>>() {})
        .isEqualTo(new TypeHint<Tuple2<String, Long>>() {});
  }

  @Test
  void genericDiffersFromTheBuiltInForTheSameType() {
    assertThat(Types.GENERIC(Point.class)).isNotEqualTo(Types.RECORD(Point.class));
    assertThat(Types.GENERIC(Point.class).toString()).isEqualTo("GenericType<Point>");
    assertThat(Types.LIST(Types.GENERIC(Point.class)).createSerializer())
        .isNotEqualTo(Types.LIST(Types.RECORD(Point.class)).createSerializer());
  }

  @Test
  void serializersOfEqualConfigurationAreEqual() {
    assertThat(Types.TUPLE(Types.STRING, Types.LONG).createSerializer())
        .isEqualTo(new TypeHint<Tuple2<String, Long>>() {}.getTypeInfo().createSerializer())
        .isNotEqualTo(Types.TUPLE(Types.STRING, Types.INT).createSerializer());
    assertThat(Types.RECORD(Point.class).createSerializer())
        .isEqualTo(Types.RECORD(Point.class).createSerializer());
  }

  @Test
  void statelessSerializersAreSingletonsAndImmutableTypesAreNotCopied() {
    TypeSerializer<Long> longs = Types.LONG.createSerializer();
    assertThat(longs.duplicate()).isSameAs(longs);
    assertThat(Types.LONG.createSerializer()).isSameAs(longs);
    Long value = 123_456_789L;
    assertThat(longs.copy(value)).isSameAs(value);
    TypeSerializer<String> strings = Types.STRING.createSerializer();
    assertThat(strings.isImmutableType()).isTrue();
    assertThat(strings.duplicate()).isSameAs(strings);
    TypeSerializer<List<String>> lists = Types.LIST(Types.STRING).createSerializer();
    assertThat(lists.duplicate()).as("a list of stateless elements keeps no state").isSameAs(lists);
  }

  @Test
  void rawTuplesAreRejectedWithAHint() {
    assertThatThrownBy(() -> TypeInformation.of(Tuple2.class))
        .isInstanceOf(InvalidTypesException.class)
        .hasMessageContaining("Tuple2")
        .hasMessageContaining("TypeHint");
    assertThatThrownBy(() -> Types.TUPLE(Types.INT))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("record");
  }

  @Test
  void typeVariablesAreRejected() {
    class Holder<T> {
      @SuppressWarnings("unused")
      List<T> field;
    }
    java.lang.reflect.Type listOfT = Holder.class.getDeclaredFields()[0].getGenericType();
    assertThatThrownBy(() -> TypeInformation.of(listOfT))
        .isInstanceOf(InvalidTypesException.class)
        .hasMessageContaining("type variable T");
  }

  @Test
  void missingTypesThrowTheirReasonWhenUsed() {
    InvalidTypesException reason = new InvalidTypesException("no idea; add .returns(...)");
    TypeInformation<String> missing = TypeInformation.missing(reason);
    assertThat(missing.isMissing()).isTrue();
    assertThatThrownBy(missing::createSerializer).isSameAs(reason);
    assertThatThrownBy(missing::getTypeClass).isSameAs(reason);
    assertThat(missing.toString()).contains("no idea");
    assertThat(missing).isNotEqualTo(Types.STRING);
    assertThat(Types.STRING).isNotEqualTo(missing);
  }

  @Test
  void primitiveArrayRequiresAPrimitiveElementType() {
    assertThatThrownBy(() -> Types.PRIMITIVE_ARRAY(Types.STRING))
        .hasMessageContaining("OBJECT_ARRAY");
  }

  @Test
  void typeHintsRejectTypeVariables() {
    assertThatThrownBy(TypesTest::hintFor).hasMessageContaining("concrete");
  }

  private static <T> TypeHint<List<T>> hintFor() {
    return new TypeHint<List<T>>() {};
  }

  @Test
  void recordsThatContainThemselvesUseKryoForTheCycle() {
    TypeSerializer<Node> serializer = Types.RECORD(Node.class).createSerializer();
    Node tree =
        new Node("root", List.of(new Node("a", List.of()), new Node("b", new ArrayList<>())));
    assertThat(
            SerializerChecks.deserialize(serializer, SerializerChecks.serialize(serializer, tree)))
        .isEqualTo(tree);
  }

  @Test
  void abstractDeclaredTypesKeepTheValuesClassThroughKryo() {
    TypeSerializer<Number> numbers = TypeInformation.of(Number.class).createSerializer();
    SerializerChecks.checkValue(numbers, 42);
    SerializerChecks.checkValue(numbers, 42L);
    SerializerChecks.checkValue(numbers, 4.2);
    TypeSerializer<Tuple2<String, Object>> tuple =
        new TypeHint<Tuple2<String, Object>>() {}.getTypeInfo().createSerializer();
    SerializerChecks.checkValue(tuple, Tuple2.of("a", (Object) Tuple3.of(1, "b", 2.0)));
  }

  @Test
  void kryoDuplicatesAreIndependent() throws Exception {
    TypeSerializer<Point> original = Types.GENERIC(Point.class).createSerializer();
    TypeSerializer<Point> duplicate = original.duplicate();
    assertThat(duplicate).isNotSameAs(original).isEqualTo(original);

    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (TypeSerializer<Point> serializer : List.of(original, duplicate)) {
        runs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20_000; i++) {
                    Point p = new Point(i, -i);
                    byte[] bytes = SerializerChecks.serialize(serializer, p);
                    assertThat(SerializerChecks.deserialize(serializer, bytes)).isEqualTo(p);
                  }
                  return null;
                }));
      }
      for (Future<?> run : runs) {
        run.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Flink's {@code TypeExtractor.createTypeInfo(Class)}, which Flink's examples call. */
  @Test
  void createTypeInfoIsTypeInformationOf() {
    assertThat(TypeExtractor.createTypeInfo(String.class)).isEqualTo(Types.STRING);
    assertThat(TypeExtractor.createTypeInfo(Long.class)).isEqualTo(Types.LONG);
  }
}
