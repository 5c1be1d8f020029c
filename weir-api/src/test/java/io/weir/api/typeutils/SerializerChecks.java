package io.weir.api.typeutils;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Objects;

/**
 * The checks every serializer must pass for a value: round trips through both the array-backed
 * views and plain stream views (which must give the same bytes), byte-level copy, deep copy,
 * duplicate, fixed length, and snapshot write/read/restore/compatibility.
 */
final class SerializerChecks {

  private SerializerChecks() {}

  /** Runs all value checks and returns the serialized bytes. */
  static <T> byte[] checkValue(TypeSerializer<T> serializer, T value) {
    byte[] bytes = serialize(serializer, value);
    assertThat(serializeToStream(serializer, value))
        .as("bytes written to a plain DataOutput")
        .isEqualTo(bytes);

    assertDeepEqual(deserialize(serializer, bytes), value);
    assertDeepEqual(deserializeFromStream(serializer, bytes), value);

    // Written into memory of the caller's (DataOutputSerializer.wrap, as the network writer does),
    // after 3 bytes that must stay: the same bytes, in place or in the larger copy it moved to.
    byte[] target = new byte[3 + bytes.length];
    target[0] = 7;
    DataOutputSerializer wrapped = new DataOutputSerializer(1);
    wrapped.wrap(target, 3);
    try {
      serializer.serialize(value, wrapped);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(wrapped.length()).isEqualTo(3 + bytes.length);
    byte[] written = wrapped.getSharedBuffer();
    assertThat(Arrays.copyOf(written, 3))
        .as("bytes before the wrapped position")
        .containsExactly(7, 0, 0);
    assertThat(Arrays.copyOfRange(written, 3, wrapped.length()))
        .as("bytes written into a wrapped array")
        .isEqualTo(bytes);

    DataOutputSerializer copied = new DataOutputSerializer(8);
    DataInputDeserializer in = new DataInputDeserializer(bytes);
    try {
      serializer.copy(in, copied);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(in.available()).as("bytes left after copy").isZero();
    assertThat(copied.getCopyOfBuffer()).as("bytes copied").isEqualTo(bytes);

    T copy = serializer.copy(value);
    assertDeepEqual(copy, value);
    if (serializer.isImmutableType()) {
      assertThat(copy).isSameAs(value);
    }

    TypeSerializer<T> duplicate = serializer.duplicate();
    assertThat(duplicate).isEqualTo(serializer);
    assertThat(duplicate.hashCode()).isEqualTo(serializer.hashCode());
    assertDeepEqual(deserialize(duplicate, bytes), value);

    if (serializer.getLength() >= 0) {
      assertThat(bytes).hasSize(serializer.getLength());
    }
    return bytes;
  }

  static <T> byte[] serialize(TypeSerializer<T> serializer, T value) {
    DataOutputSerializer out = new DataOutputSerializer(1);
    try {
      serializer.serialize(value, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.getCopyOfBuffer();
  }

  static <T> T deserialize(TypeSerializer<T> serializer, byte[] bytes) {
    DataInputDeserializer in = new DataInputDeserializer(bytes);
    try {
      T value = serializer.deserialize(in);
      assertThat(in.available()).as("bytes left after deserialize").isZero();
      return value;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static <T> byte[] serializeToStream(TypeSerializer<T> serializer, T value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (StreamOutputView out = new StreamOutputView(bytes)) {
      serializer.serialize(value, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static <T> T deserializeFromStream(TypeSerializer<T> serializer, byte[] bytes) {
    try (StreamInputView in = new StreamInputView(bytes)) {
      T value = serializer.deserialize(in);
      assertThat(in.available()).as("bytes left after deserialize").isZero();
      return value;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void assertDeepEqual(Object actual, Object expected) {
    assertThat(Objects.deepEquals(actual, expected))
        .as("%s deep-equals %s", describe(actual), describe(expected))
        .isTrue();
  }

  private static String describe(Object o) {
    return o == null ? "null" : o.getClass().getSimpleName() + " " + abbreviate(o);
  }

  private static String abbreviate(Object o) {
    String s =
        o instanceof Object[] array ? java.util.Arrays.deepToString(array) : String.valueOf(o);
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }

  /**
   * Writes the serializer's snapshot with its class name and version, reads it back, and checks
   * that the restored snapshot restores an equal serializer, finds the serializer compatible as it
   * is, and writes the same bytes again. Returns the restored snapshot.
   */
  static <T> TypeSerializerSnapshot<T> checkSnapshot(TypeSerializer<T> serializer) {
    byte[] written = writeSnapshot(serializer.snapshotConfiguration());
    TypeSerializerSnapshot<T> restored = readSnapshot(written);
    assertThat(restored).isExactlyInstanceOf(serializer.snapshotConfiguration().getClass());
    assertThat(restored.restoreSerializer()).isEqualTo(serializer);
    assertThat(restored.resolveSchemaCompatibility(serializer).isCompatibleAsIs())
        .as(
            "compatibility with the same serializer: %s",
            restored.resolveSchemaCompatibility(serializer))
        .isTrue();
    assertThat(writeSnapshot(restored)).as("snapshot written again").isEqualTo(written);
    return restored;
  }

  static byte[] writeSnapshot(TypeSerializerSnapshot<?> snapshot) {
    DataOutputSerializer out = new DataOutputSerializer(64);
    try {
      TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.getCopyOfBuffer();
  }

  static <T> TypeSerializerSnapshot<T> readSnapshot(byte[] bytes) {
    DataInputDeserializer in = new DataInputDeserializer(bytes);
    try {
      TypeSerializerSnapshot<T> snapshot =
          TypeSerializerSnapshot.readVersionedSnapshot(in, SerializerChecks.class.getClassLoader());
      assertThat(in.available()).as("snapshot bytes left").isZero();
      return snapshot;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A {@link DataOutputView} that is not a {@link DataOutputSerializer}: no fast paths. */
  static final class StreamOutputView extends DataOutputStream implements DataOutputView {
    StreamOutputView(ByteArrayOutputStream out) {
      super(out);
    }

    @Override
    public void write(DataInputView source, int numBytes) throws IOException {
      byte[] bytes = new byte[numBytes];
      source.readFully(bytes);
      write(bytes);
    }
  }

  /** A {@link DataInputView} that is not a {@link DataInputDeserializer}: no fast paths. */
  static final class StreamInputView extends DataInputStream implements DataInputView {
    StreamInputView(byte[] bytes) {
      super(new ByteArrayInputStream(bytes));
    }

    @Override
    public void skipBytesToRead(int numBytes) throws IOException {
      readFully(new byte[numBytes]);
    }
  }
}
