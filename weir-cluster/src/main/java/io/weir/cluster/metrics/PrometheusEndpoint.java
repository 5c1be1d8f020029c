package io.weir.cluster.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP endpoint Prometheus scrapes: on the first free port of a {@link PortRange}, every GET
 * answers the registry's metrics in Prometheus's text format (whatever the path, as Flink's
 * reporter does; {@code /metrics} is the usual one). The JDK's HTTP server, one thread of its own.
 */
final class PrometheusEndpoint implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PrometheusEndpoint.class);

  /** Prometheus's text exposition format. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpServer server;
  private final ExecutorService executor;

  private PrometheusEndpoint(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Serves {@code registry} on {@code host}, on the first port of {@code ports} that is free.
   *
   * @throws IllegalArgumentException naming the host, the ports and the key to change when none is
   *     free or the host cannot be bound
   */
  static PrometheusEndpoint start(PrometheusMeterRegistry registry, String host, PortRange ports) {
    IOException last = null;
    for (int port : ports.ports()) {
      HttpServer server;
      try {
        server = HttpServer.create(new InetSocketAddress(host, port), 16);
      } catch (BindException e) {
        last = e; // in use: the next one, as Flink's reporter does
        continue;
      } catch (IOException e) {
        last = e;
        break;
      }
      ExecutorService executor =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, "weir-metrics-http");
                t.setDaemon(true);
                return t;
              });
      server.setExecutor(executor);
      server.createContext("/", exchange -> serve(registry, exchange));
      server.start();
      return new PrometheusEndpoint(server, executor);
    }
    throw new IllegalArgumentException(
        "Cannot open the Prometheus endpoint on "
            + host
            + " at "
            + (ports.ports().size() == 1 ? "port " : "any of the ports ")
            + ports.setting()
            + (last == null ? "" : " (" + last.getMessage() + ")")
            + ": choose others with -D "
            + MetricOptions.PROMETHEUS_PORT.key()
            + "=PORT or a range such as 9250-9260, or another address with -D "
            + MetricOptions.PROMETHEUS_HOST.key(),
        last);
  }

  private static void serve(PrometheusMeterRegistry registry, HttpExchange exchange)
      throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body;
      try {
        body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      } catch (RuntimeException e) {
        LOG.warn("The metrics could not be collected for a scrape", e);
        exchange.sendResponseHeaders(500, -1);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      if (method.equals("HEAD")) {
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** The port it serves on. */
  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
