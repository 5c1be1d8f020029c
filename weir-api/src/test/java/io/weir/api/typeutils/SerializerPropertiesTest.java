package io.weir.api.typeutils;

import static io.weir.api.typeutils.SerializerChecks.checkSnapshot;
import static io.weir.api.typeutils.SerializerChecks.checkValue;
import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.tuple.Tuple2;
import io.weir.api.tuple.Tuple3;
import io.weir.api.tuple.Tuple4;
import io.weir.api.tuple.Tuple5;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/** Every built-in serializer round-trips random values, copies them, and snapshots itself. */
class SerializerPropertiesTest {

  enum Color {
    RED,
    GREEN,
    BLUE
  }

  record Point(int x, long y, double z, boolean visible) {}

  record Person(
      String name, Integer age, Point home, List<String> tags, Map<String, Long> scores) {}

  record Team(
      String name, Person lead, List<Person> members, Color color, Tuple2<String, Long> tag) {}

  record Box<T>(T value, List<T> more) {}

  /** A class with no special support: it goes to Kryo. */
  static class Plain {
    String name;
    int count;
    ArrayList<String> tags = new ArrayList<>();
    Plain next;

    @Override
    public boolean equals(Object o) {
      return o instanceof Plain that
          && Objects.equals(name, that.name)
          && count == that.count
          && tags.equals(that.tags)
          && Objects.equals(next, that.next);
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, count, tags, next);
    }

    @Override
    public String toString() {
      return "Plain(" + name + ", " + count + ", " + tags + ", " + next + ")";
    }
  }

  static final class SubPlain extends Plain {
    long extra;

    @Override
    public boolean equals(Object o) {
      return o instanceof SubPlain that && super.equals(o) && extra == that.extra;
    }

    @Override
    public int hashCode() {
      return 31 * super.hashCode() + Long.hashCode(extra);
    }
  }

  private static <T> void check(TypeInformation<T> type, T value) {
    TypeSerializer<T> serializer = type.createSerializer();
    checkValue(serializer, value);
    checkSnapshot(serializer);
  }

  // ---- primitives and their boxes

  @Property
  void longs(@ForAll long value) {
    check(Types.LONG, value);
  }

  @Property
  void ints(@ForAll int value) {
    check(Types.INT, value);
  }

  @Property
  void shorts(@ForAll short value) {
    check(Types.SHORT, value);
  }

  @Property
  void bytes(@ForAll byte value) {
    check(Types.BYTE, value);
  }

  @Property
  void booleans(@ForAll boolean value) {
    check(Types.BOOLEAN, value);
  }

  @Property
  void chars(@ForAll char value) {
    check(Types.CHAR, value);
  }

  @Property
  void doubles(@ForAll double value) {
    check(Types.DOUBLE, value);
  }

  @Property
  void floats(@ForAll float value) {
    check(Types.FLOAT, value);
  }

  @Property(tries = 200)
  void bigIntegers(@ForAll BigInteger value) {
    check(Types.BIG_INT, value);
  }

  @Property(tries = 200)
  void bigDecimals(@ForAll BigDecimal value, @ForAll int scale) {
    check(Types.BIG_DEC, new BigDecimal(value.unscaledValue(), scale));
  }

  @Property(tries = 1)
  void voids() {
    check(Types.VOID, null);
  }

  // ---- strings

  @Provide
  Arbitrary<String> strings() {
    Arbitrary<String> surrogatePairs =
        Arbitraries.integers()
            .between(0x10000, Character.MAX_CODE_POINT)
            .list()
            .ofMaxSize(20)
            .map(
                cps ->
                    new String(cps.stream().mapToInt(Integer::intValue).toArray(), 0, cps.size()));
    Arbitrary<String> loneSurrogates =
        Arbitraries.strings().withCharRange(Character.MIN_SURROGATE, Character.MAX_SURROGATE);
    return Arbitraries.oneOf(
        Arbitraries.strings().ascii(),
        Arbitraries.strings().all(),
        Arbitraries.strings().withCharRange('\u0000', '\u07ff').ofMaxLength(50),
        surrogatePairs,
        loneSurrogates,
        Arbitraries.just(""),
        Arbitraries.strings().ascii().ofMinLength(127).ofMaxLength(130),
        Arbitraries.strings().ascii().ofMinLength(16380).ofMaxLength(16390));
  }

  @Property
  void strings(@ForAll("strings") String value) {
    check(Types.STRING, value);
  }

  @Property(tries = 20)
  void stringsLongerThanWriteUtfAllows(@ForAll("strings") String piece) {
    StringBuilder s = new StringBuilder();
    while (s.length() <= 70_000) {
      s.append(piece).append("é\uD83D\uDE00x");
    }
    check(Types.STRING, s.toString());
  }

  @Property(tries = 1)
  void stringsNearTheLengthOfUnsignedShort() {
    check(Types.STRING, "a".repeat(65_535));
    check(Types.STRING, "a".repeat(65_536));
    check(Types.STRING, "\u20ac".repeat(21_846)); // 65538 bytes in UTF-8
  }

  @Property(tries = 1)
  void nullStringsRoundTripInsideContainersOnly() {
    check(Types.LIST(Types.STRING), new ArrayList<>(java.util.Arrays.asList(null, "", null)));
  }

  // ---- arrays

  @Property
  void byteArrays(@ForAll byte[] value) {
    check(TypeInformation.of(byte[].class), value);
  }

  @Property
  void longArrays(@ForAll long[] value) {
    check(TypeInformation.of(long[].class), value);
  }

  @Property
  void intArrays(@ForAll int[] value) {
    check(TypeInformation.of(int[].class), value);
  }

  @Property
  void doubleArrays(@ForAll double[] value) {
    check(TypeInformation.of(double[].class), value);
  }

  @Property
  void floatArrays(@ForAll float[] value) {
    check(TypeInformation.of(float[].class), value);
  }

  @Property
  void shortArrays(@ForAll short[] value) {
    check(TypeInformation.of(short[].class), value);
  }

  @Property
  void charArrays(@ForAll char[] value) {
    check(TypeInformation.of(char[].class), value);
  }

  @Property
  void booleanArrays(@ForAll boolean[] value) {
    check(TypeInformation.of(boolean[].class), value);
  }

  @Property(tries = 1)
  void emptyArrays() {
    check(TypeInformation.of(byte[].class), new byte[0]);
    check(TypeInformation.of(long[].class), new long[0]);
    check(TypeInformation.of(String[].class), new String[0]);
  }

  @Provide
  Arbitrary<String[]> stringArrays() {
    return strings().injectNull(0.2).array(String[].class).ofMaxSize(10);
  }

  @Property
  void objectArrays(@ForAll("stringArrays") String[] value) {
    check(TypeInformation.of(String[].class), value);
    check(Types.OBJECT_ARRAY(Types.STRING), value);
  }

  @Property
  void arraysOfArrays(@ForAll @Size(max = 5) List<@Size(max = 5) List<Long>> lists) {
    long[][] value =
        lists.stream()
            .map(l -> l.stream().mapToLong(Long::longValue).toArray())
            .toArray(long[][]::new);
    check(TypeInformation.of(long[][].class), value);
  }

  @Property(tries = 200)
  void genericArrays(@ForAll("stringLists") List<String> list) {
    @SuppressWarnings("unchecked")
    List<String>[] value = new List[] {list, null, list};
    check(new TypeHint<List<String>[]>() {}.getTypeInfo(), value);
  }

  // ---- lists and maps

  @Provide
  Arbitrary<List<String>> stringLists() {
    return strings().injectNull(0.2).list().ofMaxSize(10).map(ArrayList::new);
  }

  @Provide
  Arbitrary<Map<String, Long>> stringLongMaps() {
    return Arbitraries.maps(strings().injectNull(0.05), Arbitraries.longs().injectNull(0.2))
        .ofMaxSize(10)
        .map(HashMap::new);
  }

  @Property
  void lists(@ForAll("stringLists") List<String> value) {
    check(Types.LIST(Types.STRING), value);
    check(new TypeHint<List<String>>() {}.getTypeInfo(), value);
  }

  @Property
  void maps(@ForAll("stringLongMaps") Map<String, Long> value) {
    check(Types.MAP(Types.STRING, Types.LONG), value);
  }

  @Provide
  Arbitrary<Tuple2<String, Long>> pairs() {
    return Combinators.combine(strings().injectNull(0.1), Arbitraries.longs().injectNull(0.1))
        .as(Tuple2::of);
  }

  @Property
  void listsOfTuples(@ForAll("pairLists") List<Tuple2<String, Long>> value) {
    check(Types.LIST(Types.TUPLE(Types.STRING, Types.LONG)), value);
    check(new TypeHint<List<Tuple2<String, Long>>>() {}.getTypeInfo(), value);
  }

  @Provide
  Arbitrary<List<Tuple2<String, Long>>> pairLists() {
    return pairs().injectNull(0.1).list().ofMaxSize(8).map(ArrayList::new);
  }

  @Property(tries = 300)
  void mapsOfLists(@ForAll("stringLists") List<String> a, @ForAll("stringLists") List<String> b) {
    Map<Integer, List<String>> value = new HashMap<>();
    value.put(1, a);
    value.put(null, b);
    value.put(3, null);
    check(new TypeHint<Map<Integer, List<String>>>() {}.getTypeInfo(), value);
  }

  // ---- tuples

  @Property
  void tuples(@ForAll("pairs") Tuple2<String, Long> pair, @ForAll int i, @ForAll boolean b) {
    check(Types.TUPLE(Types.STRING, Types.LONG), pair);
    check(
        new TypeHint<Tuple3<String, Long, Integer>>() {}.getTypeInfo(),
        Tuple3.of(pair.f0, pair.f1, i));
    check(
        new TypeHint<Tuple4<Tuple2<String, Long>, Integer, Boolean, String>>() {}.getTypeInfo(),
        Tuple4.of(pair, i, b, null));
    check(
        Types.TUPLE(Types.INT, Types.INT, Types.INT, Types.STRING, Types.LIST(Types.LONG)),
        Tuple5.of(i, null, -i, pair.f0, new ArrayList<>(List.of(1L, 2L))));
  }

  @Property(tries = 1)
  void tupleCopiesAreDeep() {
    TypeSerializer<Tuple2<List<String>, Long>> serializer =
        new TypeHint<Tuple2<List<String>, Long>>() {}.getTypeInfo().createSerializer();
    Tuple2<List<String>, Long> original = Tuple2.of(new ArrayList<>(List.of("a")), 1L);
    Tuple2<List<String>, Long> copy = serializer.copy(original);
    original.f0.add("b");
    assertThat(copy.f0).containsExactly("a");
  }

  // ---- enums

  @Property
  void enums(@ForAll Color value) {
    check(Types.ENUM(Color.class), value);
    check(TypeInformation.of(Color.class), value);
  }

  // ---- records

  @Provide
  Arbitrary<Point> points() {
    return Combinators.combine(
            Arbitraries.integers(),
            Arbitraries.longs(),
            Arbitraries.doubles(),
            Arbitraries.of(true, false))
        .as(Point::new);
  }

  @Provide
  Arbitrary<Person> persons() {
    return Combinators.combine(
            strings().injectNull(0.2),
            Arbitraries.integers().injectNull(0.2),
            points().injectNull(0.2),
            stringLists().injectNull(0.1),
            stringLongMaps().injectNull(0.1))
        .as(Person::new);
  }

  @Property
  void records(@ForAll("points") Point point) {
    check(Types.RECORD(Point.class), point);
  }

  @Property
  void recordsWithNullableAndNestedFields(@ForAll("persons") Person person) {
    check(Types.RECORD(Person.class), person);
  }

  @Property(tries = 300)
  void recordsWithNestedRecords(
      @ForAll("persons") Person lead,
      @ForAll("persons") Person member,
      @ForAll Color color,
      @ForAll("pairs") Tuple2<String, Long> tag) {
    List<Person> members = new ArrayList<>();
    members.add(member);
    members.add(null);
    check(Types.RECORD(Team.class), new Team("team", lead, members, color, tag));
    check(Types.RECORD(Team.class), new Team(null, null, null, null, null));
  }

  @Property(tries = 300)
  void genericRecords(@ForAll("stringLists") List<String> list) {
    TypeInformation<Box<List<String>>> type = new TypeHint<Box<List<String>>>() {}.getTypeInfo();
    check(type, new Box<>(list, List.of(list, list)));
    assertThat(type.createSerializer().toString()).contains("List<string serializer>");
  }

  @Property(tries = 1)
  void recordsAreWrittenComponentByComponent() throws Exception {
    // The layout the snapshots and channels rely on, whichever way the components are read.
    DataOutputSerializer written = new DataOutputSerializer(64);
    Types.RECORD(Point.class).createSerializer().serialize(new Point(7, -2L, 1.5, true), written);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream expected = new java.io.DataOutputStream(bytes);
    expected.writeInt(7);
    expected.writeLong(-2L);
    expected.writeDouble(1.5);
    expected.writeBoolean(true);
    assertThat(written.getCopyOfBuffer()).isEqualTo(bytes.toByteArray());

    written.clear();
    Types.RECORD(Person.class)
        .createSerializer()
        .serialize(new Person("ab", null, null, null, null), written);
    DataOutputSerializer name = new DataOutputSerializer(16);
    Types.STRING.createSerializer().serialize("ab", name);
    bytes.reset();
    expected.writeByte(1);
    expected.write(name.getCopyOfBuffer());
    expected.write(new byte[] {0, 0, 0, 0});
    assertThat(written.getCopyOfBuffer()).isEqualTo(bytes.toByteArray());
  }

  @Property(tries = 1)
  void immutableRecordsAreNotCopied() {
    TypeSerializer<Point> points = Types.RECORD(Point.class).createSerializer();
    assertThat(points.isImmutableType()).isTrue();
    TypeSerializer<Person> persons = Types.RECORD(Person.class).createSerializer();
    assertThat(persons.isImmutableType()).as("Person holds a List").isFalse();
    Person person = new Person("a", 1, null, new ArrayList<>(List.of("x")), null);
    Person copy = persons.copy(person);
    person.tags().add("y");
    assertThat(copy.tags()).containsExactly("x");
  }

  // ---- Kryo

  @Provide
  Arbitrary<Plain> plains() {
    return Combinators.combine(strings().injectNull(0.2), Arbitraries.integers(), stringLists())
        .as(
            (name, count, tags) -> {
              Plain p = new Plain();
              p.name = name;
              p.count = count;
              p.tags = new ArrayList<>(tags);
              if (count % 3 == 0) {
                SubPlain sub = new SubPlain();
                sub.name = "sub";
                sub.extra = count;
                p.next = sub;
              }
              return p;
            });
  }

  @Property(tries = 300)
  void classesWithoutSupportGoToKryo(@ForAll("plains") Plain value) {
    TypeInformation<Plain> type = TypeInformation.of(Plain.class);
    assertThat(type.createSerializer()).isInstanceOf(KryoSerializer.class);
    assertThat(type.toString()).isEqualTo("GenericType<Plain>");
    check(type, value);
    check(Types.LIST(type), new ArrayList<>(java.util.Arrays.asList(value, null, value)));
  }

  @Property(tries = 300)
  void genericTypesForceKryo(@ForAll("persons") Person person) {
    TypeInformation<Person> type = Types.GENERIC(Person.class);
    assertThat(type.createSerializer()).isInstanceOf(KryoSerializer.class);
    check(type, person);
  }
}
