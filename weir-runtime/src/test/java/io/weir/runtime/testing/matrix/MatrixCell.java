package io.weir.runtime.testing.matrix;

import io.weir.api.config.CheckpointingOptions;
import io.weir.runtime.state.KeyedStateBackends;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One cell of the declared test matrix: a state backend, a checkpoint mode, an alignment and a
 * {@link Deployment}, as the system properties every {@code StreamEnvironment} (and the operator
 * harness) of a test reads. The cells marked default run in every build, each in the module that
 * brings its backend or deployment; the others run with {@code -Dweir.test.matrix.full=true}.
 */
public enum MatrixCell {
  /** The heap backend, aligned checkpoints: weir-runtime's own run, with no property set. */
  HEAP(Backend.HEAP, Checkpoints.FULL, Alignment.ALIGNED, Deployment.LOCAL, Runs.BY_DEFAULT),
  /** The heap backend with unaligned checkpoints. */
  HEAP_UNALIGNED(
      Backend.HEAP, Checkpoints.FULL, Alignment.UNALIGNED, Deployment.LOCAL, Runs.IN_FULL),
  /** RocksDB with incremental checkpoints and the write cache at its default size. */
  ROCKSDB_INCREMENTAL(
      Backend.ROCKSDB,
      Checkpoints.INCREMENTAL,
      Alignment.ALIGNED,
      Deployment.LOCAL,
      Runs.BY_DEFAULT),
  /**
   * RocksDB with full checkpoints and a write cache of one entry: every other access evicts, so the
   * tests also run the cache's eviction path.
   */
  ROCKSDB_FULL(
      Backend.ROCKSDB,
      Checkpoints.FULL,
      Alignment.ALIGNED,
      Deployment.LOCAL,
      Runs.BY_DEFAULT,
      Map.of("state.backend.rocksdb.write-cache.size", "1")),
  /** RocksDB, incremental, with unaligned checkpoints. */
  ROCKSDB_INCREMENTAL_UNALIGNED(
      Backend.ROCKSDB,
      Checkpoints.INCREMENTAL,
      Alignment.UNALIGNED,
      Deployment.LOCAL,
      Runs.IN_FULL),
  /**
   * The heap backend, aligned, each job on a fresh mini cluster of two TaskManagers: a job of
   * parallelism 2 or more has subtasks on both, so its exchanges cross TCP.
   */
  HEAP_MINI_CLUSTER(
      Backend.HEAP, Checkpoints.FULL, Alignment.ALIGNED, Deployment.MINI_CLUSTER, Runs.BY_DEFAULT),
  /** RocksDB, incremental, aligned, on a mini cluster of two TaskManagers. */
  ROCKSDB_INCREMENTAL_MINI_CLUSTER(
      Backend.ROCKSDB,
      Checkpoints.INCREMENTAL,
      Alignment.ALIGNED,
      Deployment.MINI_CLUSTER,
      Runs.IN_FULL);

  /** The state backends, as {@code weir.test.matrix} names them. */
  private enum Backend {
    /** The hashmap backend, the default: its checkpoints are always full. */
    HEAP,
    /** The embedded RocksDB backend, which weir-state-rocksdb brings. */
    ROCKSDB
  }

  /** What a checkpoint writes. */
  private enum Checkpoints {
    /** All of a subtask's state. */
    FULL,
    /** What changed since the previous checkpoint (RocksDB only). */
    INCREMENTAL
  }

  /** How barriers pass a task with several inputs. */
  private enum Alignment {
    /** Barriers are aligned: the default. */
    ALIGNED,
    /** Barriers overtake buffered records, which the checkpoint stores. */
    UNALIGNED
  }

  /** Whether a cell runs in every build or with {@code -Dweir.test.matrix.full=true}. */
  private enum Runs {
    /** In every build, in the module that brings the cell's backend or deployment. */
    BY_DEFAULT,
    /** Only with {@code -Dweir.test.matrix.full=true}, or when named. */
    IN_FULL
  }

  private final Backend backend;
  private final Deployment deployment;
  private final boolean runsByDefault;
  private final Map<String, String> properties;

  MatrixCell(
      Backend backend,
      Checkpoints checkpoints,
      Alignment alignment,
      Deployment deployment,
      Runs runs) {
    this(backend, checkpoints, alignment, deployment, runs, Map.of());
  }

  MatrixCell(
      Backend backend,
      Checkpoints checkpoints,
      Alignment alignment,
      Deployment deployment,
      Runs runs,
      Map<String, String> more) {
    if (backend == Backend.HEAP && checkpoints == Checkpoints.INCREMENTAL) {
      throw new IllegalArgumentException(
          name() + ": the heap backend writes full checkpoints only");
    }
    this.backend = backend;
    this.deployment = deployment;
    this.runsByDefault = runs == Runs.BY_DEFAULT;
    Map<String, String> p = new LinkedHashMap<>();
    if (backend == Backend.ROCKSDB) {
      p.put(Keys.BACKEND, "rocksdb");
      p.put(Keys.INCREMENTAL, String.valueOf(checkpoints == Checkpoints.INCREMENTAL));
    }
    if (alignment == Alignment.UNALIGNED) {
      p.put(Keys.UNALIGNED, "true");
    }
    if (deployment != Deployment.LOCAL) {
      p.put(Deployment.PROPERTY, deployment.word());
    }
    p.putAll(more);
    this.properties = Collections.unmodifiableMap(p);
  }

  /** The backend, as {@code state.backend.type} names it (and {@code heap} for hashmap). */
  public String backend() {
    return word(backend);
  }

  /** Where the cell's jobs run. */
  public Deployment deployment() {
    return deployment;
  }

  boolean runsByDefault() {
    return runsByDefault;
  }

  /**
   * Why this cell cannot run in this module's tests (its backend or its deployment is not on the
   * test class path, so a selection naming it across modules runs it where it can); empty if it
   * can.
   */
  Optional<String> whyNotHere() {
    if (backend == Backend.ROCKSDB) {
      try {
        KeyedStateBackends.factory(CheckpointingOptions.BACKEND_ROCKSDB);
      } catch (IllegalArgumentException e) {
        return Optional.of(
            name() + " runs where the rocksdb backend is: weir-state-rocksdb and weir-cluster");
      }
    }
    if (!deployment.isAvailable()) {
      return Optional.of(
          name()
              + " runs where the "
              + deployment.word()
              + " deployment is: weir-cluster (-Dweir.test.matrix="
              + name()
              + ")");
    }
    return Optional.empty();
  }

  /**
   * The cell's settings, as the system properties a test runs with: only what differs from a job's
   * defaults, so that what a test sets itself (programmatically) still applies.
   */
  public Map<String, String> systemProperties() {
    return properties;
  }

  /**
   * The cells a run selects. {@code selection} is comma-separated words: backends ({@code heap},
   * {@code rocksdb}; {@code all} for every backend), deployments ({@code local}, {@code
   * mini-cluster}) and cells ({@code ROCKSDB_FULL}). Backends and deployments narrow each other:
   * {@code heap,mini-cluster} is the heap cells on the mini cluster, {@code mini-cluster} every
   * backend's, and a selection naming no deployment means local execution. A named cell runs
   * always; of the others, {@code full} adds those that do not run by default.
   *
   * @throws IllegalArgumentException naming a word that is neither a backend, a deployment nor a
   *     cell
   */
  static List<MatrixCell> select(String selection, boolean full) {
    List<String> words =
        Arrays.stream(selection.split(",")).map(String::trim).filter(w -> !w.isEmpty()).toList();
    Set<Backend> backends = EnumSet.noneOf(Backend.class);
    Set<Deployment> deployments = EnumSet.noneOf(Deployment.class);
    Set<MatrixCell> named = EnumSet.noneOf(MatrixCell.class);
    for (String word : words) {
      if (word.equals("all")) {
        backends.addAll(EnumSet.allOf(Backend.class));
      } else if (Arrays.stream(Backend.values()).anyMatch(b -> word(b).equals(word))) {
        backends.add(Backend.valueOf(word.toUpperCase(Locale.ROOT)));
      } else if (Deployment.forWord(word).isPresent()) {
        deployments.add(Deployment.forWord(word).get());
      } else if (Arrays.stream(values()).anyMatch(c -> c.name().equals(word))) {
        named.add(valueOf(word));
      } else {
        throw new IllegalArgumentException(
            "weir.test.matrix: '"
                + word
                + "' is neither a backend, a deployment nor a cell; give some of all, heap,"
                + " rocksdb, local, mini-cluster, "
                + Arrays.toString(values()));
      }
    }
    boolean byDimensions = !backends.isEmpty() || !deployments.isEmpty();
    return Arrays.stream(values())
        .filter(
            c ->
                named.contains(c)
                    || byDimensions
                        && (backends.isEmpty() || backends.contains(c.backend))
                        && (deployments.isEmpty()
                            ? c.deployment == Deployment.LOCAL
                            : deployments.contains(c.deployment))
                        && (full || c.runsByDefault))
        .toList();
  }

  private static String word(Backend backend) {
    return backend.name().toLowerCase(Locale.ROOT);
  }

  /** The keys the cells set. */
  private static final class Keys {
    static final String BACKEND = "state.backend.type";
    static final String INCREMENTAL = "execution.checkpointing.incremental";
    static final String UNALIGNED = "execution.checkpointing.unaligned.enabled";
  }
}
