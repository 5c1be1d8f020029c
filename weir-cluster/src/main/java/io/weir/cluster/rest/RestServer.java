package io.weir.cluster.rest;

import io.netty.bootstrap.ServerBootstrap;
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
import io.weir.cluster.ClusterOptions;
import io.weir.cluster.rest.messages.ErrorResponse;
import io.weir.cluster.rest.messages.JobsResponse;
import io.weir.cluster.rest.messages.RestJson;
import io.weir.cluster.rpc.Secrets;
import io.weir.cluster.rpc.WeirMessages;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JobManager's REST API: JSON over HTTP on Netty. Each call runs on a handler thread: with a
 * secret configured, every call that changes something (not {@code GET} or {@code HEAD}) must send
 * it in the {@code weir-secret} header; then the {@link Router} picks the {@link RestHandler} of
 * its method and path. Errors answer {@code {"errors": [message]}}: a {@link RestException} with
 * its status, an {@link IllegalArgumentException} with 400, anything else with 500 (and a log
 * line); a call no handler serves with 404. A handler may answer a {@link RestHandler.Content}
 * instead of JSON: the dashboard's files.
 */
public final class RestServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RestServer.class);
  private static final int MAX_UPLOAD = 512 << 20;

  private final Router router;
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

  /**
   * Serves {@code router}'s handlers on {@code host:port} (0: any free port).
   *
   * @param secret the cluster's secret, or null
   */
  public RestServer(Router router, String secret, String host, int port)
      throws InterruptedException {
    this.router = router;
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
      RestJson.MAPPER.readValue(
          RestJson.MAPPER.writeValueAsBytes(
              new JobsResponse(List.of(new JobsResponse.JobIdWithStatus("", "")))),
          JobsResponse.class);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot serialize JSON", e);
    }
  }

  public int port() {
    return address().getPort();
  }

  /** The address the REST port is bound to. */
  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    // No quiet period: the port is closed, so no request comes any more (Netty's default waits
    // 2 s for tasks that cannot arrive, on every close of a JobManager or local cluster).
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    handlers.shutdownNow();
  }

  private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
      request.retain();
      handlers.execute(
          () -> {
            try {
              Object answer = route(ctx, request);
              if (answer instanceof RestHandler.Content content) {
                respond(ctx, request, content);
              } else if (answer instanceof RestHandler.AnswerThen then) {
                respond(ctx, request, HttpResponseStatus.OK, then.body())
                    .addListener(written -> then.written().run());
              } else {
                respond(ctx, request, HttpResponseStatus.OK, answer);
              }
            } catch (RestException e) {
              respond(ctx, request, e.status(), new ErrorResponse(List.of(e.getMessage())));
            } catch (IllegalArgumentException e) {
              respond(
                  ctx,
                  request,
                  HttpResponseStatus.BAD_REQUEST,
                  new ErrorResponse(List.of(WeirMessages.describe(e))));
            } catch (Exception e) {
              LOG.warn("REST call {} {} failed", request.method(), request.uri(), e);
              respond(
                  ctx,
                  request,
                  HttpResponseStatus.INTERNAL_SERVER_ERROR,
                  new ErrorResponse(List.of(WeirMessages.describe(e))));
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

  private ChannelFuture respond(
      ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus status, Object body) {
    byte[] bytes;
    try {
      bytes = RestJson.MAPPER.writeValueAsBytes(body);
    } catch (IOException e) {
      bytes = ("{\"errors\":[\"" + e.getMessage() + "\"]}").getBytes(StandardCharsets.UTF_8);
      status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    return send(ctx, request, response, bytes.length);
  }

  private ChannelFuture respond(
      ChannelHandlerContext ctx, FullHttpRequest request, RestHandler.Content content) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(content.bytes()));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, content.contentType());
    response.headers().set(HttpHeaderNames.CACHE_CONTROL, content.cacheControl());
    response.headers().set("X-Content-Type-Options", "nosniff");
    return send(ctx, request, response, content.bytes().length);
  }

  private static ChannelFuture send(
      ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response, int length) {
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, length);
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    if (keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      return ctx.writeAndFlush(response);
    }
    return ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }

  private Object route(ChannelHandlerContext ctx, FullHttpRequest request) throws Exception {
    String path = new QueryStringDecoder(request.uri()).path();
    HttpMethod method = request.method();
    if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
      String presented = request.headers().get(Secrets.HEADER);
      if (!Secrets.matches(secret, presented)) {
        LOG.warn(
            "Refused REST call {} {} from {}: it did not present the cluster's secret ({})",
            method,
            path,
            ctx.channel().remoteAddress(),
            ClusterOptions.SECRET.key());
        throw new RestException(
            HttpResponseStatus.UNAUTHORIZED,
            "Wrong or missing cluster secret: send it in the " + Secrets.HEADER + " header");
      }
    }
    Router.Match match = router.route(method, path);
    if (match == null) {
      throw new RestException(
          HttpResponseStatus.NOT_FOUND, "No REST handler for " + method + " " + path);
    }
    return match
        .handler()
        .handle(
            new RestRequest(request, path, match.pathParameters(), ctx.channel().remoteAddress()));
  }
}
