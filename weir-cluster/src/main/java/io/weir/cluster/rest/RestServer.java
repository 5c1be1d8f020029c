package io.weir.cluster.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.multipart.FileUpload;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.netty.handler.codec.http.multipart.InterfaceHttpData;
import io.weir.api.CheckpointStatistics;
import io.weir.api.JobExecutionException;
import io.weir.api.JobStatus;
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.jobmanager.ClusterGateway;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.jobmanager.TaskManagerRegistry;
import io.weir.cluster.rpc.Messages;
import io.weir.cluster.rpc.Secrets;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's REST API, JSON over HTTP on Netty, with Flink's paths and field names where the
 * concept is the same: {@code POST /jars/upload}, {@code POST /jars/:id/run}, {@code GET /jobs},
 * {@code GET /jobs/:id}, {@code GET /jobs/:id/exceptions}, {@code GET /jobs/:id/checkpoints},
 * {@code PATCH /jobs/:id} or {@code POST /jobs/:id/cancel}, {@code POST /jobs/:id/savepoints},
 * {@code POST /jobs/:id/stop} and {@code GET /jobs/:id/savepoints/:triggerid} (asynchronous, as
 * Flink's: the POST answers a {@code request-id} to poll), {@code GET /taskmanagers}. With a secret
 * configured, every call that changes something must send it in the {@code weir-secret} header.
 */
public final class RestServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RestServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX_UPLOAD = 512 << 20;

  private final Dispatcher dispatcher;
  private final TaskManagerRegistry registry;
  private final String secret;
  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final ExecutorService handlers =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "weir-rest");
            t.setDaemon(true);
            return t;
          });
  private final Channel channel;

  /** Savepoints and stops triggered through this API, by job id and trigger id. */
  private final Map<String, Trigger> savepointTriggers = new ConcurrentHashMap<>();

  /**
   * A savepoint or stop triggered through this API: its outcome, and whether a client has been sent
   * that outcome (the local session cluster of {@code weir run} serves until it has).
   */
  private record Trigger(
      String jobId, CompletableFuture<String> savepoint, CompletableFuture<Void> answered) {}

  /** A body to answer with, and what to run once it has been written to the client. */
  private record AnswerThen(Object body, Runnable written) {}

  public RestServer(
      Dispatcher dispatcher, TaskManagerRegistry registry, String secret, String host, int port)
      throws InterruptedException {
    this.dispatcher = dispatcher;
    this.registry = registry;
    this.secret = secret;
    warmUpJson();
    this.channel =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new HttpServerCodec())
                        .addLast(new HttpObjectAggregator(MAX_UPLOAD))
                        .addLast(new Handler());
                  }
                })
            .bind(host, port)
            .sync()
            .channel();
  }

  /**
   * Jackson builds its serializers and parsers on first use, about 45 ms on a cold JVM, which fell
   * on a client's first request (the jar upload, before a first job): built at start-up instead.
   */
  private static void warmUpJson() {
    try {
      JSON.readTree(JSON.writeValueAsBytes(Map.of("jobs", List.of(Map.of("id", "", "n", 0L)))));
    } catch (IOException e) {
      throw new IllegalStateException("Cannot serialize JSON", e);
    }
  }

  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully().syncUninterruptibly();
    handlers.shutdownNow();
  }

  /** An error to answer with a status code and a message naming what is wrong. */
  static final class RestException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final HttpResponseStatus status;

    RestException(HttpResponseStatus status, String message) {
      super(message);
      this.status = status;
    }
  }

  private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      request.retain();
      handlers.execute(
          () -> {
            try {
              Object answer = route(ctx, request);
              if (answer instanceof AnswerThen then) {
                respond(ctx, request, HttpResponseStatus.OK, then.body())
                    .addListener(written -> then.written().run());
              } else {
                respond(ctx, request, HttpResponseStatus.OK, answer);
              }
            } catch (RestException e) {
              respond(ctx, request, e.status, Map.of("errors", List.of(e.getMessage())));
            } catch (Dispatcher.NoSuchJobException e) {
              respond(
                  ctx,
                  request,
                  HttpResponseStatus.NOT_FOUND,
                  Map.of("errors", List.of(e.getMessage())));
            } catch (IllegalArgumentException e) {
              respond(
                  ctx,
                  request,
                  HttpResponseStatus.BAD_REQUEST,
                  Map.of("errors", List.of(describe(e))));
            } catch (Exception e) {
              LOG.warn("REST call {} {} failed", request.method(), request.uri(), e);
              respond(
                  ctx,
                  request,
                  HttpResponseStatus.INTERNAL_SERVER_ERROR,
                  Map.of("errors", List.of(describe(e))));
            } finally {
              request.release();
            }
          });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.warn(
          "Closing the REST connection from {}: {}",
          ctx.channel().remoteAddress(),
          cause.toString());
      var unused = ctx.close();
    }
  }

  private static String describe(Throwable e) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      if (messages.stream().noneMatch(x -> x.contains(m))) {
        messages.add(m);
      }
    }
    return String.join("; caused by: ", messages);
  }

  private ChannelFuture respond(
      ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus status, Object body) {
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      bytes = ("{\"errors\":[\"" + e.getMessage() + "\"]}").getBytes(StandardCharsets.UTF_8);
      status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    if (keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      return ctx.writeAndFlush(response);
    }
    return ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }

  private Object route(ChannelHandlerContext ctx, FullHttpRequest request) throws Exception {
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    String[] path =
        com.google.common.base.Splitter.on('/')
            .omitEmptyStrings()
            .splitToList(uri.path())
            .toArray(String[]::new);
    HttpMethod method = request.method();
    if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
      String presented = request.headers().get(Secrets.HEADER);
      if (!Secrets.matches(secret, presented)) {
        LOG.warn(
            "Refused REST call {} {} from {}: it did not present the cluster's secret ({})",
            method,
            uri.path(),
            ctx.channel().remoteAddress(),
            ClusterOptions.SECRET.key());
        throw new RestException(
            HttpResponseStatus.UNAUTHORIZED,
            "Wrong or missing cluster secret: send it in the " + Secrets.HEADER + " header");
      }
    }
    String p0 = path.length > 0 ? path[0] : "";
    if (method.equals(HttpMethod.POST)
        && path.length == 2
        && p0.equals("jars")
        && path[1].equals("upload")) {
      return upload(request);
    }
    if (method.equals(HttpMethod.POST)
        && path.length == 3
        && p0.equals("jars")
        && path[2].equals("run")) {
      return run(path[1], request);
    }
    if (method.equals(HttpMethod.GET) && path.length == 1 && p0.equals("jobs")) {
      List<Object> jobs = new ArrayList<>();
      for (Dispatcher.Job job : dispatcher.jobs()) {
        jobs.add(Map.of("id", job.id(), "status", job.status().name()));
      }
      return Map.of("jobs", jobs);
    }
    if (method.equals(HttpMethod.GET)
        && path.length == 2
        && p0.equals("jobs")
        && path[1].equals("overview")) {
      List<Object> jobs = new ArrayList<>();
      for (Dispatcher.Job job : dispatcher.jobs()) {
        jobs.add(summary(job));
      }
      return Map.of("jobs", jobs);
    }
    if (p0.equals("jobs") && path.length >= 2) {
      Dispatcher.Job job = dispatcher.job(path[1]);
      if (method.equals(HttpMethod.GET) && path.length == 2) {
        Map<String, Object> detail = summary(job);
        detail.put("exceptions", exceptions(job));
        return detail;
      }
      if (method.equals(HttpMethod.GET) && path.length == 3 && path[2].equals("exceptions")) {
        return exceptions(job);
      }
      if (method.equals(HttpMethod.GET) && path.length == 3 && path[2].equals("checkpoints")) {
        return checkpoints(job);
      }
      if (method.equals(HttpMethod.POST) && path.length == 3 && path[2].equals("savepoints")) {
        JsonNode body = jsonBody(request);
        String dir = body.path("target-directory").asText(null);
        boolean cancelJob = body.path("cancel-job").asBoolean(false);
        LOG.info(
            "Savepoint of job '{}' ({}) into {} on request of {}",
            job.name(),
            job.id(),
            dir == null ? "the default savepoint directory" : dir,
            ctx.channel().remoteAddress());
        CompletableFuture<String> savepoint = job.master().triggerSavepoint(dir);
        if (cancelJob) {
          savepoint =
              savepoint.thenCompose(location -> job.master().cancel().thenApply(v -> location));
        }
        return Map.of("request-id", registerTrigger(job.id(), savepoint));
      }
      if (method.equals(HttpMethod.POST) && path.length == 3 && path[2].equals("stop")) {
        JsonNode body = jsonBody(request);
        String dir = body.path("targetDirectory").asText(null);
        boolean drain = body.path("drain").asBoolean(false);
        LOG.info(
            "Stopping job '{}' ({}) with a savepoint{} on request of {}",
            job.name(),
            job.id(),
            drain ? " and drain" : "",
            ctx.channel().remoteAddress());
        return Map.of(
            "request-id", registerTrigger(job.id(), job.master().stopWithSavepoint(dir, drain)));
      }
      if (method.equals(HttpMethod.GET) && path.length == 4 && path[2].equals("savepoints")) {
        return savepointStatus(job, path[3]);
      }
      boolean cancel =
          (method.equals(HttpMethod.PATCH) && path.length == 2)
              || (method.equals(HttpMethod.POST) && path.length == 3 && path[2].equals("cancel"));
      if (cancel) {
        LOG.info(
            "Cancelling job '{}' ({}) on request of {}",
            job.name(),
            job.id(),
            ctx.channel().remoteAddress());
        var unused = job.master().cancel();
        return Map.of("jobid", job.id(), "status", "CANCELLING");
      }
    }
    if (method.equals(HttpMethod.GET) && path.length == 1 && p0.equals("taskmanagers")) {
      List<Object> tms = new ArrayList<>();
      for (TaskManagerRegistry.TaskManager tm : registry.taskManagers()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", tm.id());
        m.put("path", tm.address());
        m.put("slotsNumber", tm.slots());
        m.put("freeSlots", tm.freeSlots());
        List<String> tasks = new ArrayList<>();
        tm.status().getRunningList().forEach(t -> tasks.add(Messages.fromProto(t).toString()));
        m.put("tasks", tasks);
        m.put("loadedJobs", List.copyOf(tm.status().getLoadedJobsList()));
        m.put("outputBuffers", tm.status().getOutputBuffers());
        m.put("outputBufferBytes", tm.status().getOutputBuffers() * tm.status().getBufferSize());
        tms.add(m);
      }
      return Map.of("taskmanagers", tms);
    }
    throw new RestException(
        HttpResponseStatus.NOT_FOUND, "No REST handler for " + method + " " + uri.path());
  }

  private Map<String, Object> upload(FullHttpRequest request) throws IOException {
    String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
    String id;
    if (contentType.startsWith("multipart/form-data")) {
      HttpPostRequestDecoder decoder = new HttpPostRequestDecoder(request);
      try {
        FileUpload file = null;
        for (InterfaceHttpData data : decoder.getBodyHttpDatas()) {
          if (data instanceof FileUpload f) {
            file = f;
            break;
          }
        }
        if (file == null) {
          throw new IllegalArgumentException(
              "The upload holds no file part (use the field 'jarfile')");
        }
        try (InputStream in = new ByteBufInputStream(file.getByteBuf().retainedDuplicate(), true)) {
          id = dispatcher.upload(in, file.getFilename());
        }
      } finally {
        decoder.destroy();
      }
    } else {
      try (InputStream in = new ByteBufInputStream(request.content().retainedDuplicate(), true)) {
        id = dispatcher.upload(in, "request body");
      }
    }
    return Map.of("filename", id + ".jar", "id", id, "status", "success");
  }

  private static JsonNode jsonBody(FullHttpRequest request) throws IOException {
    String body = request.content().toString(StandardCharsets.UTF_8);
    return body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
  }

  private String registerTrigger(String jobId, CompletableFuture<String> savepoint) {
    String triggerId = UUID.randomUUID().toString().replace("-", "");
    savepointTriggers.put(
        jobId + "/" + triggerId, new Trigger(jobId, savepoint, new CompletableFuture<>()));
    return triggerId;
  }

  /**
   * Completes once every savepoint or stop triggered so far for the job has ended and its outcome
   * has been written to a client that asked for it: a client polling for the savepoint of a stop
   * gets its answer even though the job has ended.
   */
  public CompletableFuture<Void> savepointOutcomesSent(String jobId) {
    return CompletableFuture.allOf(
        savepointTriggers.values().stream()
            .filter(t -> t.jobId().equals(jobId))
            .map(Trigger::answered)
            .toArray(CompletableFuture[]::new));
  }

  /**
   * Flink's answer for an asynchronous savepoint operation: {@code {"status": {"id":
   * "IN_PROGRESS"}}}, or {@code COMPLETED} with {@code operation.location} or {@code
   * operation.failure-cause}.
   */
  private Object savepointStatus(Dispatcher.Job job, String triggerId) {
    Trigger trigger = savepointTriggers.get(job.id() + "/" + triggerId);
    if (trigger == null) {
      throw new RestException(
          HttpResponseStatus.NOT_FOUND,
          "No savepoint with trigger id " + triggerId + " for job " + job.id());
    }
    CompletableFuture<String> savepoint = trigger.savepoint();
    Map<String, Object> answer = new LinkedHashMap<>();
    if (!savepoint.isDone()) {
      answer.put("status", Map.of("id", "IN_PROGRESS"));
      return answer;
    }
    answer.put("status", Map.of("id", "COMPLETED"));
    try {
      answer.put("operation", Map.of("location", savepoint.join()));
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      answer.put(
          "operation",
          Map.of(
              "failure-cause",
              Map.of("class", cause.getClass().getName(), "stack-trace", describe(cause))));
    }
    return new AnswerThen(answer, () -> trigger.answered().complete(null));
  }

  private Map<String, Object> run(String jarId, FullHttpRequest request) throws Exception {
    String body = request.content().toString(StandardCharsets.UTF_8);
    JsonNode json = body.isBlank() ? JSON.createObjectNode() : JSON.readTree(body);
    String entryClass = json.path("entryClass").asText(null);
    List<String> args = new ArrayList<>();
    json.path("programArgsList").forEach(a -> args.add(a.asText()));
    Integer parallelism = json.hasNonNull("parallelism") ? json.get("parallelism").asInt() : null;
    Map<String, String> settings = new LinkedHashMap<>();
    JsonNode conf =
        json.has("flinkConfiguration")
            ? json.get("flinkConfiguration")
            : json.path("configuration");
    conf.properties().forEach(e -> settings.put(e.getKey(), e.getValue().asText()));
    String jobId = dispatcher.run(jarId, entryClass, args, parallelism, settings);
    return Map.of("jobid", jobId);
  }

  private static Map<String, Object> summary(Dispatcher.Job job) {
    Map<String, Object> m = new LinkedHashMap<>();
    JobStatus status = job.status();
    m.put("jid", job.id());
    m.put("name", job.name());
    m.put("state", status.name());
    // Flink's fields: end-time is -1 while the job runs, duration runs until now until it ends.
    long end = job.master().endTimeMillis();
    long now = System.currentTimeMillis();
    m.put("start-time", job.startTime());
    m.put("end-time", end);
    m.put("duration", (end < 0 ? now : end) - job.startTime());
    m.put("now", now);
    m.put("entryClass", job.program().entryClass());
    m.put("jarId", job.program().jarId());
    var result = job.master().getJobExecutionResult();
    if (result.isDone()) {
      try {
        Map<String, Long> metrics = result.get().metrics();
        m.put("metrics", metrics);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        m.put(
            "failure",
            cause instanceof JobExecutionException ? cause.getMessage() : describe(cause));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return m;
  }

  private static Map<String, Object> exceptions(Dispatcher.Job job) {
    List<Object> entries = new ArrayList<>();
    for (ClusterGateway.ExceptionEntry e : job.gateway().exceptions()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("exceptionName", e.exceptionName());
      m.put("message", e.message());
      m.put("timestamp", e.timestamp());
      m.put("taskName", e.taskName());
      m.put("taskManagerId", e.location());
      entries.add(m);
    }
    return Map.of("exceptionHistory", Map.of("entries", entries, "truncated", false));
  }

  private static Map<String, Object> checkpoints(Dispatcher.Job job) {
    List<CheckpointStatistics> stats = job.master().getCheckpointStatistics();
    long completed = 0;
    long failed = 0;
    long inProgress = 0;
    List<Object> history = new ArrayList<>();
    Map<String, Object> latest = null;
    for (CheckpointStatistics s : stats) {
      switch (s.status()) {
        case COMPLETED -> completed++;
        case FAILED -> failed++;
        case IN_PROGRESS -> inProgress++;
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", s.checkpointId());
      m.put("status", s.status().name());
      m.put("is_unaligned", s.unaligned());
      m.put("trigger_timestamp", s.triggerTimestamp());
      m.put("end_to_end_duration", s.endToEndDurationMillis());
      m.put("state_size", s.stateSizeBytes());
      m.put("checkpointed_size", s.checkpointedSizeBytes());
      m.put("external_path", s.externalPath());
      List<Object> subtasks = new ArrayList<>();
      for (CheckpointStatistics.SubtaskCheckpointStatistics t : s.subtasks()) {
        Map<String, Object> st = new LinkedHashMap<>();
        st.put("task", t.taskName());
        st.put("index", t.subtaskIndex());
        st.put("start_delay", t.startDelayMillis());
        st.put("alignment_duration", t.alignmentDurationMillis());
        st.put("unaligned", t.unaligned());
        st.put("channel_state_size", t.channelStateBytes());
        st.put("sync_duration", t.syncDurationMillis());
        st.put("async_duration", t.asyncDurationMillis());
        st.put("state_size", t.stateSizeBytes());
        st.put("checkpointed_size", t.checkpointedSizeBytes());
        subtasks.add(st);
      }
      m.put("subtasks", subtasks);
      history.add(m);
      if (s.status() == CheckpointStatistics.Status.COMPLETED) {
        latest = m;
      }
    }
    Map<String, Object> counts = new LinkedHashMap<>();
    counts.put("completed", completed);
    counts.put("failed", failed);
    counts.put("in_progress", inProgress);
    counts.put("total", (long) stats.size());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("counts", counts);
    out.put("latest", latest == null ? Map.of() : Map.of("completed", latest));
    out.put("history", history);
    return out;
  }
}
