package io.weir.runtime.recovery;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.CorruptCheckpointException;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.storage.CheckpointStateReader;
import io.weir.runtime.storage.DamagedStateException;
import io.weir.runtime.storage.StreamStateHandle;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Checks, before any task is deployed, that a checkpoint can be restored by a job, so that a bad
 * checkpoint is found once, up front, and not by every task of every attempt:
 *
 * <ul>
 *   <li>the job's state backend can read the kind of every keyed state handle;
 *   <li>every state file a restore needs is there and matches its size and checksum: canonical
 *       keyed state, operator state, and the native files of incremental and native full RocksDB
 *       checkpoints, shared ones included, are verified in parallel, each distinct file once, by
 *       streaming it through a checksum (the job master keeps no state bytes: each task reads its
 *       own share afterwards). A file verified once is not read again by a later restore: state
 *       files are immutable.
 * </ul>
 *
 * A checkpoint that cannot be restored — a file missing or not matching its checksum ({@link
 * DamagedStateException}), a kind of state the backend cannot read — is reported with a {@link
 * CorruptCheckpointException} whose message names the checkpoint, the operator and the file, so the
 * caller can fall back to an older one. A read that fails otherwise (a timeout, a refused
 * connection, an interrupt) says nothing about the checkpoint: it is reported as a plain {@link
 * IOException}, and the caller tries the same checkpoint again later.
 *
 * <p>Used from one thread at a time (the job's); the parallel checks run on a pool of its own.
 */
public final class RestoreVerifier implements AutoCloseable {

  private static final int THREADS = 4;

  private final Map<String, String> operatorNames;
  private final KeyedStateBackendFactory backend;
  private final Set<String> verifiedFiles = ConcurrentHashMap.newKeySet();
  private ExecutorService pool;

  /**
   * @param operatorNames the job's operators, by id: only their state is restored
   * @param backend the job's keyed state backend
   */
  public RestoreVerifier(Map<String, String> operatorNames, KeyedStateBackendFactory backend) {
    this.operatorNames = Map.copyOf(operatorNames);
    this.backend = backend;
  }

  /**
   * Verifies {@code checkpoint}, read through {@code from}: the backend can read its keyed state,
   * and every file of the job's operators' state is there and intact.
   *
   * @throws CorruptCheckpointException when it cannot be restored, naming checkpoint, operator and
   *     file
   * @throws IOException when a file could not be read, though it may well be intact: try again
   */
  public void verify(CompletedCheckpoint checkpoint, CheckpointStateReader from)
      throws IOException {
    long id = checkpoint.checkpointId();
    List<FileCheck> files = new ArrayList<>();
    for (OperatorState op : checkpoint.operators()) {
      if (!operatorNames.containsKey(op.operatorId())) {
        continue;
      }
      for (OperatorSubtaskState subtask : op.subtasks()) {
        if (subtask.keyed() != null) {
          String problem = backend.restoreProblem(subtask.keyed(), op.operatorName(), id);
          if (problem != null) {
            throw new CorruptCheckpointException(id, problem, null);
          }
        }
        for (StreamStateHandle handle : subtask.handles()) {
          files.add(new FileCheck(op.operatorName(), handle));
        }
      }
    }
    verifyFiles(id, files, from);
  }

  /** One file to verify and the operator whose state it holds. */
  private record FileCheck(String operatorName, StreamStateHandle handle) {}

  private void verifyFiles(long id, List<FileCheck> files, CheckpointStateReader from)
      throws IOException {
    Map<String, FileCheck> distinct = new LinkedHashMap<>();
    for (FileCheck f : files) {
      String key = key(from, f.handle());
      if (key == null) {
        try {
          from.verifyState(f.handle()); // inline: a checksum over bytes already in memory
        } catch (IOException e) {
          throw failure(id, f.operatorName(), e);
        }
      } else if (!verifiedFiles.contains(key)) {
        distinct.putIfAbsent(key, f);
      }
    }
    if (distinct.isEmpty()) {
      return;
    }
    if (pool == null) {
      pool =
          Executors.newFixedThreadPool(
              THREADS,
              r -> {
                Thread t = new Thread(r, "weir-restore-verifier");
                t.setDaemon(true);
                return t;
              });
    }
    Map<String, Future<?>> running = new LinkedHashMap<>();
    distinct.forEach(
        (key, f) ->
            running.put(
                key,
                pool.submit(
                    () -> {
                      from.verifyState(f.handle());
                      return null;
                    })));
    // Damage wins over a failed read: a checkpoint with a damaged file is corrupt, whatever else
    // could not be read meanwhile.
    CorruptCheckpointException corrupt = null;
    IOException failed = null;
    for (Map.Entry<String, Future<?>> e : running.entrySet()) {
      try {
        e.getValue().get();
        verifiedFiles.add(e.getKey());
      } catch (ExecutionException ex) {
        IOException f = failure(id, distinct.get(e.getKey()).operatorName(), ex.getCause());
        if (f instanceof CorruptCheckpointException c) {
          corrupt = corrupt == null ? c : corrupt;
        } else {
          failed = failed == null ? f : failed;
        }
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        InterruptedIOException interrupted =
            new InterruptedIOException(
                "Checkpoint " + id + ": verifying its state files was interrupted");
        interrupted.initCause(ex);
        throw interrupted;
      }
    }
    if (corrupt != null) {
      throw corrupt;
    }
    if (failed != null) {
      throw failed;
    }
  }

  /**
   * What a failed check of a file of checkpoint {@code id} means: a {@link
   * CorruptCheckpointException} for a missing or damaged file, otherwise an {@link IOException}
   * that says the read failed and the checkpoint is tried again.
   */
  private static IOException failure(long id, String operatorName, Throwable cause) {
    if (cause instanceof DamagedStateException) {
      return new CorruptCheckpointException(id, message(id, operatorName, cause), cause);
    }
    return new IOException(
        message(id, operatorName, cause)
            + " (a failed read, not a damaged file: the same checkpoint is tried again)",
        cause);
  }

  /** Identifies a file for "verified once": its place and its checksum; null for inline state. */
  private static String key(CheckpointStateReader from, StreamStateHandle handle) {
    return handle instanceof StreamStateHandle.File f
        ? from + "|" + f.relativePath() + "|" + f.size() + "|" + f.crc32()
        : null;
  }

  private static String message(long id, String operatorName, Throwable cause) {
    return "Checkpoint "
        + id
        + ": the state of operator '"
        + operatorName
        + "' cannot be restored: "
        + cause.getMessage();
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
