package io.weir.runtime.graph;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Gives every subtask its own copy of a user function, source or sink, as Flink does by shipping
 * them serialized: a function's fields (state handles, counters, buffers) must never be shared
 * between parallel subtasks. Java serialization is used for this code shipping only, never for
 * state or checkpoint metadata.
 */
public final class UserCode {

  private UserCode() {}

  /** A deep copy of {@code userObject}; {@code owner} names the operator in errors. */
  @SuppressWarnings("unchecked")
  public static <T> T copy(T userObject, String owner) {
    if (userObject == null) {
      return null;
    }
    // Every loader of a class in the object graph: a connector's sink from the TaskManager's class
    // path may hold a user class (a record serializer) that only the job's class loader has.
    Set<ClassLoader> loaders = new LinkedHashSet<>();
    if (userObject.getClass().getClassLoader() != null) {
      loaders.add(userObject.getClass().getClassLoader());
    }
    byte[] bytes = serialize(userObject, owner, loaders);
    try (ObjectInputStream in =
        new LoaderObjectInputStream(new ByteArrayInputStream(bytes), loaders)) {
      return (T) in.readObject();
    } catch (IOException | ClassNotFoundException e) {
      throw new IllegalStateException(
          "Cannot copy the user code of '" + owner + "' for a subtask: " + e, e);
    }
  }

  /** Fails with a message naming the operator when {@code userObject} cannot be shipped. */
  public static void checkSerializable(Object userObject, String owner) {
    if (userObject != null) {
      serialize(userObject, owner, new LinkedHashSet<>());
    }
  }

  private static byte[] serialize(Object userObject, String owner, Set<ClassLoader> loaders) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new LoaderRecordingOutputStream(bytes, loaders)) {
      out.writeObject(userObject);
    } catch (NotSerializableException e) {
      throw new IllegalArgumentException(
          "The function of '"
              + owner
              + "' ("
              + userObject.getClass().getName()
              + ") is not serializable because it holds a "
              + e.getMessage()
              + ". Each parallel subtask gets its own copy of the function: mark such fields"
              + " transient and create them in open(), or make them Serializable.",
          e);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "The function of '" + owner + "' cannot be serialized: " + e, e);
    }
    return bytes.toByteArray();
  }

  /** Records the class loader of every class it writes. */
  private static final class LoaderRecordingOutputStream extends ObjectOutputStream {
    private final Set<ClassLoader> loaders;

    LoaderRecordingOutputStream(OutputStream out, Set<ClassLoader> loaders) throws IOException {
      super(out);
      this.loaders = loaders;
    }

    @Override
    protected void annotateClass(Class<?> cl) {
      if (cl.getClassLoader() != null) {
        loaders.add(cl.getClassLoader());
      }
    }
  }

  /** Resolves each class through the loaders the copied graph's classes came from, in order. */
  private static final class LoaderObjectInputStream extends ObjectInputStream {
    private final Set<ClassLoader> loaders;

    LoaderObjectInputStream(InputStream in, Set<ClassLoader> loaders) throws IOException {
      super(in);
      this.loaders = loaders;
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc)
        throws IOException, ClassNotFoundException {
      for (ClassLoader loader : loaders) {
        try {
          return Class.forName(desc.getName(), false, loader);
        } catch (ClassNotFoundException e) {
          // the next loader
        }
      }
      return super.resolveClass(desc);
    }
  }
}
