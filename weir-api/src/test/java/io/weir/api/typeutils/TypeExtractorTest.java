package io.weir.api.typeutils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.tuple.Tuple2;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TypeExtractorTest {

  // Tiny stand-ins for Weir's function interfaces.

  interface MapFn<I, O> extends Serializable {
    O map(I in) throws Exception;
  }

  interface Collector<T> {
    void collect(T record);
  }

  interface FlatMapFn<I, O> extends Serializable {
    void flatMap(I in, Collector<O> out) throws Exception;
  }

  interface KeyFn<I, K> extends Serializable {
    K getKey(I in) throws Exception;
  }

  /** Fixes the types, so even a lambda of it has them. */
  interface Tokenizer extends FlatMapFn<String, String> {}

  /** Reverses the type parameters of the interface it extends. */
  interface Backwards<O, I> extends MapFn<I, O> {}

  interface NotSerializableMapFn<I, O> {
    O map(I in);
  }

  record Point(int x, long y) {}

  record Name(String value) {}

  abstract static class ListMaker<T> implements MapFn<String, List<T>> {}

  static final class LongListMaker extends ListMaker<Long> {
    @Override
    public List<Long> map(String in) {
      return List.of((long) in.length());
    }
  }

  static final class Identity<T> implements MapFn<T, T> {
    @Override
    public T map(T in) {
      return in;
    }
  }

  private final String suffix = "!";

  private static <O> TypeInformation<O> out(Object function) {
    return TypeExtractor.getOutputType(function, MapFn.class, 1, "Map");
  }

  private static <I> TypeInformation<I> in(Object function) {
    return TypeExtractor.getOutputType(function, MapFn.class, 0, "Map");
  }

  static long length(String s) {
    return s.length();
  }

  static List<String> split(String s) {
    return List.of(s, s);
  }

  static int count(List<String> strings) {
    return strings.size();
  }

  static <T> MapFn<T, T> identityLambda() {
    return x -> x;
  }

  // ---- lambdas

  @Test
  void lambdaReturningString() {
    MapFn<Integer, String> f = i -> "#" + i;
    assertThat(out(f)).isEqualTo(Types.STRING);
    assertThat(in(f)).isEqualTo(Types.INT);
  }

  @Test
  void lambdaReturningLong() {
    MapFn<String, Long> f = s -> (long) s.length();
    assertThat(out(f)).isEqualTo(Types.LONG);
  }

  @Test
  void methodReturningPrimitiveLongIsBoxed() {
    MapFn<String, Long> f = TypeExtractorTest::length;
    assertThat(out(f)).isEqualTo(Types.LONG);
    assertThat(in(f)).isEqualTo(Types.STRING);
  }

  @Test
  void lambdaReturningRecord() {
    MapFn<String, Point> f = s -> new Point(s.length(), 1L);
    assertThat(out(f)).isEqualTo(Types.RECORD(Point.class));
  }

  @Test
  void capturingLambdas() {
    String prefix = "> ";
    MapFn<String, String> capturesLocal = s -> prefix + s;
    MapFn<String, String> capturesThis = s -> s + suffix;
    assertThat(out(capturesLocal)).isEqualTo(Types.STRING);
    assertThat(in(capturesLocal)).isEqualTo(Types.STRING);
    assertThat(out(capturesThis)).isEqualTo(Types.STRING);
    assertThat(in(capturesThis)).isEqualTo(Types.STRING);
  }

  // ---- method references

  @Test
  void unboundInstanceMethodReference() {
    MapFn<String, Integer> f = String::length;
    assertThat(out(f)).isEqualTo(Types.INT);
    assertThat(in(f)).isEqualTo(Types.STRING);
  }

  @Test
  void boundInstanceMethodReference() {
    String text = "hello world";
    MapFn<String, Integer> f = text::indexOf;
    assertThat(out(f)).isEqualTo(Types.INT);
    assertThat(in(f)).isEqualTo(Types.STRING);
  }

  @Test
  void staticMethodReference() {
    MapFn<String, Integer> f = Integer::valueOf;
    assertThat(out(f)).isEqualTo(Types.INT);
    assertThat(in(f)).isEqualTo(Types.STRING);
  }

  @Test
  void constructorReferences() {
    MapFn<String, Name> f = Name::new;
    assertThat(out(f)).isEqualTo(Types.RECORD(Name.class));
    MapFn<String, StringBuilder> g = StringBuilder::new;
    assertThat(out(g).getTypeClass()).isEqualTo(StringBuilder.class);
    assertThat(in(g)).isEqualTo(Types.STRING);
  }

  @Test
  void methodReferencesKeepTheGenericSignatureOfTheirMethod() {
    MapFn<String, List<String>> f = TypeExtractorTest::split;
    assertThat(out(f)).isEqualTo(Types.LIST(Types.STRING));
    MapFn<List<String>, Integer> g = TypeExtractorTest::count;
    assertThat(in(g)).isEqualTo(Types.LIST(Types.STRING));
  }

  @Test
  void keySelectorLikeLambda() {
    KeyFn<Point, Long> key = Point::y;
    assertThat(TypeExtractor.<Long>getOutputType(key, KeyFn.class, 1, "Key By"))
        .isEqualTo(Types.LONG);
  }

  // ---- classes

  @Test
  void anonymousClassWithGenericTupleOutput() {
    MapFn<String, Tuple2<String, Long>> f =
        new MapFn<>() {
          @Override
          public Tuple2<String, Long> map(String in) {
            return Tuple2.of(in, 1L);
          }
        };
    TypeInformation<Tuple2<String, Long>> type = out(f);
    assertThat(type).isEqualTo(Types.TUPLE(Types.STRING, Types.LONG));
    assertThat(type).isEqualTo(new TypeHint<Tuple2<String, Long>>() {}.getTypeInfo());
    assertThat(in(f)).isEqualTo(Types.STRING);
  }

  @Test
  void typeVariablesAreResolvedThroughTheClassHierarchy() {
    assertThat(out(new LongListMaker())).isEqualTo(Types.LIST(Types.LONG));
  }

  @Test
  void unboundClassTypeVariableIsMissing() {
    TypeInformation<String> type = out(new Identity<String>());
    assertThat(type.isMissing()).isTrue();
    assertThatThrownBy(type::createSerializer)
        .isInstanceOf(InvalidTypesException.class)
        .hasMessageContaining("'Map'")
        .hasMessageContaining(Identity.class.getName())
        .hasMessageContaining("type variable T")
        .hasMessageContaining(".returns(");
  }

  @Test
  void subInterfacesThatFixTheTypesWorkEvenForLambdas() {
    Tokenizer tokenizer =
        (line, out) -> {
          out.collect(line.toLowerCase(java.util.Locale.ROOT));
        };
    assertThat(TypeExtractor.<String>getOutputType(tokenizer, FlatMapFn.class, 1, "Tokenize"))
        .isEqualTo(Types.STRING);
  }

  @Test
  void subInterfacesThatReorderTypeParameters() {
    Backwards<Long, String> f = s -> (long) s.length();
    assertThat(out(f)).isEqualTo(Types.LONG);
    assertThat(TypeExtractor.<Long>getOutputType(f, Backwards.class, 0, "Map"))
        .isEqualTo(Types.LONG);
    assertThat(TypeExtractor.<String>getOutputType(f, Backwards.class, 1, "Map"))
        .isEqualTo(Types.STRING);
  }

  // ---- what Java erases

  @Test
  void flatMapLambdaOutputIsMissingWithAnActionableMessage() {
    FlatMapFn<String, String> f = (line, out) -> out.collect(line);
    TypeInformation<String> type = TypeExtractor.getOutputType(f, FlatMapFn.class, 1, "Flat Map");
    assertThat(type.isMissing()).isTrue();
    assertThatThrownBy(type::createSerializer)
        .isInstanceOf(InvalidTypesException.class)
        .hasMessageContaining("'Flat Map'")
        .hasMessageContaining("a lambda in " + TypeExtractorTest.class.getName() + ".lambda$")
        .hasMessageContaining(
            "Java erases the generic types of lambda parameters such as Collector<O>")
        .hasMessageContaining(".returns(Types.STRING)")
        .hasMessageContaining(".returns(new TypeHint<Tuple2<String, Long>>(){})")
        .hasMessageContaining("(anonymous) class");
    assertThat(TypeExtractor.<String>getOutputType(f, FlatMapFn.class, 0, "Flat Map"))
        .isEqualTo(Types.STRING);
  }

  @Test
  void lambdaReturningGenericClassIsMissing() {
    MapFn<String, Tuple2<String, Integer>> f = s -> Tuple2.of(s, 1);
    TypeInformation<Tuple2<String, Integer>> type = out(f);
    assertThat(type.isMissing()).isTrue();
    assertThatThrownBy(type::createSerializer)
        .hasMessageContaining("Tuple2")
        .hasMessageContaining(".returns(");
    MapFn<String, List<String>> g = s -> new ArrayList<>();
    assertThat(out(g).isMissing()).isTrue();
  }

  @Test
  void lambdaParameterOfGenericTypeIsMissing() {
    MapFn<List<String>, Integer> f = list -> list.size();
    assertThat(in(f).isMissing()).isTrue();
    assertThat(out(f)).isEqualTo(Types.INT);
  }

  @Test
  void lambdaOfGenericMethodSaysOnlyObjectAndIsMissing() {
    TypeInformation<String> type = out(TypeExtractorTest.<String>identityLambda());
    assertThat(type.isMissing()).isTrue();
    assertThatThrownBy(type::createSerializer).hasMessageContaining("Object");
  }

  @Test
  void lambdaOfNonSerializableInterfaceIsMissing() {
    NotSerializableMapFn<String, String> f = s -> s;
    TypeInformation<String> type =
        TypeExtractor.getOutputType(f, NotSerializableMapFn.class, 1, "Map");
    assertThat(type.isMissing()).isTrue();
    assertThatThrownBy(type::createSerializer).hasMessageContaining("Serializable");
  }

  @Test
  void misuseIsReportedAsMissingNotThrown() {
    assertThat(out(null).isMissing()).isTrue();
    assertThat(TypeExtractor.getOutputType("not a function", MapFn.class, 1, "Map").isMissing())
        .isTrue();
    MapFn<String, String> f = s -> s;
    TypeInformation<Object> badIndex = TypeExtractor.getOutputType(f, MapFn.class, 5, "Map");
    assertThat(badIndex.isMissing()).isTrue();
    assertThatThrownBy(badIndex::createSerializer)
        .hasMessageContaining("no type parameter number 5");
  }
}
