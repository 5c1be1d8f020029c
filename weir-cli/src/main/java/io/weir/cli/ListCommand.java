package io.weir.cli;

import io.weir.cluster.rest.messages.JobSummary;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code weir list}: the JobManager's jobs as {@code flink list} prints them, by start time under a
 * heading per group: {@code dd.MM.yyyy HH:mm:ss : <job id> : <name> (<STATE>)}, and for a job
 * waiting for slots {@code (RUNNING, waiting for slots: 2 of 4 subtasks)}.
 */
@Command(
    name = "list",
    mixinStandardHelpOptions = true,
    description =
        "List the jobs of the JobManager with their start times: running and scheduled ones by"
            + " default, as flink list.")
final class ListCommand implements Callable<Integer> {

  /** States of a job that has ended for good. */
  private static final Set<String> TERMINAL = Set.of("FINISHED", "FAILED", "CANCELED");

  /** States of a job not yet running: Flink lists them as scheduled. */
  private static final Set<String> SCHEDULED = Set.of("CREATED", "INITIALIZING");

  @Mixin ClientOptions client;

  @Option(
      names = {"-r", "--running"},
      description = "Only running (and restarting) jobs.")
  boolean running;

  @Option(
      names = {"-s", "--scheduled"},
      description = "Only scheduled jobs (submitted, not yet running).")
  boolean scheduled;

  @Option(
      names = {"-a", "--all"},
      description = "All jobs, finished, failed and cancelled ones too.")
  boolean all;

  @Override
  public Integer call() throws Exception {
    List<JobSummary> jobs = new ArrayList<>(client.client().jobs());
    jobs.sort(Comparator.comparingLong(JobSummary::startTime));
    boolean showRunning = running || all || (!scheduled && !all);
    boolean showScheduled = scheduled || all || (!running && !all);
    List<JobSummary> runningJobs = new ArrayList<>();
    List<JobSummary> scheduledJobs = new ArrayList<>();
    List<JobSummary> ended = new ArrayList<>();
    for (JobSummary job : jobs) {
      if (SCHEDULED.contains(job.state())) {
        scheduledJobs.add(job);
      } else if (TERMINAL.contains(job.state())) {
        ended.add(job);
      } else {
        runningJobs.add(job);
      }
    }
    if (showRunning) {
      print(runningJobs, "No running jobs.", "Running/Restarting Jobs");
    }
    if (showScheduled) {
      print(scheduledJobs, "No scheduled jobs.", "Scheduled Jobs");
    }
    if (all) {
      print(ended, "No terminated jobs.", "Terminated Jobs");
    }
    return 0;
  }

  private static void print(List<JobSummary> jobs, String none, String heading) {
    if (jobs.isEmpty()) {
      System.out.println(none);
      return;
    }
    System.out.println(heading(heading));
    SimpleDateFormat format = new SimpleDateFormat("dd.MM.yyyy HH:mm:ss");
    for (JobSummary job : jobs) {
      System.out.println(
          format.format(new Date(job.startTime()))
              + " : "
              + job.jid()
              + " : "
              + job.name()
              + " ("
              + state(job)
              + ")");
    }
    System.out.println("-".repeat(62));
  }

  /**
   * The job's state, and for a job whose subtasks wait for slots how many do: {@code RUNNING,
   * waiting for slots: 2 of 4 subtasks}. Flink says RUNNING alone until slot.request.timeout.
   */
  static String state(JobSummary job) {
    JobSummary.Tasks tasks = job.tasks();
    if (tasks == null || tasks.scheduled() == 0 || TERMINAL.contains(job.state())) {
      return job.state();
    }
    return job.state()
        + ", waiting for slots: "
        + tasks.scheduled()
        + " of "
        + tasks.total()
        + " subtasks";
  }

  /** Flink's heading: the title centred in a line of 62 dashes. */
  static String heading(String title) {
    int dashes = 62 - title.length() - 2;
    int left = dashes / 2;
    return "-".repeat(left) + " " + title + " " + "-".repeat(dashes - left);
  }
}
