package io.weir.cluster.rest.handlers;

import io.netty.buffer.ByteBufInputStream;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.multipart.FileUpload;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.netty.handler.codec.http.multipart.InterfaceHttpData;
import io.weir.api.config.CheckpointingOptions;
import io.weir.api.config.ConfigOption;
import io.weir.api.config.Configuration;
import io.weir.cluster.jobmanager.Dispatcher;
import io.weir.cluster.rest.AbstractRestHandler;
import io.weir.cluster.rest.RestRequest;
import io.weir.cluster.rest.messages.JarRunRequest;
import io.weir.cluster.rest.messages.JarRunResponse;
import io.weir.cluster.rest.messages.JarUploadResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

/** The jars resource: uploading one, running its program. */
final class JarHandlers {

  private JarHandlers() {}

  /**
   * {@code POST /jars/upload}: the jar as a multipart file part (Flink's {@code jarfile}) or as the
   * whole body.
   */
  static final class Upload extends AbstractRestHandler {
    private final Dispatcher dispatcher;

    Upload(Dispatcher dispatcher) {
      super(HttpMethod.POST, "/jars/upload");
      this.dispatcher = dispatcher;
    }

    @Override
    public JarUploadResponse handle(RestRequest request) throws IOException {
      FullHttpRequest http = request.http();
      String contentType = http.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
      String id;
      if (contentType.startsWith("multipart/form-data")) {
        HttpPostRequestDecoder decoder = new HttpPostRequestDecoder(http);
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
          try (InputStream in =
              new ByteBufInputStream(file.getByteBuf().retainedDuplicate(), true)) {
            id = dispatcher.upload(in, file.getFilename());
          }
        } finally {
          decoder.destroy();
        }
      } else {
        try (InputStream in = new ByteBufInputStream(http.content().retainedDuplicate(), true)) {
          id = dispatcher.upload(in, fileName(http.headers().get("Content-Disposition")));
        }
      }
      return new JarUploadResponse(id + ".jar", id, "success");
    }
  }

  /**
   * The file name a raw upload gives in its {@code Content-Disposition} header ({@code attachment;
   * filename="job.jar"}), else "request body".
   */
  static String fileName(String disposition) {
    if (disposition != null) {
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("filename=\"?([^\";]+)\"?").matcher(disposition);
      if (m.find()) {
        return java.nio.file.Path.of(m.group(1).strip()).getFileName().toString();
      }
    }
    return "request body";
  }

  /** {@code POST /jars/:jarid/run}: runs the jar's program, which submits its job. */
  static final class Run extends AbstractRestHandler {
    private final Dispatcher dispatcher;

    Run(Dispatcher dispatcher) {
      super(HttpMethod.POST, "/jars/:jarid/run");
      this.dispatcher = dispatcher;
    }

    @Override
    public JarRunResponse handle(RestRequest request) throws Exception {
      JarRunRequest run = request.body(JarRunRequest.class);
      Map<String, String> settings = run.settings();
      ClientPaths paths = new ClientPaths(dispatcher.options());
      Configuration named = new Configuration();
      settings.forEach(named::setString);
      for (ConfigOption<String> path :
          List.of(
              CheckpointingOptions.SAVEPOINT_PATH,
              CheckpointingOptions.CHECKPOINTS_DIRECTORY,
              CheckpointingOptions.SAVEPOINT_DIRECTORY)) {
        named.getOptional(path).ifPresent(p -> paths.check(p, path.key()));
      }
      String jobId =
          dispatcher.run(
              request.pathParameter("jarid"),
              run.entryClass(),
              run.args(),
              run.parallelism(),
              settings);
      return new JarRunResponse(jobId);
    }
  }
}
