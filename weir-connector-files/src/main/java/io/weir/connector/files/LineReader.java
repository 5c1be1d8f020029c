package io.weir.connector.files;

import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SourceReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the lines of its file splits one file after another, through one byte buffer that is
 * scanned for {@code '\n'}; since that byte never occurs inside a multi-byte UTF-8 character, the
 * bytes of a line are decoded at once and the offset of the next line is always known exactly. Task
 * thread only.
 */
final class LineReader implements SourceReader<String, FileSplit> {

  /** Lines emitted per {@code pollNext}, so the task can look at its mailbox in between. */
  private static final int BATCH = 1024;

  private static final int BUFFER_BYTES = 64 * 1024;

  private final int batch;
  private final int bufferBytes;
  private final ArrayDeque<FileSplit> splits = new ArrayDeque<>();

  /** The file being read, or null between files. */
  private Path path;

  private FileChannel channel;
  private byte[] buffer;

  /** The file offset of {@code buffer[0]}. */
  private long bufferOffset;

  /** The first byte of the next line. */
  private int start;

  /** The end of the bytes read into the buffer. */
  private int end;

  /** The bytes in {@code [start, scanned)} hold no {@code '\n'}. */
  private int scanned;

  private boolean endOfFile;

  LineReader() {
    this(BATCH, BUFFER_BYTES);
  }

  /** With tiny values, tests exercise batches and buffer refills on small files. */
  LineReader(int batch, int bufferBytes) {
    if (batch < 1 || bufferBytes < 1) {
      throw new IllegalArgumentException("batch and buffer size must be positive");
    }
    this.batch = batch;
    this.bufferBytes = bufferBytes;
    this.buffer = new byte[bufferBytes];
  }

  @Override
  public void addSplits(List<FileSplit> newSplits) {
    splits.addAll(newSplits);
  }

  @Override
  public InputStatus pollNext(ReaderOutput<String> output) throws IOException {
    if (path == null && !openNextSplit()) {
      return InputStatus.END_OF_INPUT;
    }
    int emitted = 0;
    while (emitted < batch) {
      int newline = findNewline();
      if (newline >= 0) {
        output.collect(decode(start, newline));
        start = newline + 1;
        scanned = start;
        emitted++;
      } else if (!endOfFile) {
        fill();
      } else {
        if (start < end) {
          output.collect(decode(start, end)); // the last line has no terminator
          start = end;
        }
        closeSplit();
        return splits.isEmpty() ? InputStatus.END_OF_INPUT : InputStatus.MORE_AVAILABLE;
      }
    }
    return InputStatus.MORE_AVAILABLE;
  }

  @Override
  public List<FileSplit> snapshotState(long checkpointId) {
    List<FileSplit> state = new ArrayList<>(splits.size() + 1);
    if (path != null) {
      state.add(new FileSplit(path, bufferOffset + start));
    }
    state.addAll(splits);
    return state;
  }

  @Override
  public void close() throws IOException {
    closeSplit();
  }

  private boolean openNextSplit() throws IOException {
    FileSplit split = splits.poll();
    if (split == null) {
      return false;
    }
    try {
      channel = FileChannel.open(split.path(), StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      NoSuchFileException named =
          new NoSuchFileException(
              split.path().toString(),
              null,
              "The file source cannot read this file: it was deleted or moved after the job"
                  + " listed it");
      named.initCause(e);
      throw named;
    }
    path = split.path();
    channel.position(split.offset());
    bufferOffset = split.offset();
    start = 0;
    end = 0;
    scanned = 0;
    endOfFile = false;
    return true;
  }

  private void closeSplit() throws IOException {
    path = null;
    if (buffer.length > bufferBytes) {
      buffer = new byte[bufferBytes]; // a long line grew it; do not keep that for the next file
    }
    if (channel != null) {
      FileChannel toClose = channel;
      channel = null;
      toClose.close();
    }
  }

  private int findNewline() {
    byte[] b = buffer;
    for (int i = scanned; i < end; i++) {
      if (b[i] == '\n') {
        return i;
      }
    }
    scanned = end;
    return -1;
  }

  /** Reads more of the file behind the unread bytes, moving them to the front or growing. */
  private void fill() throws IOException {
    if (start > 0) {
      System.arraycopy(buffer, start, buffer, 0, end - start);
      bufferOffset += start;
      end -= start;
      scanned -= start;
      start = 0;
    }
    if (end == buffer.length) {
      buffer = Arrays.copyOf(buffer, buffer.length * 2); // one line fills the whole buffer
    }
    int read = channel.read(ByteBuffer.wrap(buffer, end, buffer.length - end));
    if (read < 0) {
      endOfFile = true;
    } else {
      end += read;
    }
  }

  /** The line in {@code buffer[from, to)}, without a {@code '\r'} before its terminator. */
  private String decode(int from, int to) {
    int length = to - from;
    if (length > 0 && buffer[to - 1] == '\r') {
      length--;
    }
    return new String(buffer, from, length, StandardCharsets.UTF_8);
  }
}
