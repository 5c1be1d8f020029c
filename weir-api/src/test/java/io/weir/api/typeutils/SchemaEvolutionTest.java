package io.weir.api.typeutils;

import static io.weir.api.typeutils.SerializerChecks.checkSnapshot;
import static io.weir.api.typeutils.SerializerChecks.checkValue;
import static io.weir.api.typeutils.SerializerChecks.deserialize;
import static io.weir.api.typeutils.SerializerChecks.readSnapshot;
import static io.weir.api.typeutils.SerializerChecks.serialize;
import static io.weir.api.typeutils.SerializerChecks.writeSnapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.typeutils.TypeSerializerSchemaCompatibility.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Schema evolution of records and POJOs: the snapshot of a serializer for an older layout of a
 * class (fields added, removed, boxed) against the serializer of the class as it is now. The older
 * layouts are built with the serializers' layout constructors, which is what restoring a snapshot
 * does; the job-level tests load two versions of one class through two class loaders.
 */
class SchemaEvolutionTest {

  record Reading(String key, long count) {}

  /** Reading's layout before it lost {@code note}: what a checkpoint of it holds. */
  record ReadingWithNote(String key, long count, String note) {}

  record Boxed(String key, Long count) {}

  record Wrapper(List<Reading> readings) {}

  /** A POJO as it is now. */
  public static final class Meter {
    public String key;
    public long count;
    public int unit = 7;
    private transient String cache = "not serialized";

    public Meter() {}

    @Override
    public boolean equals(Object o) {
      return o instanceof Meter m
          && java.util.Objects.equals(key, m.key)
          && count == m.count
          && unit == m.unit
          && cache.equals(m.cache);
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(key, count, unit);
    }
  }

  /** The layout Meter had before it gained {@code unit} and lost {@code note}. */
  public static final class OldMeter {
    public String key;
    public long count;
    public String note;

    public OldMeter() {}
  }

  public static final class Child extends OldMeterBase {
    public boolean flag;

    public Child() {}
  }

  public static class OldMeterBase {
    public String inherited;
  }

  private static <T> TypeSerializer<T> serializer(TypeInformation<T> type) {
    return type.createSerializer();
  }

  /** The snapshot of a serializer for {@code now}'s class as {@code old}'s layout wrote it. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static <T> TypeSerializerSnapshot<T> recordSnapshotAsWrittenBy(
      Class<T> now, TypeSerializer<?> old) {
    RecordSerializer<?> o = (RecordSerializer<?>) old;
    RecordSnapshotFields f = RecordSnapshotFields.of(o);
    return new RecordSerializer(now, f.names, f.nullable, f.serializers).snapshotConfiguration();
  }

  /** The written layout of a record serializer, read back through its snapshot. */
  private record RecordSnapshotFields(
      String[] names, boolean[] nullable, TypeSerializer<?>[] serializers) {
    static RecordSnapshotFields of(RecordSerializer<?> s) {
      java.lang.reflect.RecordComponent[] c = s.recordClass().getRecordComponents();
      String[] names = new String[c.length];
      boolean[] nullable = new boolean[c.length];
      TypeSerializer<?>[] serializers = new TypeSerializer<?>[c.length];
      for (int i = 0; i < c.length; i++) {
        names[i] = c[i].getName();
        nullable[i] = !c[i].getType().isPrimitive();
        serializers[i] = TypeInformation.of(c[i].getGenericType()).createSerializer();
      }
      return new RecordSnapshotFields(names, nullable, serializers);
    }
  }

  @Test
  void recordThatLostAComponentMigratesAndDropsIt() {
    TypeSerializer<ReadingWithNote> oldSerializer = serializer(Types.RECORD(ReadingWithNote.class));
    byte[] oldBytes = serialize(oldSerializer, new ReadingWithNote("a", 5, "dropped"));
    TypeSerializerSnapshot<Reading> snapshot =
        readSnapshot(writeSnapshot(recordSnapshotAsWrittenBy(Reading.class, oldSerializer)));

    TypeSerializerSchemaCompatibility<Reading> result =
        snapshot.resolveSchemaCompatibility(serializer(Types.RECORD(Reading.class)));

    assertThat(result.kind()).isEqualTo(Kind.COMPATIBLE_AFTER_MIGRATION);
    assertThat(deserialize(snapshot.restoreSerializer(), oldBytes)).isEqualTo(new Reading("a", 5));
  }

  @Test
  void primitiveToBoxedComponentMigrates() {
    TypeSerializer<Reading> primitive = serializer(Types.RECORD(Reading.class));
    byte[] oldBytes = serialize(primitive, new Reading("a", 5));
    TypeSerializerSnapshot<Boxed> snapshot = recordSnapshotAsWrittenBy(Boxed.class, primitive);

    assertThat(snapshot.resolveSchemaCompatibility(serializer(Types.RECORD(Boxed.class))).kind())
        .isEqualTo(Kind.COMPATIBLE_AFTER_MIGRATION);
    assertThat(deserialize(snapshot.restoreSerializer(), oldBytes)).isEqualTo(new Boxed("a", 5L));
  }

  @Test
  void sameRecordIsCompatibleAsIs() {
    TypeSerializer<Reading> s = serializer(Types.RECORD(Reading.class));
    assertThat(checkSnapshot(s).resolveSchemaCompatibility(s).kind())
        .isEqualTo(Kind.COMPATIBLE_AS_IS);
  }

  @Test
  void recordInsideAListMigratesWithIt() {
    TypeSerializer<Wrapper> now = serializer(Types.RECORD(Wrapper.class));
    // A Wrapper whose readings were written while Reading still had its note.
    TypeSerializer<?> oldReadings =
        new ListSerializer<>(
            new RecordSerializer<>(
                Reading.class,
                new String[] {"key", "count", "note"},
                new boolean[] {true, false, true},
                new TypeSerializer<?>[] {
                  StringSerializer.INSTANCE,
                  BasicSerializers.LongSerializer.INSTANCE,
                  StringSerializer.INSTANCE
                }));
    TypeSerializerSnapshot<Wrapper> snapshot =
        new RecordSerializer<>(
                Wrapper.class,
                new String[] {"readings"},
                new boolean[] {true},
                new TypeSerializer<?>[] {oldReadings})
            .snapshotConfiguration();
    assertThat(snapshot.resolveSchemaCompatibility(now).kind())
        .isEqualTo(Kind.COMPATIBLE_AFTER_MIGRATION);
  }

  @Test
  void recordComponentOfAnotherTypeIsIncompatibleNamingIt() {
    TypeSerializer<Reading> old =
        new RecordSerializer<>(
            Reading.class,
            new String[] {"key", "count"},
            new boolean[] {true, true},
            new TypeSerializer<?>[] {StringSerializer.INSTANCE, StringSerializer.INSTANCE});
    TypeSerializerSchemaCompatibility<Reading> result =
        old.snapshotConfiguration()
            .resolveSchemaCompatibility(serializer(Types.RECORD(Reading.class)));
    assertThat(result.isIncompatible()).isTrue();
    assertThat(result.message()).contains("component 'count'").contains(Reading.class.getName());
  }

  @Test
  void pojoRoundTripsFieldByFieldAndSkipsTransientFields() {
    TypeSerializer<Meter> s = serializer(Types.POJO(Meter.class));
    assertThat(s).isInstanceOf(PojoSerializer.class);
    Meter m = new Meter();
    m.key = "k";
    m.count = 3;
    m.unit = 9;
    Meter back = deserialize(s, checkValue(s, m));
    assertThat(back.key).isEqualTo("k");
    assertThat(back.count).isEqualTo(3);
    assertThat(back.unit).isEqualTo(9);
    assertThat(s.copy(m)).isNotSameAs(m).usingRecursiveComparison().isEqualTo(m);
    checkSnapshot(s);
  }

  @Test
  void pojoFieldsOfSuperclassesAreSerialized() {
    TypeSerializer<Child> s = serializer(Types.POJO(Child.class));
    Child c = new Child();
    c.inherited = "from the base";
    c.flag = true;
    Child back = deserialize(s, serialize(s, c));
    assertThat(back.inherited).isEqualTo("from the base");
    assertThat(back.flag).isTrue();
  }

  /** Meter's layout as OldMeter had it: key, count, note (sorted by name: count, key, note). */
  private static TypeSerializerSnapshot<Meter> oldMeterSnapshot() {
    return new PojoSerializer<>(
            Meter.class,
            new String[] {"count", "key", "note"},
            new boolean[] {false, true, true},
            new TypeSerializer<?>[] {
              BasicSerializers.LongSerializer.INSTANCE,
              StringSerializer.INSTANCE,
              StringSerializer.INSTANCE
            },
            true)
        .snapshotConfiguration();
  }

  @Test
  void pojoThatGainedAndLostFieldsMigrates() {
    OldMeter old = new OldMeter();
    old.key = "k";
    old.count = 41;
    old.note = "dropped";
    byte[] oldBytes = serialize(serializer(Types.POJO(OldMeter.class)), old);
    TypeSerializerSnapshot<Meter> snapshot = readSnapshot(writeSnapshot(oldMeterSnapshot()));

    assertThat(snapshot.resolveSchemaCompatibility(serializer(Types.POJO(Meter.class))).kind())
        .isEqualTo(Kind.COMPATIBLE_AFTER_MIGRATION);
    Meter migrated = deserialize(snapshot.restoreSerializer(), oldBytes);
    assertThat(migrated.key).isEqualTo("k");
    assertThat(migrated.count).isEqualTo(41);
    assertThat(migrated.unit).as("a new field keeps its initializer").isEqualTo(7);
  }

  @Test
  void restoredSerializerOfAnOldLayoutOnlyReads() {
    TypeSerializer<Meter> restored = oldMeterSnapshot().restoreSerializer();
    assertThatThrownBy(() -> serialize(restored, new Meter()))
        .hasStackTraceContaining("cannot write");
  }

  @Test
  void pojoFieldOfAnotherTypeIsIncompatibleNamingIt() {
    TypeSerializerSnapshot<Meter> snapshot =
        new PojoSerializer<>(
                Meter.class,
                new String[] {"count", "key"},
                new boolean[] {true, true},
                new TypeSerializer<?>[] {StringSerializer.INSTANCE, StringSerializer.INSTANCE},
                true)
            .snapshotConfiguration();
    TypeSerializerSchemaCompatibility<Meter> result =
        snapshot.resolveSchemaCompatibility(serializer(Types.POJO(Meter.class)));
    assertThat(result.isIncompatible()).isTrue();
    assertThat(result.message()).contains("field 'count'").contains(Meter.class.getName());
  }

  @Test
  void pojoOfAnotherClassIsIncompatible() {
    TypeSerializerSnapshot<Meter> pojo =
        serializer(Types.POJO(Meter.class)).snapshotConfiguration();
    @SuppressWarnings({"unchecked", "rawtypes"})
    TypeSerializer<Meter> other = (TypeSerializer) serializer(Types.POJO(OldMeter.class));
    assertThat(pojo.resolveSchemaCompatibility(other).kind()).isEqualTo(Kind.INCOMPATIBLE);
  }

  @Test
  void aPojoWrittenByKryoMigratesToThePojoFormatAndBack() {
    Meter meter = new Meter();
    meter.key = "k";
    meter.count = 41;
    meter.unit = 3;
    TypeSerializer<Meter> kryo = serializer(Types.GENERIC(Meter.class));
    byte[] kryoBytes = serialize(kryo, meter);
    TypeSerializerSnapshot<Meter> kryoSnapshot =
        readSnapshot(writeSnapshot(kryo.snapshotConfiguration()));
    TypeSerializer<Meter> inferred = serializer(TypeInformation.of(Meter.class));
    assertThat(inferred).isInstanceOf(PojoSerializer.class);

    TypeSerializerSchemaCompatibility<Meter> toPojo =
        kryoSnapshot.resolveSchemaCompatibility(inferred);
    assertThat(toPojo.kind()).isEqualTo(Kind.COMPATIBLE_AFTER_MIGRATION);
    assertThat(toPojo.message()).contains("Types.GENERIC(Meter.class)");
    Meter read = deserialize(kryoSnapshot.restoreSerializer(), kryoBytes);
    assertThat(deserialize(inferred, serialize(inferred, read))).isEqualTo(meter);

    TypeSerializerSnapshot<Meter> pojoSnapshot =
        readSnapshot(writeSnapshot(inferred.snapshotConfiguration()));
    assertThat(pojoSnapshot.resolveSchemaCompatibility(kryo).kind())
        .as("back to Types.GENERIC")
        .isEqualTo(Kind.COMPATIBLE_AFTER_MIGRATION);
  }

  @Test
  void aPojoWrittenWithoutTagsMigratesToTaggedValues() {
    Meter meter = new Meter();
    meter.key = "k";
    meter.count = 5;
    // What Types.POJO wrote before values had a tag (snapshot version 1).
    PojoSerializer<Meter> untagged =
        new PojoSerializer<>(
            Meter.class,
            new String[] {"count", "key", "unit"},
            new boolean[] {false, true, false},
            new TypeSerializer<?>[] {
              BasicSerializers.LongSerializer.INSTANCE,
              StringSerializer.INSTANCE,
              BasicSerializers.IntSerializer.INSTANCE
            },
            false);
    byte[] old = serialize(untagged, meter);
    // The snapshot as version 1 wrote it: the version int after the class name, no tag flag.
    byte[] v2 = writeSnapshot(untagged.snapshotConfiguration());
    byte[] v1 = java.util.Arrays.copyOf(v2, v2.length - 1);
    int versionAt = 2 + ((v1[0] & 0xFF) << 8 | (v1[1] & 0xFF));
    assertThat(v1[versionAt + 3]).isEqualTo((byte) 2);
    v1[versionAt + 3] = 1;
    TypeSerializerSnapshot<Meter> snapshot = readSnapshot(v1);
    TypeSerializer<Meter> now = serializer(Types.POJO(Meter.class));
    assertThat(snapshot.resolveSchemaCompatibility(now).kind())
        .isEqualTo(Kind.COMPATIBLE_AFTER_MIGRATION);
    assertThat(deserialize(snapshot.restoreSerializer(), old)).isEqualTo(meter);
    TypeSerializerSnapshot<Meter> current =
        readSnapshot(writeSnapshot(now.snapshotConfiguration()));
    assertThat(current.resolveSchemaCompatibility(now).kind()).isEqualTo(Kind.COMPATIBLE_AS_IS);
  }
}
