package io.weir.api.typeutils;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * Serializers of the boxed primitives, {@code Void}, {@code BigInteger} and {@code BigDecimal}.
 * Values are non-null; containers (lists, maps, tuples, records) mark nulls themselves. The
 * fixed-length ones write exactly {@link TypeSerializer#getLength()} big-endian bytes.
 */
final class BasicSerializers {

  private BasicSerializers() {}

  /** {@code Long} and {@code long}: 8 bytes. */
  static final class LongSerializer extends StatelessSerializer<Long> {
    static final LongSerializer INSTANCE = new LongSerializer();

    private LongSerializer() {
      super("long");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Long copy(Long from) {
      return from;
    }

    @Override
    public int getLength() {
      return 8;
    }

    @Override
    public void serialize(Long record, DataOutputView target) throws IOException {
      target.writeLong(record);
    }

    @Override
    public Long deserialize(DataInputView source) throws IOException {
      return source.readLong();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      target.write(source, 8);
    }
  }

  /** {@code Integer} and {@code int}: 4 bytes. */
  static final class IntSerializer extends StatelessSerializer<Integer> {
    static final IntSerializer INSTANCE = new IntSerializer();

    private IntSerializer() {
      super("int");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Integer copy(Integer from) {
      return from;
    }

    @Override
    public int getLength() {
      return 4;
    }

    @Override
    public void serialize(Integer record, DataOutputView target) throws IOException {
      target.writeInt(record);
    }

    @Override
    public Integer deserialize(DataInputView source) throws IOException {
      return source.readInt();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      target.write(source, 4);
    }
  }

  /** {@code Short} and {@code short}: 2 bytes. */
  static final class ShortSerializer extends StatelessSerializer<Short> {
    static final ShortSerializer INSTANCE = new ShortSerializer();

    private ShortSerializer() {
      super("short");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Short copy(Short from) {
      return from;
    }

    @Override
    public int getLength() {
      return 2;
    }

    @Override
    public void serialize(Short record, DataOutputView target) throws IOException {
      target.writeShort(record);
    }

    @Override
    public Short deserialize(DataInputView source) throws IOException {
      return source.readShort();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      target.write(source, 2);
    }
  }

  /** {@code Byte} and {@code byte}: 1 bytes. */
  static final class ByteSerializer extends StatelessSerializer<Byte> {
    static final ByteSerializer INSTANCE = new ByteSerializer();

    private ByteSerializer() {
      super("byte");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Byte copy(Byte from) {
      return from;
    }

    @Override
    public int getLength() {
      return 1;
    }

    @Override
    public void serialize(Byte record, DataOutputView target) throws IOException {
      target.writeByte(record);
    }

    @Override
    public Byte deserialize(DataInputView source) throws IOException {
      return source.readByte();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      target.write(source, 1);
    }
  }

  /** {@code Boolean} and {@code boolean}: 1 bytes. */
  static final class BooleanSerializer extends StatelessSerializer<Boolean> {
    static final BooleanSerializer INSTANCE = new BooleanSerializer();

    private BooleanSerializer() {
      super("boolean");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Boolean copy(Boolean from) {
      return from;
    }

    @Override
    public int getLength() {
      return 1;
    }

    @Override
    public void serialize(Boolean record, DataOutputView target) throws IOException {
      target.writeBoolean(record);
    }

    @Override
    public Boolean deserialize(DataInputView source) throws IOException {
      return source.readBoolean();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      target.write(source, 1);
    }
  }

  /** {@code Character} and {@code char}: 2 bytes. */
  static final class CharSerializer extends StatelessSerializer<Character> {
    static final CharSerializer INSTANCE = new CharSerializer();

    private CharSerializer() {
      super("char");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Character copy(Character from) {
      return from;
    }

    @Override
    public int getLength() {
      return 2;
    }

    @Override
    public void serialize(Character record, DataOutputView target) throws IOException {
      target.writeChar(record);
    }

    @Override
    public Character deserialize(DataInputView source) throws IOException {
      return source.readChar();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      target.write(source, 2);
    }
  }

  /** {@code Double} and {@code double}: 8 bytes. */
  static final class DoubleSerializer extends StatelessSerializer<Double> {
    static final DoubleSerializer INSTANCE = new DoubleSerializer();

    private DoubleSerializer() {
      super("double");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Double copy(Double from) {
      return from;
    }

    @Override
    public int getLength() {
      return 8;
    }

    @Override
    public void serialize(Double record, DataOutputView target) throws IOException {
      target.writeDouble(record);
    }

    @Override
    public Double deserialize(DataInputView source) throws IOException {
      return source.readDouble();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      target.write(source, 8);
    }
  }

  /** {@code Float} and {@code float}: 4 bytes. */
  static final class FloatSerializer extends StatelessSerializer<Float> {
    static final FloatSerializer INSTANCE = new FloatSerializer();

    private FloatSerializer() {
      super("float");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Float copy(Float from) {
      return from;
    }

    @Override
    public int getLength() {
      return 4;
    }

    @Override
    public void serialize(Float record, DataOutputView target) throws IOException {
      target.writeFloat(record);
    }

    @Override
    public Float deserialize(DataInputView source) throws IOException {
      return source.readFloat();
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
      target.write(source, 4);
    }
  }

  /** {@code Void}: the only value is {@code null}; one placeholder byte, like Flink. */
  static final class VoidSerializer extends StatelessSerializer<Void> {
    static final VoidSerializer INSTANCE = new VoidSerializer();

    private VoidSerializer() {
      super("void");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public Void copy(Void from) {
      return null;
    }

    @Override
    public int getLength() {
      return 1;
    }

    @Override
    public void serialize(Void record, DataOutputView target) throws IOException {
      target.writeByte(0);
    }

    @Override
    public Void deserialize(DataInputView source) throws IOException {
      source.readByte();
      return null;
    }
  }

  /** {@code BigInteger}: the two's-complement bytes with an int length. */
  static final class BigIntegerSerializer extends StatelessSerializer<BigInteger> {
    static final BigIntegerSerializer INSTANCE = new BigIntegerSerializer();

    private BigIntegerSerializer() {
      super("big-integer");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public BigInteger copy(BigInteger from) {
      return from;
    }

    @Override
    public void serialize(BigInteger record, DataOutputView target) throws IOException {
      writeBigInteger(record, target);
    }

    @Override
    public BigInteger deserialize(DataInputView source) throws IOException {
      return readBigInteger(source);
    }

    static void writeBigInteger(BigInteger value, DataOutputView target) throws IOException {
      byte[] bytes = value.toByteArray();
      target.writeInt(bytes.length);
      target.write(bytes);
    }

    static BigInteger readBigInteger(DataInputView source) throws IOException {
      int length = source.readInt();
      if (length <= 0) {
        throw new IOException("Corrupt BigInteger: length " + length);
      }
      byte[] bytes = new byte[length];
      source.readFully(bytes);
      return new BigInteger(bytes);
    }
  }

  /** {@code BigDecimal}: the unscaled value as a {@code BigInteger}, then the int scale. */
  static final class BigDecimalSerializer extends StatelessSerializer<BigDecimal> {
    static final BigDecimalSerializer INSTANCE = new BigDecimalSerializer();

    private BigDecimalSerializer() {
      super("big-decimal");
    }

    @Override
    public boolean isImmutableType() {
      return true;
    }

    @Override
    public BigDecimal copy(BigDecimal from) {
      return from;
    }

    @Override
    public void serialize(BigDecimal record, DataOutputView target) throws IOException {
      BigIntegerSerializer.writeBigInteger(record.unscaledValue(), target);
      target.writeInt(record.scale());
    }

    @Override
    public BigDecimal deserialize(DataInputView source) throws IOException {
      BigInteger unscaled = BigIntegerSerializer.readBigInteger(source);
      return new BigDecimal(unscaled, source.readInt());
    }
  }
}
