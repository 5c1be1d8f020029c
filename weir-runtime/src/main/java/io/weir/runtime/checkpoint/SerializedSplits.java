package io.weir.runtime.checkpoint;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A source subtask's splits and split watermarks as bytes, on their way into a checkpoint or out of
 * one: each element its version ({@code int}) and its body. A split's version is its serializer's;
 * a split watermark's is {@link #WATERMARK_VERSION}.
 *
 * @param splits the splits, in the reader's order
 * @param watermarks the split watermarks
 */
public record SerializedSplits(List<byte[]> splits, List<byte[]> watermarks) {

  /** The format of a split watermark's body. */
  public static final int WATERMARK_VERSION = 1;

  /**
   * The version that marked a split watermark among the splits in checkpoints of metadata format 3
   * and older, which kept both in one list; no split serializer has it.
   */
  static final int LEGACY_WATERMARK_VERSION = Integer.MIN_VALUE;

  public SerializedSplits {
    splits = List.copyOf(splits);
    watermarks = List.copyOf(watermarks);
  }

  /**
   * Splits and watermarks as read from a checkpoint: the split watermarks that a checkpoint of
   * format 3 or older kept among the splits move to the watermarks.
   */
  public static SerializedSplits read(List<byte[]> splits, List<byte[]> watermarks) {
    List<byte[]> own = new ArrayList<>(splits.size());
    List<byte[]> marks = new ArrayList<>(watermarks);
    for (byte[] element : splits) {
      (version(element) == LEGACY_WATERMARK_VERSION ? marks : own).add(element);
    }
    return new SerializedSplits(own, marks);
  }

  /** An element: {@code version}, then {@code body}. */
  public static byte[] element(int version, byte[] body) {
    return ByteBuffer.allocate(4 + body.length).putInt(version).put(body).array();
  }

  /** The version of {@code element}. */
  public static int version(byte[] element) {
    if (element.length < 4) {
      throw new IllegalArgumentException(
          "A split element of " + element.length + " bytes has no version");
    }
    return ByteBuffer.wrap(element).getInt();
  }

  /** The body of {@code element}, after its version. */
  public static byte[] body(byte[] element) {
    return Arrays.copyOfRange(element, 4, element.length);
  }

  /** True when {@code element} is a split watermark's body in a format this Weir reads. */
  public static boolean isReadableWatermark(byte[] element) {
    int version = version(element);
    return version == WATERMARK_VERSION || version == LEGACY_WATERMARK_VERSION;
  }
}
