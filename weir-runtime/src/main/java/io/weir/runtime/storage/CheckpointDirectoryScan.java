package io.weir.runtime.storage;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists a job's checkpoint directory and finds the files no completed checkpoint in it references
 * (orphans): files of aborted or failed checkpoints ({@code chk-<n>} without {@code _metadata}, a
 * leftover {@code _metadata.inprogress}), and files in {@code shared/} that no completed checkpoint
 * uses. {@link #scan} only reports them (what {@code weir verify --orphans} shows); {@link
 * #cleanUp} deletes them in batches and logs each with its size.
 *
 * <p>Every checkpoint whose {@code _metadata} is in the directory counts as retained, so nothing a
 * completed checkpoint needs is ever an orphan. Files of a checkpoint newer than the newest
 * completed one are never orphans either while the job may run: that checkpoint may still be in
 * progress and writing them; once the job has ended, nothing is in progress and they are orphans
 * too ({@link #cleanUp(FileSystem, String, boolean)}, as the job master does at a job's end). If a
 * {@code _metadata} cannot be read, what it references is unknown and no shared file is an orphan.
 * Names Weir does not write are reported as kept, never deleted.
 *
 * <p>Only touches the directory it is given: a job cleans up its own directory, never one it
 * resumed from. Does I/O: call it from an I/O thread, never under a lock. Thread-safe.
 */
public final class CheckpointDirectoryScan {

  private static final Logger LOG = LoggerFactory.getLogger(CheckpointDirectoryScan.class);

  private static final String METADATA = CheckpointLayout.METADATA_FILE;
  private static final String SHARED = CheckpointLayout.SHARED_DIR;

  private CheckpointDirectoryScan() {}

  /** Why a file is an orphan. */
  public enum Reason {
    /** In a {@code chk-<n>} without {@code _metadata}: an aborted or failed checkpoint. */
    INCOMPLETE_CHECKPOINT,
    /** In a completed checkpoint's directory, yet its metadata does not reference it. */
    UNREFERENCED_CHECKPOINT_FILE,
    /** In {@code shared/}, uploaded for a checkpoint that did not complete or is gone. */
    UNREFERENCED_SHARED_FILE
  }

  /**
   * A file no completed checkpoint references.
   *
   * @param relativePath its path relative to the job directory, e.g. {@code shared/7-<uuid>}
   * @param size bytes, -1 if the file system did not say
   */
  public record Orphan(String relativePath, long size, Reason reason) {}

  /**
   * A file that is not referenced but not an orphan either, and why it stays.
   *
   * @param relativePath its path relative to the job directory
   */
  public record Kept(String relativePath, String why) {}

  /**
   * What a scan found.
   *
   * @param jobDirectory the directory scanned
   * @param completedCheckpoints ids of the checkpoints with {@code _metadata}, ascending
   * @param referencedFiles relative paths of the files the completed checkpoints reference, their
   *     {@code _metadata} files included, that exist
   * @param orphans the files no completed checkpoint references; for {@link #cleanUp}, those it
   *     deleted
   * @param kept unreferenced files that are not orphans (newer than the newest completed
   *     checkpoint, unknown names, unreadable metadata)
   * @param problems metadata that could not be read, one line each
   */
  public record Report(
      URI jobDirectory,
      List<Long> completedCheckpoints,
      Set<String> referencedFiles,
      List<Orphan> orphans,
      List<Kept> kept,
      List<String> problems) {

    public Report {
      completedCheckpoints = List.copyOf(completedCheckpoints);
      referencedFiles = Set.copyOf(referencedFiles);
      orphans = List.copyOf(orphans);
      kept = List.copyOf(kept);
      problems = List.copyOf(problems);
    }

    /** The newest completed checkpoint's id, or -1 if there is none. */
    public long newestCompleted() {
      return completedCheckpoints.isEmpty()
          ? -1
          : completedCheckpoints.get(completedCheckpoints.size() - 1);
    }

    /** Bytes of the orphans whose size is known. */
    public long orphanBytes() {
      return orphans.stream().mapToLong(o -> Math.max(0, o.size())).sum();
    }
  }

  /**
   * Reports the orphans of a job's checkpoint directory; changes nothing.
   *
   * @param jobDirectory {@code <checkpoint-dir>/<job-id>}, as a URI or a local path
   * @throws IOException naming the directory if it cannot be listed
   */
  public static Report scan(URI jobDirectory) throws IOException {
    return scan(FileSystems.get(jobDirectory), FileSystems.pathOf(jobDirectory));
  }

  /**
   * Deletes the orphans of a job's checkpoint directory and logs each with its size.
   *
   * @param jobDirectory {@code <checkpoint-dir>/<job-id>}, as a URI or a local path
   * @return what was deleted, as {@link Report#orphans}
   * @throws IOException naming the directory if it cannot be listed or a delete fails
   */
  public static Report cleanUp(URI jobDirectory) throws IOException {
    return cleanUp(FileSystems.get(jobDirectory), FileSystems.pathOf(jobDirectory));
  }

  static Report cleanUp(FileSystem fs, String jobDir) throws IOException {
    return cleanUp(fs, jobDir, false);
  }

  /**
   * As {@link #cleanUp(URI)}; with {@code nothingInProgress} (the job has ended) files of
   * checkpoints newer than the newest completed one are orphans too.
   */
  static Report cleanUp(FileSystem fs, String jobDir, boolean nothingInProgress)
      throws IOException {
    Report report = scan(fs, jobDir, nothingInProgress);
    if (report.orphans().isEmpty()) {
      LOG.info("No orphaned checkpoint files in {}", report.jobDirectory());
      return report;
    }
    List<String> paths = new ArrayList<>();
    Set<String> incompleteDirs = new HashSet<>();
    for (Orphan orphan : report.orphans()) {
      paths.add(FileSystems.child(jobDir, orphan.relativePath()));
      if (orphan.reason() == Reason.INCOMPLETE_CHECKPOINT) {
        incompleteDirs.add(orphan.relativePath().substring(0, orphan.relativePath().indexOf('/')));
      }
    }
    fs.deleteFiles(paths);
    for (String dir : incompleteDirs) {
      fs.delete(FileSystems.child(jobDir, dir), true); // what is left: the directory itself
    }
    for (Orphan orphan : report.orphans()) {
      LOG.info(
          "Deleted orphaned checkpoint file {} ({} bytes): {}",
          fs.toUri(FileSystems.child(jobDir, orphan.relativePath())),
          orphan.size() < 0 ? "?" : orphan.size(),
          describe(orphan.reason()));
    }
    LOG.info(
        "Deleted {} orphaned checkpoint files ({} bytes) in {}; {} completed checkpoints kept ({})",
        report.orphans().size(),
        report.orphanBytes(),
        report.jobDirectory(),
        report.completedCheckpoints().size(),
        report.completedCheckpoints());
    return report;
  }

  private static String describe(Reason reason) {
    return switch (reason) {
      case INCOMPLETE_CHECKPOINT -> "a file of a checkpoint that never completed";
      case UNREFERENCED_CHECKPOINT_FILE -> "not referenced by its checkpoint's metadata";
      case UNREFERENCED_SHARED_FILE -> "a shared file no completed checkpoint references";
    };
  }

  static Report scan(FileSystem fs, String jobDir) throws IOException {
    return scan(fs, jobDir, false);
  }

  private static Report scan(FileSystem fs, String jobDir, boolean nothingInProgress)
      throws IOException {
    URI uri = fs.toUri(jobDir);
    List<FileSystem.DirectoryEntry> top;
    try {
      top = fs.exists(jobDir) ? fs.listEntries(jobDir) : List.of();
    } catch (FileNotFoundException e) {
      top = List.of();
    }
    // Every file, by relative path, with its size; checkpoint directories by id.
    TreeMap<String, Long> files = new TreeMap<>();
    TreeMap<Long, String> checkpointDirs = new TreeMap<>();
    List<Kept> kept = new ArrayList<>();
    for (FileSystem.DirectoryEntry entry : top) {
      Matcher m = CheckpointLayout.CHECKPOINT_DIR.matcher(entry.name());
      if (entry.directory() && m.matches()) {
        checkpointDirs.put(Long.parseLong(m.group(1)), entry.name());
      }
      if (entry.directory()) {
        listFiles(fs, FileSystems.child(jobDir, entry.name()), entry.name(), files);
      } else {
        files.put(entry.name(), entry.size());
      }
    }

    List<Long> completed = new ArrayList<>();
    Set<String> referenced = new HashSet<>();
    List<String> problems = new ArrayList<>();
    Set<String> unreadableDirs = new HashSet<>();
    for (var dir : checkpointDirs.entrySet()) {
      String name = dir.getValue();
      String metadata = name + "/" + METADATA;
      if (!files.containsKey(metadata)) {
        continue;
      }
      completed.add(dir.getKey());
      referenced.add(metadata);
      // The flight recorder's history belongs to the completed checkpoint it lies beside.
      referenced.add(name + "/" + CheckpointHistoryFormat.FILE);
      try {
        CompletedCheckpoint checkpoint =
            CheckpointLayout.readMetadata(fs, FileSystems.child(jobDir, metadata));
        // A checkpoint directory that was renamed keeps its files under its new name.
        String own = "chk-" + checkpoint.checkpointId() + "/";
        for (String path : referencedPaths(checkpoint)) {
          referenced.add(path.startsWith(own) ? name + "/" + path.substring(own.length()) : path);
        }
      } catch (IOException | RuntimeException e) {
        unreadableDirs.add(name);
        problems.add(
            fs.toUri(FileSystems.child(jobDir, metadata))
                + " cannot be read, so what it references is unknown and kept: "
                + e.getMessage());
      }
    }
    long newest = completed.isEmpty() ? -1 : completed.get(completed.size() - 1);
    // Newer than this, a checkpoint may still be writing its files.
    long inProgressAbove = nothingInProgress ? Long.MAX_VALUE : newest;

    List<Orphan> orphans = new ArrayList<>();
    for (var file : files.entrySet()) {
      String path = file.getKey();
      if (referenced.contains(path)) {
        continue;
      }
      int slash = path.indexOf('/');
      String first = slash < 0 ? path : path.substring(0, slash);
      Matcher chk = CheckpointLayout.CHECKPOINT_DIR.matcher(first);
      if (slash > 0 && chk.matches()) {
        long id = Long.parseLong(chk.group(1));
        if (id > inProgressAbove) {
          kept.add(new Kept(path, "checkpoint " + id + " may still be in progress"));
        } else if (unreadableDirs.contains(first)) {
          kept.add(new Kept(path, "the metadata of " + first + " cannot be read"));
        } else if (files.containsKey(first + "/" + METADATA)) {
          orphans.add(new Orphan(path, file.getValue(), Reason.UNREFERENCED_CHECKPOINT_FILE));
        } else {
          orphans.add(new Orphan(path, file.getValue(), Reason.INCOMPLETE_CHECKPOINT));
        }
      } else if (slash > 0 && first.equals(SHARED)) {
        String name = path.substring(slash + 1);
        Matcher shared = CheckpointLayout.SHARED_FILE.matcher(name);
        if (!shared.matches()) {
          kept.add(new Kept(path, "not a name Weir gives shared files"));
        } else if (Long.parseLong(shared.group(1)) > inProgressAbove) {
          kept.add(new Kept(path, "checkpoint " + shared.group(1) + " may still be in progress"));
        } else if (!unreadableDirs.isEmpty()) {
          kept.add(new Kept(path, "the metadata of " + unreadableDirs + " cannot be read"));
        } else {
          orphans.add(new Orphan(path, file.getValue(), Reason.UNREFERENCED_SHARED_FILE));
        }
      } else {
        kept.add(new Kept(path, "not a file of a checkpoint"));
      }
    }
    Set<String> existing = new HashSet<>(referenced);
    existing.retainAll(files.keySet());
    return new Report(uri, completed, existing, orphans, kept, problems);
  }

  /** Every file below {@code dir}, however deep, as {@code prefix/...} with its size. */
  private static void listFiles(
      FileSystem fs, String dir, String prefix, TreeMap<String, Long> files) throws IOException {
    List<FileSystem.DirectoryEntry> entries;
    try {
      entries = fs.listEntries(dir);
    } catch (FileNotFoundException e) {
      return; // deleted since its parent was listed
    }
    for (FileSystem.DirectoryEntry entry : entries) {
      String relative = prefix + "/" + entry.name();
      if (entry.directory()) {
        listFiles(fs, FileSystems.child(dir, entry.name()), relative, files);
      } else {
        files.put(relative, entry.size());
      }
    }
  }

  /** The relative paths of the files a checkpoint's handles name. */
  static Set<String> referencedPaths(CompletedCheckpoint checkpoint) {
    Set<String> paths = new HashSet<>();
    for (OperatorState operator : checkpoint.operators()) {
      for (OperatorSubtaskState subtask : operator.subtasks()) {
        for (StreamStateHandle handle : subtask.handles()) {
          if (handle instanceof StreamStateHandle.File file) {
            paths.add(file.relativePath());
          }
        }
      }
    }
    return paths;
  }
}
