package io.weir.api.typeutils;

import java.io.IOException;

/**
 * Serializers of the primitive arrays ({@code byte[]}, {@code int[]}, ...); arrays are non-null.
 */
final class PrimitiveArraySerializers {

  private PrimitiveArraySerializers() {}

  static int readLength(DataInputView source) throws IOException {
    int length = source.readInt();
    if (length < 0) {
      throw new IOException("Corrupt array: negative length " + length);
    }
    return length;
  }

  /** {@code byte[]}: an int length, then the elements. */
  static final class ByteArraySerializer extends StatelessSerializer<byte[]> {
    static final ByteArraySerializer INSTANCE = new ByteArraySerializer();

    private ByteArraySerializer() {
      super("byte[]");
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public byte[] copy(byte[] from) {
      return from.clone();
    }

    @Override
    public void serialize(byte[] record, DataOutputView target) throws IOException {
      target.writeInt(record.length);
      target.write(record);
    }

    @Override
    public byte[] deserialize(DataInputView source) throws IOException {
      byte[] result = new byte[readLength(source)];
      source.readFully(result);
      return result;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int length = readLength(source);
      target.writeInt(length);
      target.write(source, length * 1);
    }
  }

  /** {@code short[]}: an int length, then the elements. */
  static final class ShortArraySerializer extends StatelessSerializer<short[]> {
    static final ShortArraySerializer INSTANCE = new ShortArraySerializer();

    private ShortArraySerializer() {
      super("short[]");
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public short[] copy(short[] from) {
      return from.clone();
    }

    @Override
    public void serialize(short[] record, DataOutputView target) throws IOException {
      target.writeInt(record.length);
      for (int i = 0; i < record.length; i++) {
        target.writeShort(record[i]);
      }
    }

    @Override
    public short[] deserialize(DataInputView source) throws IOException {
      short[] result = new short[readLength(source)];
      for (int i = 0; i < result.length; i++) {
        result[i] = source.readShort();
      }
      return result;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int length = readLength(source);
      target.writeInt(length);
      target.write(source, length * 2);
    }
  }

  /** {@code int[]}: an int length, then the elements. */
  static final class IntArraySerializer extends StatelessSerializer<int[]> {
    static final IntArraySerializer INSTANCE = new IntArraySerializer();

    private IntArraySerializer() {
      super("int[]");
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public int[] copy(int[] from) {
      return from.clone();
    }

    @Override
    public void serialize(int[] record, DataOutputView target) throws IOException {
      target.writeInt(record.length);
      for (int i = 0; i < record.length; i++) {
        target.writeInt(record[i]);
      }
    }

    @Override
    public int[] deserialize(DataInputView source) throws IOException {
      int[] result = new int[readLength(source)];
      for (int i = 0; i < result.length; i++) {
        result[i] = source.readInt();
      }
      return result;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int length = readLength(source);
      target.writeInt(length);
      target.write(source, length * 4);
    }
  }

  /** {@code long[]}: an int length, then the elements. */
  static final class LongArraySerializer extends StatelessSerializer<long[]> {
    static final LongArraySerializer INSTANCE = new LongArraySerializer();

    private LongArraySerializer() {
      super("long[]");
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public long[] copy(long[] from) {
      return from.clone();
    }

    @Override
    public void serialize(long[] record, DataOutputView target) throws IOException {
      target.writeInt(record.length);
      for (int i = 0; i < record.length; i++) {
        target.writeLong(record[i]);
      }
    }

    @Override
    public long[] deserialize(DataInputView source) throws IOException {
      long[] result = new long[readLength(source)];
      for (int i = 0; i < result.length; i++) {
        result[i] = source.readLong();
      }
      return result;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int length = readLength(source);
      target.writeInt(length);
      target.write(source, length * 8);
    }
  }

  /** {@code float[]}: an int length, then the elements. */
  static final class FloatArraySerializer extends StatelessSerializer<float[]> {
    static final FloatArraySerializer INSTANCE = new FloatArraySerializer();

    private FloatArraySerializer() {
      super("float[]");
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public float[] copy(float[] from) {
      return from.clone();
    }

    @Override
    public void serialize(float[] record, DataOutputView target) throws IOException {
      target.writeInt(record.length);
      for (int i = 0; i < record.length; i++) {
        target.writeFloat(record[i]);
      }
    }

    @Override
    public float[] deserialize(DataInputView source) throws IOException {
      float[] result = new float[readLength(source)];
      for (int i = 0; i < result.length; i++) {
        result[i] = source.readFloat();
      }
      return result;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int length = readLength(source);
      target.writeInt(length);
      target.write(source, length * 4);
    }
  }

  /** {@code double[]}: an int length, then the elements. */
  static final class DoubleArraySerializer extends StatelessSerializer<double[]> {
    static final DoubleArraySerializer INSTANCE = new DoubleArraySerializer();

    private DoubleArraySerializer() {
      super("double[]");
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public double[] copy(double[] from) {
      return from.clone();
    }

    @Override
    public void serialize(double[] record, DataOutputView target) throws IOException {
      target.writeInt(record.length);
      for (int i = 0; i < record.length; i++) {
        target.writeDouble(record[i]);
      }
    }

    @Override
    public double[] deserialize(DataInputView source) throws IOException {
      double[] result = new double[readLength(source)];
      for (int i = 0; i < result.length; i++) {
        result[i] = source.readDouble();
      }
      return result;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int length = readLength(source);
      target.writeInt(length);
      target.write(source, length * 8);
    }
  }

  /** {@code char[]}: an int length, then the elements. */
  static final class CharArraySerializer extends StatelessSerializer<char[]> {
    static final CharArraySerializer INSTANCE = new CharArraySerializer();

    private CharArraySerializer() {
      super("char[]");
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public char[] copy(char[] from) {
      return from.clone();
    }

    @Override
    public void serialize(char[] record, DataOutputView target) throws IOException {
      target.writeInt(record.length);
      for (int i = 0; i < record.length; i++) {
        target.writeChar(record[i]);
      }
    }

    @Override
    public char[] deserialize(DataInputView source) throws IOException {
      char[] result = new char[readLength(source)];
      for (int i = 0; i < result.length; i++) {
        result[i] = source.readChar();
      }
      return result;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int length = readLength(source);
      target.writeInt(length);
      target.write(source, length * 2);
    }
  }

  /** {@code boolean[]}: an int length, then the elements. */
  static final class BooleanArraySerializer extends StatelessSerializer<boolean[]> {
    static final BooleanArraySerializer INSTANCE = new BooleanArraySerializer();

    private BooleanArraySerializer() {
      super("boolean[]");
    }

    @Override
    public boolean isImmutableType() {
      return false;
    }

    @Override
    public boolean[] copy(boolean[] from) {
      return from.clone();
    }

    @Override
    public void serialize(boolean[] record, DataOutputView target) throws IOException {
      target.writeInt(record.length);
      for (int i = 0; i < record.length; i++) {
        target.writeBoolean(record[i]);
      }
    }

    @Override
    public boolean[] deserialize(DataInputView source) throws IOException {
      boolean[] result = new boolean[readLength(source)];
      for (int i = 0; i < result.length; i++) {
        result[i] = source.readBoolean();
      }
      return result;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      int length = readLength(source);
      target.writeInt(length);
      target.write(source, length * 1);
    }
  }
}
