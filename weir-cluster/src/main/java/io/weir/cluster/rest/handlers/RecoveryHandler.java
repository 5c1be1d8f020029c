package io.weir.cluster.rest.handlers;

import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.JobRecovery;
import io.weir.runtime.graph.JobVertex;
import io.weir.runtime.jobmaster.SubtaskStatus;
import io.weir.runtime.metrics.RestoreProgress;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /jobs/:jobid/recovery}: how far the restore of the job's current attempt has come,
 * sampled from the TaskManagers at each call as the vertices' counters are ({@link
 * VertexHandlers#subtasks}).
 */
final class RecoveryHandler extends DispatcherGet {

  RecoveryHandler(Dispatcher dispatcher) {
    super(dispatcher, "/jobs/:jobid/recovery");
  }

  @Override
  public JobRecovery handle(RestRequest request) {
    Dispatcher.Job job = JobLookup.find(dispatcher, request.pathParameter("jobid"));
    List<JobVertex> vertices = job.master().graph().vertices();
    List<JobRecovery.Subtask> subtasks = new ArrayList<>();
    List<RestoreProgress.Sample> samples = new ArrayList<>();
    for (SubtaskStatus s : VertexHandlers.subtasks(job)) {
      RestoreProgress.Sample restore = s.restore();
      if (restore == null) {
        continue;
      }
      samples.add(restore);
      subtasks.add(
          new JobRecovery.Subtask(
              String.valueOf(s.vertex()),
              vertices.get(s.vertex()).getName(),
              s.subtask(),
              s.status(),
              s.taskManagerId(),
              JobRecovery.Progress.of(restore)));
    }
    if (samples.isEmpty()) {
      return new JobRecovery("NONE", null, null, List.of());
    }
    JobRecovery.Progress total = JobRecovery.Progress.together(samples);
    return new JobRecovery(
        total.done() ? "RESTORED" : "RESTORING", samples.get(0).checkpointId(), total, subtasks);
  }
}
