package io.weir.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;

/**
 * A process started from the image's entrypoint with the unpacked image as its root file system, as
 * a container runtime starts one: in its own mount and PID namespaces, on a read-only root with
 * /proc, the host's /dev, /etc/hosts and /etc/resolv.conf and the test's volumes mounted in, as the
 * image's user, in its working directory, with exactly the image's environment (plus what a test
 * adds, as a pod's env would). So the image's own dynamic loader, C libraries and JRE run, not the
 * build machine's: what fails here for a missing library fails in a pod. The network is the host's,
 * so ports on 127.0.0.1 are reachable from the test.
 *
 * <p>Needs util-linux's {@code unshare} and the right to make namespaces and mounts: root, as the
 * build and CI run here. {@link #available} says whether this process has it.
 */
final class ImageProcess implements AutoCloseable {

  /**
   * The host-side part, in a new mount namespace: make the image's root read-only (as the
   * manifests' readOnlyRootFilesystem does), mount /dev, /etc/hosts, /etc/resolv.conf and the
   * volumes on it, then enter it with a new PID namespace, /proc, the working directory and the
   * user, and exec the entrypoint. Volumes are lines of "HOST-DIRECTORY CONTAINER-PATH".
   */
  private static final String ENTER =
      """
      set -e
      root=$1; wd=$2; uid=$3; gid=$4; volumes=$5; shift 5
      /bin/mkdir -p "$root/proc" "$root/dev" "$root/etc"
      for f in hosts resolv.conf; do
        if [ -f "/etc/$f" ]; then /bin/touch "$root/etc/$f"; fi
      done
      echo "$volumes" | while read -r host path; do
        if [ -n "$path" ]; then /bin/mkdir -p "$root$path"; fi
      done
      /bin/mount --bind "$root" "$root"
      /bin/mount -o remount,bind,ro "$root"
      /bin/mount --rbind /dev "$root/dev"
      for f in hosts resolv.conf; do
        if [ -f "/etc/$f" ]; then /bin/mount --bind "/etc/$f" "$root/etc/$f"; fi
      done
      echo "$volumes" | while read -r host path; do
        if [ -n "$path" ]; then /bin/mount --bind "$host" "$root$path"; fi
      done
      exec /usr/bin/unshare --fork --pid --mount-proc=/proc --root="$root" \
        --wd="$wd" --setuid="$uid" --setgid="$gid" -- "$@"
      """;

  final Process process;
  final Map<String, Path> volumes;
  final Path output;

  private ImageProcess(Process process, Map<String, Path> volumes, Path output) {
    this.process = process;
    this.volumes = Map.copyOf(volumes);
    this.output = output;
  }

  /** Whether this machine lets a test run processes in the image (see the class comment). */
  static boolean available() {
    try {
      Process p =
          new ProcessBuilder("/usr/bin/unshare", "--mount", "--pid", "--fork", "/bin/true")
              .redirectErrorStream(true)
              .start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Starts the image's entrypoint with {@code args} (the image's own arguments when null), the
   * image's environment and {@code env} on top, and {@code volumes} (container path to a directory
   * of the host, as a pod's volume mounts) on the read-only root; stdout and stderr go to {@code
   * output}.
   */
  static ImageProcess start(
      ImageTar.Image image,
      List<String> args,
      Map<String, String> env,
      Map<String, Path> volumes,
      Path output) {
    String[] user = image.user().isEmpty() ? new String[] {"0", "0"} : image.user().split(":");
    StringBuilder mounts = new StringBuilder();
    volumes.forEach(
        (path, host) -> {
          if ((host + path).chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("A volume path with white space: " + path + host);
          }
          mounts.append(host).append(' ').append(path).append('\n');
        });
    List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", ENTER, "enter-image"));
    command.add(image.root().toString());
    command.add(image.workingDir());
    command.add(user[0]);
    command.add(user.length > 1 ? user[1] : user[0]);
    command.add(mounts.toString());
    command.addAll(image.entrypoint());
    command.addAll(args == null ? image.cmd() : args);
    List<String> outer =
        new ArrayList<>(List.of("/usr/bin/unshare", "--mount", "--propagation", "private"));
    outer.addAll(command);
    ProcessBuilder pb =
        new ProcessBuilder(outer).redirectErrorStream(true).redirectOutput(output.toFile());
    Map<String, String> environment = pb.environment();
    environment.clear();
    Map<String, String> all = new LinkedHashMap<>(image.env());
    all.putAll(env);
    environment.putAll(all);
    try {
      ImageProcess started = new ImageProcess(pb.start(), volumes, output);
      RUNNING.add(started);
      return started;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start " + command, e);
    }
  }

  /** Runs to its end and returns its exit code; fails if it runs longer than {@code timeout}. */
  int await(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      close();
      throw new AssertionError("Still running after " + timeout + ":\n" + output());
    }
    RUNNING.remove(this);
    return process.exitValue();
  }

  String output() {
    try {
      return Files.readString(output, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The first value {@code probe} finds, asked again every 50 ms (a status file, a line of output);
   * fails at once, with the output, if the process ends first.
   */
  <T> T awaitWhileAlive(Callable<T> probe, Duration timeout) {
    AtomicReference<T> found = new AtomicReference<>();
    Awaitility.await()
        .atMost(timeout)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              T value = probe.call();
              if (value != null) {
                found.set(value);
                return true;
              }
              if (!process.isAlive()) {
                throw new AssertionError(
                    "The process ended with " + process.exitValue() + ":\n" + output());
              }
              return false;
            });
    return found.get();
  }

  /**
   * SIGKILL, as a pod killed by the kubelet or a node that dies; waits for the end. The process in
   * the image is the child of unshare, the first of its PID namespace: killing it ends everything
   * in the namespace. (unshare's --kill-child cannot do it: the parent-death signal it sets is
   * cleared when the child changes to the image's user.)
   */
  @Override
  public void close() throws InterruptedException {
    List<ProcessHandle> inImage = process.descendants().toList();
    inImage.forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
    for (ProcessHandle p : inImage) {
      try {
        p.onExit().get(30, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException("Process " + p.pid() + " in the image did not end", e);
      }
    }
    RUNNING.remove(this);
  }

  /** What the tests started and have not closed: killed when the test JVM exits. */
  private static final java.util.Set<ImageProcess> RUNNING =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (ImageProcess p : List.copyOf(RUNNING)) {
                    try {
                      p.close();
                    } catch (InterruptedException | RuntimeException e) {
                      // the JVM is going away
                    }
                  }
                }));
  }
}
