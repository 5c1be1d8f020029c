package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressTest {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final AtomicLong now = new AtomicLong();

  @Test
  void withoutATerminalAPlainLineNowAndThenAndNothingForAShortTask() {
    Progress progress = new Progress(out, false, now::get);
    progress.start("verifying chk-3", 4, 4096);
    progress.advance(1024);
    assertThat(text()).as("a short task prints nothing").isEmpty();

    now.addAndGet(Progress.PLAIN_INTERVAL_NANOS);
    progress.advance(1024);
    progress.finish();

    assertThat(text()).isEqualTo("verifying chk-3: 2 of 4 files, 2.0 KiB of 4.0 KiB (50%)\n");
  }

  @Test
  void onATerminalOneLineIsRedrawnAndClearedAtTheEnd() {
    Progress progress = new Progress(out, true, now::get);
    progress.start("verifying chk-3", 2, 2048);
    now.addAndGet(Progress.TERMINAL_INTERVAL_NANOS);
    progress.advance(1024);
    now.addAndGet(Progress.TERMINAL_INTERVAL_NANOS);
    progress.advance(1024);
    progress.finish();

    assertThat(text())
        .isEqualTo(
            "\r\033[Kverifying chk-3: 1 of 2 files, 1.0 KiB of 2.0 KiB (50%)"
                + "\r\033[Kverifying chk-3: 2 of 2 files, 2.0 KiB of 2.0 KiB (100%)"
                + "\r\033[K")
        .doesNotContain("\n");
  }

  private String text() {
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
