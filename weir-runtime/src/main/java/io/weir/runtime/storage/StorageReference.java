package io.weir.runtime.storage;

import java.util.Objects;

/**
 * What a JobManager ships to a TaskManager so that the TaskManager reads the same checkpoint state:
 * a reference the TaskManager resolves with the job's own configuration (its file system settings)
 * through {@link CheckpointStorages#reader}, never the storage object.
 *
 * @param kind whose state it is
 * @param pointer for {@link Kind#CHECKPOINT}, the URI of the checkpoint's directory; else null
 */
public record StorageReference(Kind kind, String pointer) {

  /** Whose state a reference reaches. */
  public enum Kind {
    /** The job's own checkpoint storage, as the job's configuration sets it up. */
    JOB,
    /** One completed checkpoint or savepoint outside the job's storage, read where it is now. */
    CHECKPOINT
  }

  /** The job's own checkpoint storage. */
  public static final StorageReference JOB_STORAGE = new StorageReference(Kind.JOB, null);

  public StorageReference {
    Objects.requireNonNull(kind, "kind");
    if ((kind == Kind.CHECKPOINT) == (pointer == null)) {
      throw new IllegalArgumentException(
          "A reference to a checkpoint needs its pointer, and only such a reference has one: "
              + kind
              + " "
              + pointer);
    }
  }

  /** A completed checkpoint or savepoint at {@code pointer}, its directory's URI. */
  public static StorageReference checkpoint(String pointer) {
    return new StorageReference(Kind.CHECKPOINT, pointer);
  }
}
