package io.weir.runtime.testing.matrix;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One cell of the declared test matrix: a state backend, a checkpoint mode and an alignment, as the
 * system properties every {@code StreamEnvironment} (and the operator harness) of a test reads. The
 * cells marked default run in every build, each in the module that brings its backend; the others
 * run with {@code -Dweir.test.matrix.full=true}.
 */
public enum MatrixCell {
  /** The heap backend, aligned checkpoints: weir-runtime's own run, with no property set. */
  HEAP("heap", true, Map.of()),
  /** The heap backend with unaligned checkpoints. */
  HEAP_UNALIGNED("heap", false, Map.of(Keys.UNALIGNED, "true")),
  /** RocksDB with incremental checkpoints and the write cache at its default size. */
  ROCKSDB_INCREMENTAL("rocksdb", true, Map.of(Keys.BACKEND, "rocksdb", Keys.INCREMENTAL, "true")),
  /**
   * RocksDB with full checkpoints and a write cache of one entry: every other access evicts, so the
   * tests also run the cache's eviction path.
   */
  ROCKSDB_FULL(
      "rocksdb",
      true,
      Map.of(
          Keys.BACKEND,
          "rocksdb",
          Keys.INCREMENTAL,
          "false",
          "state.backend.rocksdb.write-cache.size",
          "1")),
  /** RocksDB, incremental, with unaligned checkpoints. */
  ROCKSDB_INCREMENTAL_UNALIGNED(
      "rocksdb",
      false,
      Map.of(Keys.BACKEND, "rocksdb", Keys.INCREMENTAL, "true", Keys.UNALIGNED, "true"));

  private final String backend;
  private final boolean runsByDefault;
  private final Map<String, String> properties;

  MatrixCell(String backend, boolean runsByDefault, Map<String, String> properties) {
    this.backend = backend;
    this.runsByDefault = runsByDefault;
    this.properties = properties;
  }

  /** The backend, as {@code state.backend.type} names it. */
  public String backend() {
    return backend;
  }

  boolean runsByDefault() {
    return runsByDefault;
  }

  /**
   * The cell's settings, as the system properties a test runs with: only what differs from a job's
   * defaults, so that what a test sets itself (programmatically) still applies.
   */
  public Map<String, String> systemProperties() {
    return properties;
  }

  /**
   * The cells a run selects: {@code selection} names backends or cells, comma-separated ({@code
   * heap}, {@code rocksdb}, {@code ROCKSDB_FULL}; {@code all} for every backend); {@code full} adds
   * the cells that do not run by default.
   *
   * @throws IllegalArgumentException naming a word that is neither a backend nor a cell
   */
  static List<MatrixCell> select(String selection, boolean full) {
    List<String> words =
        Arrays.stream(selection.split(",")).map(String::trim).filter(w -> !w.isEmpty()).toList();
    for (String word : words) {
      boolean known =
          word.equals("all")
              || Arrays.stream(values())
                  .anyMatch(c -> c.backend.equals(word) || c.name().equals(word));
      if (!known) {
        throw new IllegalArgumentException(
            "weir.test.matrix: '"
                + word
                + "' is neither a backend nor a cell; give some of all, heap, rocksdb, "
                + Arrays.toString(values()));
      }
    }
    return Arrays.stream(values())
        .filter(c -> words.contains("all") || words.contains(c.backend) || words.contains(c.name()))
        .filter(c -> full || c.runsByDefault || words.contains(c.name()))
        .toList();
  }

  /** The keys the cells set. */
  private static final class Keys {
    static final String BACKEND = "state.backend.type";
    static final String INCREMENTAL = "execution.checkpointing.incremental";
    static final String UNALIGNED = "execution.checkpointing.unaligned.enabled";
  }
}
