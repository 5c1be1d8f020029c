package io.weir.runtime.checkpoint;

import io.weir.runtime.storage.StreamStateHandle;

/**
 * A source subtask's splits in a checkpoint, and the last watermark of each split it emitted
 * through (Flink keeps both as the source operator's own state).
 *
 * <p>Every element is framed as {@code length:int}, then {@code version:int} and the body: for a
 * split the version of the source's split serializer, for a split watermark the version of its
 * entry's format ({@link SerializedSplits#WATERMARK_VERSION}).
 *
 * <p>Checkpoints of metadata format 3 and older kept both in one list; read from those, {@code
 * splits} holds every element and {@code watermarks} none, and a split watermark is told apart by
 * its version, {@link SerializedSplits#LEGACY_WATERMARK_VERSION}, when the elements are read.
 *
 * @param data the stream
 * @param splits where each split starts
 * @param watermarks where each split watermark starts
 */
public record SourceSplitsHandle(StreamStateHandle data, long[] splits, long[] watermarks) {}
