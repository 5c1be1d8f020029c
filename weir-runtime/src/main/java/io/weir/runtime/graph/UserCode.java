package io.weir.runtime.graph;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;

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
    byte[] bytes = serialize(userObject, owner);
    ClassLoader loader = userObject.getClass().getClassLoader();
    try (ObjectInputStream in =
        new LoaderObjectInputStream(new ByteArrayInputStream(bytes), loader)) {
      return (T) in.readObject();
    } catch (IOException | ClassNotFoundException e) {
      throw new IllegalStateException(
          "Cannot copy the user code of '" + owner + "' for a subtask: " + e, e);
    }
  }

  /** Fails with a message naming the operator when {@code userObject} cannot be shipped. */
  public static void checkSerializable(Object userObject, String owner) {
    if (userObject != null) {
      serialize(userObject, owner);
    }
  }

  private static byte[] serialize(Object userObject, String owner) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
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

  private static final class LoaderObjectInputStream extends ObjectInputStream {
    private final ClassLoader loader;

    LoaderObjectInputStream(InputStream in, ClassLoader loader) throws IOException {
      super(in);
      this.loader = loader;
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass desc)
        throws IOException, ClassNotFoundException {
      try {
        return Class.forName(desc.getName(), false, loader);
      } catch (ClassNotFoundException e) {
        return super.resolveClass(desc);
      }
    }
  }
}
