package io.weir.api.typeutils;

import static io.weir.api.typeutils.SerializerChecks.checkSnapshot;
import static io.weir.api.typeutils.SerializerChecks.deserialize;
import static io.weir.api.typeutils.SerializerChecks.readSnapshot;
import static io.weir.api.typeutils.SerializerChecks.serialize;
import static io.weir.api.typeutils.SerializerChecks.writeSnapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.tuple.Tuple2;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Snapshots: written and read back, restoring equal serializers, and judging compatibility. */
class SerializerSnapshotTest {

  enum Color {
    RED,
    GREEN,
    BLUE
  }

  enum ColorReordered {
    BLUE,
    RED,
    GREEN
  }

  record Point(int x, long y) {}

  record PointWithName(int x, long y, String name) {}

  record Other(int x, long y) {}

  static Stream<TypeInformation<?>> allKinds() {
    return Stream.of(
        Types.LONG,
        Types.INT,
        Types.SHORT,
        Types.BYTE,
        Types.BOOLEAN,
        Types.CHAR,
        Types.DOUBLE,
        Types.FLOAT,
        Types.VOID,
        Types.STRING,
        Types.BIG_INT,
        Types.BIG_DEC,
        Types.PRIMITIVE_ARRAY(Types.BYTE),
        Types.PRIMITIVE_ARRAY(Types.SHORT),
        Types.PRIMITIVE_ARRAY(Types.INT),
        Types.PRIMITIVE_ARRAY(Types.LONG),
        Types.PRIMITIVE_ARRAY(Types.FLOAT),
        Types.PRIMITIVE_ARRAY(Types.DOUBLE),
        Types.PRIMITIVE_ARRAY(Types.CHAR),
        Types.PRIMITIVE_ARRAY(Types.BOOLEAN),
        Types.OBJECT_ARRAY(Types.STRING),
        Types.LIST(Types.LONG),
        Types.MAP(Types.STRING, Types.LIST(Types.INT)),
        Types.TUPLE(Types.STRING, Types.LONG),
        Types.TUPLE(
            Types.STRING, Types.LONG, Types.INT, Types.BOOLEAN, Types.TUPLE(Types.INT, Types.INT)),
        Types.ENUM(Color.class),
        Types.RECORD(Point.class),
        Types.RECORD(PointWithName.class),
        Types.GENERIC(Object.class),
        Types.GENERIC(Point.class),
        new TypeHint<Map<String, Tuple2<Point, List<Color>>>>() {}.getTypeInfo());
  }

  @ParameterizedTest
  @MethodSource("allKinds")
  void snapshotsRoundTripAndAreCompatibleWithTheSameSerializer(TypeInformation<?> type) {
    checkSnapshot(type.createSerializer());
  }

  @ParameterizedTest
  @MethodSource("allKinds")
  @SuppressWarnings({"unchecked", "rawtypes"})
  void snapshotsAreIncompatibleWithEveryOtherKind(TypeInformation<?> type) {
    TypeSerializerSnapshot snapshot = type.createSerializer().snapshotConfiguration();
    allKinds()
        .filter(other -> !other.equals(type))
        .forEach(
            other -> {
              TypeSerializerSchemaCompatibility<?> result =
                  snapshot.resolveSchemaCompatibility(other.createSerializer());
              assertThat(result.isIncompatible())
                  .as("%s read as %s: %s", type, other, result)
                  .isTrue();
              assertThat(result.message()).isNotBlank();
            });
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void incompatibilityNamesTheNestedSerializerAtFault() {
    TypeSerializerSnapshot<Map<String, List<Long>>> old =
        Types.MAP(Types.STRING, Types.LIST(Types.LONG)).createSerializer().snapshotConfiguration();
    TypeSerializerSchemaCompatibility<Map<String, List<Long>>> result =
        old.resolveSchemaCompatibility(
            (TypeSerializer) Types.MAP(Types.STRING, Types.LIST(Types.INT)).createSerializer());
    assertThat(result.isIncompatible()).isTrue();
    assertThat(result.message())
        .contains("value")
        .contains("element")
        .contains("long")
        .contains("int");
  }

  @Test
  void enumReorderedNeedsMigrationAndTheRestoredSerializerReadsOldOrdinals() throws IOException {
    // The same enum class before and after reordering cannot coexist in one JVM, so the old
    // layout is simulated: ColorReordered's constants written in Color's order.
    EnumSerializer<ColorReordered> old =
        EnumSerializer.forWrittenNames(ColorReordered.class, new String[] {"RED", "GREEN", "BLUE"});
    TypeSerializerSnapshot<ColorReordered> snapshot =
        readSnapshot(writeSnapshot(old.snapshotConfiguration()));
    TypeSerializer<ColorReordered> now = Types.ENUM(ColorReordered.class).createSerializer();

    assertThat(snapshot.resolveSchemaCompatibility(now).kind())
        .isEqualTo(TypeSerializerSchemaCompatibility.Kind.COMPATIBLE_AFTER_MIGRATION);
    byte[] greenAsWrittenBefore = {0, 0, 0, 1};
    assertThat(deserialize(snapshot.restoreSerializer(), greenAsWrittenBefore))
        .isEqualTo(ColorReordered.GREEN);
    assertThat(deserialize(now, greenAsWrittenBefore)).isEqualTo(ColorReordered.RED);
  }

  @Test
  void enumWithConstantsAppendedIsCompatibleAsIs() {
    EnumSerializer<Color> old =
        EnumSerializer.forWrittenNames(Color.class, new String[] {"RED", "GREEN"});
    TypeSerializerSnapshot<Color> snapshot =
        readSnapshot(writeSnapshot(old.snapshotConfiguration()));
    assertThat(
            snapshot
                .resolveSchemaCompatibility(Types.ENUM(Color.class).createSerializer())
                .isCompatibleAsIs())
        .isTrue();
  }

  @Test
  void enumWithAConstantRemovedIsIncompatible() {
    // Written when Color still had PURPLE.
    DataOutputSerializer out = new DataOutputSerializer(64);
    try {
      out.writeUTF(EnumSerializer.Snapshot.class.getName());
      out.writeInt(1);
      out.writeUTF(Color.class.getName());
      out.writeInt(4);
      for (String name : new String[] {"RED", "GREEN", "PURPLE", "BLUE"}) {
        out.writeUTF(name);
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    TypeSerializerSnapshot<Color> snapshot = readSnapshot(out.getCopyOfBuffer());
    TypeSerializerSchemaCompatibility<Color> result =
        snapshot.resolveSchemaCompatibility(Types.ENUM(Color.class).createSerializer());
    assertThat(result.isIncompatible()).isTrue();
    assertThat(result.message()).contains("PURPLE").contains(Color.class.getName());
    assertThatThrownBy(snapshot::restoreSerializer).hasMessageContaining("PURPLE");
  }

  @Test
  void recordOfAnotherClassIsIncompatible() {
    TypeSerializerSnapshot<Point> snapshot =
        Types.RECORD(Point.class).createSerializer().snapshotConfiguration();
    @SuppressWarnings({"unchecked", "rawtypes"})
    TypeSerializerSchemaCompatibility<Point> result =
        snapshot.resolveSchemaCompatibility(
            (TypeSerializer) Types.RECORD(Other.class).createSerializer());
    assertThat(result.isIncompatible()).isTrue();
    assertThat(result.message()).contains(Point.class.getName());
  }

  @Test
  void recordThatGainedAComponentIsRestoredAfterMigration() throws IOException {
    // Data written when PointWithName had only (y, x): a reordered, shorter layout.
    RecordSerializer<PointWithName> old =
        new RecordSerializer<>(
            PointWithName.class,
            new String[] {"y", "x"},
            new boolean[] {false, false},
            new TypeSerializer<?>[] {Types.LONG.createSerializer(), Types.INT.createSerializer()});
    DataOutputSerializer out = new DataOutputSerializer(16);
    out.writeLong(7L);
    out.writeInt(3);
    byte[] oldBytes = out.getCopyOfBuffer();

    TypeSerializerSnapshot<PointWithName> snapshot =
        readSnapshot(writeSnapshot(old.snapshotConfiguration()));
    TypeSerializer<PointWithName> now = Types.RECORD(PointWithName.class).createSerializer();
    assertThat(snapshot.resolveSchemaCompatibility(now).kind())
        .isEqualTo(TypeSerializerSchemaCompatibility.Kind.COMPATIBLE_AFTER_MIGRATION);

    TypeSerializer<PointWithName> restored = snapshot.restoreSerializer();
    PointWithName migrated = deserialize(restored, oldBytes);
    assertThat(migrated).isEqualTo(new PointWithName(3, 7L, null));
    assertThat(deserialize(now, serialize(now, migrated))).isEqualTo(migrated);
    assertThatThrownBy(() -> serialize(restored, migrated)).hasMessageContaining("cannot write");
  }

  @Test
  void recordWhoseComponentChangedTypeIsIncompatibleNamingTheComponent() {
    RecordSerializer<Point> old =
        new RecordSerializer<>(
            Point.class,
            new String[] {"x", "y"},
            new boolean[] {false, true},
            new TypeSerializer<?>[] {
              Types.INT.createSerializer(), Types.STRING.createSerializer()
            });
    TypeSerializerSchemaCompatibility<Point> result =
        old.snapshotConfiguration()
            .resolveSchemaCompatibility(Types.RECORD(Point.class).createSerializer());
    assertThat(result.isIncompatible()).isTrue();
    assertThat(result.message()).contains("'y'");
  }

  @Test
  void unknownSnapshotVersionsAreRejectedWithAClearMessage() {
    DataOutputSerializer out = new DataOutputSerializer(64);
    try {
      out.writeUTF(ListSerializer.Snapshot.class.getName());
      out.writeInt(99);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    assertThatThrownBy(() -> readSnapshot(out.getCopyOfBuffer()))
        .hasMessageContaining("version 99")
        .hasMessageContaining("list serializer");
  }

  @Test
  void unknownBasicSerializerNamesAreRejected() {
    DataOutputSerializer out = new DataOutputSerializer(64);
    try {
      out.writeUTF(BasicSerializerSnapshot.class.getName());
      out.writeInt(1);
      out.writeUTF("uint128");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    assertThatThrownBy(() -> readSnapshot(out.getCopyOfBuffer())).hasMessageContaining("uint128");
  }
}
