package io.weir.api.typeutils;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import java.io.IOException;
import java.lang.reflect.Modifier;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * The fallback for classes without a built-in serializer: Kryo, without class registration. Each
 * value is written as an int length and Kryo's bytes, so a reader never reads past it. When the
 * declared class is not final the value's class name is written too, so subclasses round-trip.
 *
 * <p>Kryo keeps scratch state, so each serializer has its own Kryo instance and is used by one
 * thread at a time; {@link #duplicate()} returns a new serializer with a new instance.
 */
final class KryoSerializer<T> extends TypeSerializer<T> {

  private final Class<T> type;
  private final boolean writeClass;

  // Created on first use: a serializer that is only duplicated or snapshotted never needs them.
  private Kryo kryo;
  private Output output;
  private Input input;
  private byte[] readBuffer;

  KryoSerializer(Class<T> type) {
    if (type.isPrimitive()) {
      throw new IllegalArgumentException("Kryo is not needed for primitive " + type);
    }
    this.type = type;
    this.writeClass = !Modifier.isFinal(type.getModifiers());
  }

  Class<T> type() {
    return type;
  }

  private Kryo kryo() {
    if (kryo == null) {
      Kryo k = new Kryo();
      k.setRegistrationRequired(false);
      k.setReferences(true); // shared and cyclic object graphs round-trip
      k.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
      ClassLoader loader = type.getClassLoader();
      if (loader == null) {
        loader = Thread.currentThread().getContextClassLoader();
      }
      if (loader != null) {
        k.setClassLoader(loader);
      }
      output = new Output(256, -1);
      input = new Input();
      readBuffer = new byte[256];
      kryo = k;
    }
    return kryo;
  }

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<T> duplicate() {
    return new KryoSerializer<>(type);
  }

  @Override
  public T copy(T from) {
    if (from == null) {
      return null;
    }
    try {
      return kryo().copy(from);
    } catch (KryoException e) {
      // Some Kryo serializers cannot copy; a serialization round trip always can.
      kryo().reset();
      byte[] bytes = write(from);
      return read(bytes, bytes.length);
    }
  }

  private byte[] write(T value) {
    Kryo k = kryo();
    output.reset();
    if (writeClass) {
      k.writeClassAndObject(output, value);
    } else {
      k.writeObject(output, value);
    }
    return output.toBytes();
  }

  @SuppressWarnings("unchecked")
  private T read(byte[] bytes, int length) {
    Kryo k = kryo();
    input.setBuffer(bytes, 0, length);
    return writeClass ? (T) k.readClassAndObject(input) : k.readObject(input, type);
  }

  @Override
  public void serialize(T record, DataOutputView target) throws IOException {
    Kryo k = kryo();
    output.reset();
    try {
      if (writeClass) {
        k.writeClassAndObject(output, record);
      } else {
        k.writeObject(output, record);
      }
    } catch (KryoException e) {
      throw new IOException(
          "Kryo could not serialize a "
              + record.getClass().getName()
              + ": "
              + e.getMessage()
              + ". Give the type a Weir serializer: make it a record, a tuple or a POJO (public,"
              + " with a public no-argument constructor, its fields public or with getters and"
              + " setters), or declare it with .returns(...)",
          e);
    }
    target.writeInt(output.position());
    target.write(output.getBuffer(), 0, output.position());
  }

  @Override
  public T deserialize(DataInputView source) throws IOException {
    kryo();
    int length = source.readInt();
    if (length < 0) {
      throw new IOException("Corrupt Kryo data: negative length " + length);
    }
    if (readBuffer.length < length) {
      readBuffer = new byte[Math.max(length, 2 * readBuffer.length)];
    }
    source.readFully(readBuffer, 0, length);
    try {
      return read(readBuffer, length);
    } catch (KryoException e) {
      throw new IOException(
          "Kryo could not read a "
              + type.getName()
              + ": "
              + e.getMessage()
              + ". Did the class change since the data was written?",
          e);
    }
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    int length = source.readInt();
    if (length < 0) {
      throw new IOException("Corrupt Kryo data: negative length " + length);
    }
    target.writeInt(length);
    target.write(source, length);
  }

  @Override
  public TypeSerializerSnapshot<T> snapshotConfiguration() {
    return new Snapshot<>(type);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof KryoSerializer<?> that && type == that.type;
  }

  @Override
  public int hashCode() {
    return 31 * KryoSerializer.class.hashCode() + type.hashCode();
  }

  @Override
  public String toString() {
    return "Kryo<" + type.getName() + ">";
  }

  /** The declared class. Kryo keeps no schema, so a class with the same name is compatible. */
  static final class Snapshot<T> implements TypeSerializerSnapshot<T> {
    private static final int VERSION = 1;

    private Class<T> type;

    public Snapshot() {}

    Snapshot(Class<T> type) {
      this.type = type;
    }

    @Override
    public int getCurrentVersion() {
      return VERSION;
    }

    @Override
    public void writeSnapshot(DataOutputView out) throws IOException {
      out.writeUTF(type.getName());
    }

    @Override
    @SuppressWarnings("unchecked")
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
        throws IOException {
      CompositeSerializers.checkVersion(readVersion, VERSION, "Kryo serializer");
      type = (Class<T>) CompositeSerializers.loadClass(in.readUTF(), classLoader);
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
      return new KryoSerializer<>(type);
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
        TypeSerializer<T> newSerializer) {
      if (newSerializer instanceof KryoSerializer<T> kryo && kryo.type == type) {
        return TypeSerializerSchemaCompatibility.compatibleAsIs();
      }
      if (newSerializer instanceof PojoSerializer<T> pojo && pojo.pojoClass() == type) {
        // Written before Weir inferred POJOs (or with Types.GENERIC): Kryo reads the values into
        // the class as it is now, the POJO serializer writes them.
        return TypeSerializerSchemaCompatibility.compatibleAfterMigration(
            type.getName()
                + " was serialized with Kryo and is now a POJO; to keep reading it with Kryo,"
                + " declare it as Types.GENERIC("
                + type.getSimpleName()
                + ".class)");
      }
      return TypeSerializerSchemaCompatibility.incompatible(
          "The state was written by Kryo for "
              + type.getName()
              + " but is now read with "
              + newSerializer);
    }
  }
}
