package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

  @Test
  void theDemoRunsAndVerifiesEverySum() {
    PrintStream original = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int exit;
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      exit = new CommandLine(new WeirCli()).execute("demo", "--records", "200000", "--keys", "97");
    } finally {
      System.setOut(original);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(out).isZero();
    assertThat(out).contains("records     200,000").contains("every final sum is exact");
    // On the local session cluster, whose REST port serves the dashboard; without a terminal the
    // demo returned (this test would not end otherwise) and the port is closed.
    Matcher dashboard = Pattern.compile("dashboard   (http://127\\.0\\.0\\.1:\\d+/)").matcher(out);
    assertThat(dashboard.find()).as(out).isTrue();
    assertThat(out).doesNotContain("press Ctrl+C");
    // The engine's log went to a file that outlives the demo, not into its story.
    Matcher log = Pattern.compile("log         (\\S+\\.log) ").matcher(out);
    assertThat(log.find()).as(out).isTrue();
    assertThat(java.nio.file.Path.of(log.group(1))).isRegularFile();
    assertThatThrownBy(
            () ->
                HttpClient.newHttpClient()
                    .send(
                        HttpRequest.newBuilder(URI.create(dashboard.group(1))).build(),
                        HttpResponse.BodyHandlers.discarding()))
        .isInstanceOf(java.net.ConnectException.class);
  }

  @Test
  void badArgumentsAreRejected() {
    int exit = new CommandLine(new WeirCli()).execute("demo", "--records", "0");
    assertThat(exit).isEqualTo(2);
  }

  @Test
  void aParallelismAboveTheMaxPrintsTheReasonAndNoStackTrace() {
    PrintStream originalErr = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    int exit;
    try {
      System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
      exit =
          WeirCli.commandLine()
              .setErr(new java.io.PrintWriter(System.err, true))
              .execute("demo", "--records", "1000", "--parallelism", "200");
    } finally {
      System.setErr(originalErr);
    }
    String err = captured.toString(StandardCharsets.UTF_8);
    assertThat(exit).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(err).contains("weir demo: ").contains("200").contains("max");
    assertThat(err).doesNotContain("\tat io.weir").doesNotContain("Exception:");
  }

  @Test
  void verboseAddsTheStackTrace() {
    java.io.StringWriter err = new java.io.StringWriter();
    int exit =
        WeirCli.commandLine()
            .setErr(new java.io.PrintWriter(err, true))
            .execute("demo", "--records", "1000", "--parallelism", "200", "--verbose");
    assertThat(exit).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(err.toString()).contains("\tat io.weir");
  }
}
