package io.weir.runtime.storage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;

/**
 * The state behind a handle is missing, or is not what the handle recorded (its size or checksum
 * differs, or the handle itself is impossible): reading it again will not help. Every other {@link
 * IOException} of a state read (a timeout, a refused connection, a throttled request) may pass, so
 * a restore that meets one tries the same checkpoint again rather than taking it for corrupt.
 *
 * <p>Thrown by the readers of {@link CheckpointStateReader}.
 */
public final class DamagedStateException extends IOException {

  private static final long serialVersionUID = 1L;

  public DamagedStateException(String message) {
    super(message);
  }

  public DamagedStateException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Whether {@code e} says the file read is damaged or missing ({@link FileNotFoundException} and
   * {@link NoSuchFileException} are how file systems say the latter), so that reading it again will
   * not help; false for a failure that may pass.
   */
  public static boolean isDamage(IOException e) {
    return e instanceof DamagedStateException
        || e instanceof FileNotFoundException
        || e instanceof NoSuchFileException;
  }
}
