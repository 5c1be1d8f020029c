package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
  }

  @Test
  void badArgumentsAreRejected() {
    int exit = new CommandLine(new WeirCli()).execute("demo", "--records", "0");
    assertThat(exit).isEqualTo(2);
  }
}
