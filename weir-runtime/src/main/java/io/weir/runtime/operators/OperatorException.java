package io.weir.runtime.operators;

/**
 * An exception thrown by the user code of one operator, carrying the operator's name so the task
 * can report where a failure happened. The cause is the user's original exception.
 */
public final class OperatorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String operatorName;

  public OperatorException(String operatorName, Throwable cause) {
    super("Operator '" + operatorName + "' failed: " + cause, cause);
    this.operatorName = operatorName;
  }

  public String getOperatorName() {
    return operatorName;
  }
}
