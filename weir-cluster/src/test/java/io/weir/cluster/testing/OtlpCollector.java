package io.weir.cluster.testing;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A stand-in OpenTelemetry collector for tests: serves OTLP/HTTP's {@code /v1/traces} on 127.0.0.1
 * and decodes what it receives as a real collector would. The span tests of weir-cluster and of
 * weir-cli share it (weir-cli through weir-cluster's test jar). Any thread may read what it
 * received and wait for a span.
 */
public final class OtlpCollector implements AutoCloseable {

  private final HttpServer server;
  private final List<Span> spans = new ArrayList<>();
  private final List<String> serviceNames = new ArrayList<>();

  private OtlpCollector(HttpServer server) {
    this.server = server;
  }

  /** Starts a collector on a free port of 127.0.0.1. */
  public static OtlpCollector start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    OtlpCollector collector = new OtlpCollector(server);
    server.createContext(
        "/v1/traces",
        exchange -> {
          try (InputStream in = exchange.getRequestBody()) {
            collector.received(ExportTraceServiceRequest.parseFrom(in));
          }
          exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.start();
    return collector;
  }

  private synchronized void received(ExportTraceServiceRequest request) {
    for (ResourceSpans rs : request.getResourceSpansList()) {
      rs.getResource().getAttributesList().stream()
          .filter(a -> a.getKey().equals("service.name"))
          .forEach(a -> serviceNames.add(a.getValue().getStringValue()));
      for (ScopeSpans ss : rs.getScopeSpansList()) {
        spans.addAll(ss.getSpansList());
      }
    }
    notifyAll();
  }

  /** The value of {@code traces.reporter.otel.exporter.endpoint} that sends spans here. */
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The spans received so far, in the order they came. */
  public synchronized List<Span> spans() {
    return List.copyOf(spans);
  }

  /** The {@code service.name} of each batch of spans received so far. */
  public synchronized List<String> serviceNames() {
    return List.copyOf(serviceNames);
  }

  /**
   * Waits until a span that matches {@code which} has arrived and returns it; fails after {@code
   * patience}, naming the spans that did arrive.
   */
  public synchronized Span awaitSpan(Predicate<Span> which, Duration patience)
      throws InterruptedException {
    long deadline = System.nanoTime() + patience.toNanos();
    while (true) {
      for (Span span : spans) {
        if (which.test(span)) {
          return span;
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError(
            "No such span arrived within "
                + patience
                + "; arrived: "
                + spans.stream().map(Span::getName).toList());
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  /** The span's attributes, each value as text. */
  public static Map<String, String> attributes(Span span) {
    Map<String, String> out = new HashMap<>();
    for (KeyValue kv : span.getAttributesList()) {
      var v = kv.getValue();
      out.put(
          kv.getKey(),
          switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case INT_VALUE -> Long.toString(v.getIntValue());
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            default -> v.toString();
          });
    }
    return out;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
