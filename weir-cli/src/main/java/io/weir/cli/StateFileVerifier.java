package io.weir.cli;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.storage.RetainedCheckpoint;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Checks the references inside a checkpoint's metadata ({@link MetadataChecks}) and verifies every
 * piece of state it references, as the runtime's {@code RestoreVerifier} does before a restore, but
 * reports every problem rather than the first: each distinct state file (canonical keyed state,
 * operator state, the native files of RocksDB checkpoints, shared ones included) is streamed
 * through its checksum through the checkpoint's own read-only storage ({@code
 * CheckpointStateReader#verifyState}), in parallel; inline state is checked in memory.
 *
 * <p>One thread at a time; owns a pool, closed by {@link #close()}.
 */
final class StateFileVerifier implements AutoCloseable {

  private static final int THREADS = 4;

  private final ExecutorService pool =
      Executors.newFixedThreadPool(
          THREADS,
          r -> {
            Thread t = new Thread(r, "weir-verify");
            t.setDaemon(true);
            return t;
          });

  /** A state file or inline state, and whose state it is. */
  private record Piece(String owner, StreamStateHandle handle) {}

  /** Every problem of {@code retained}'s state, one line each naming the file; empty if intact. */
  List<String> verify(RetainedCheckpoint retained, String name, Progress progress)
      throws InterruptedException {
    CompletedCheckpoint checkpoint = retained.checkpoint();
    Map<String, Piece> files = new LinkedHashMap<>();
    List<Piece> inline = new ArrayList<>();
    for (OperatorState op : checkpoint.operators()) {
      for (int i = 0; i < op.subtasks().size(); i++) {
        OperatorSubtaskState subtask = op.subtasks().get(i);
        String owner =
            "operator '" + op.operatorName() + "' (" + op.operatorId() + ") subtask " + i;
        for (StreamStateHandle handle : subtask.handles()) {
          if (handle instanceof StreamStateHandle.File f) {
            files.putIfAbsent(
                f.relativePath() + "|" + f.size() + "|" + f.crc32(), new Piece(owner, f));
          } else {
            inline.add(new Piece(owner, handle));
          }
        }
      }
    }
    List<String> problems = new ArrayList<>(MetadataChecks.problems(checkpoint));
    for (Piece piece : inline) {
      try {
        retained.storage().verifyState(piece.handle());
      } catch (IOException e) {
        problems.add(piece.owner() + ": " + e.getMessage());
      }
    }
    long bytes = files.values().stream().mapToLong(p -> p.handle().size()).sum();
    progress.start("verifying " + name, files.size(), bytes);
    List<Future<?>> running = new ArrayList<>();
    List<Piece> pieces = new ArrayList<>(files.values());
    for (Piece piece : pieces) {
      running.add(
          pool.submit(
              () -> {
                try {
                  retained.storage().verifyState(piece.handle());
                  return null;
                } finally {
                  progress.advance(piece.handle().size());
                }
              }));
    }
    try {
      for (int i = 0; i < running.size(); i++) {
        try {
          running.get(i).get();
        } catch (ExecutionException e) {
          problems.add(pieces.get(i).owner() + ": " + e.getCause().getMessage());
        }
      }
    } finally {
      progress.finish();
    }
    return problems;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
