package io.weir.benchmarks.w8;

import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * The entry point of every JobManager and TaskManager JVM that W8 starts: {@code OrphanGuard
 * <parent-pid> <main-class> [args...]} halts this JVM as soon as the benchmark child that started
 * it is gone (even after a SIGKILL of that child, which runs no cleanup), then runs {@code
 * main-class}. It is copied alone into a directory of its own for those JVMs' class path (it must
 * stay one class file: no nested classes), so the job's classes reach them only in the job jar.
 */
public final class OrphanGuard {
  private OrphanGuard() {}

  public static void main(String[] args) throws Exception {
    long parent = Long.parseLong(args[0]);
    Thread watch =
        new Thread(
            () -> {
              while (ProcessHandle.of(parent).map(ProcessHandle::isAlive).orElse(false)) {
                try {
                  Thread.sleep(500);
                } catch (InterruptedException e) {
                  return;
                }
              }
              System.err.println("W8: the benchmark process " + parent + " is gone; halting.");
              Runtime.getRuntime().halt(3);
            },
            "w8-orphan-guard");
    watch.setDaemon(true);
    watch.start();
    Method main = Class.forName(args[1]).getMethod("main", String[].class);
    main.invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
  }
}
