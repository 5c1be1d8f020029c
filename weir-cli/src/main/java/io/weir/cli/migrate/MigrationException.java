package io.weir.cli.migrate;

/** A migration that cannot go on: the message names the file (and line) at fault. */
public final class MigrationException extends RuntimeException {
  public MigrationException(String message) {
    super(message);
  }
}
