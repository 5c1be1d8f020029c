package io.weir.api.typeutils;

/** A type could not be determined or has no usable serializer; the message says how to fix it. */
public class InvalidTypesException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InvalidTypesException(String message) {
    super(message);
  }

  public InvalidTypesException(String message, Throwable cause) {
    super(message, cause);
  }
}
