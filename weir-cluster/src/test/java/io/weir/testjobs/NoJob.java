package io.weir.testjobs;

/** A program that returns without executing a job. */
public final class NoJob {

  private NoJob() {}

  public static void main(String[] args) {
    System.out.println("nothing to do");
  }
}
