package io.weir.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.weir.cluster.client.ClusterClient;
import io.weir.cluster.rpc.HostPort;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web dashboard in headless Chromium (Debian's {@code chromium} and {@code chromium-driver})
 * against a local session cluster whose job has completed checkpoints and one restore: the job list
 * leads to the job, its graph has the plan's vertices and edges, its checkpoints page lists the
 * completed checkpoints, and a checkpoint's timeline has one lane per subtask with the REST API's
 * figures and its critical path highlighted. With {@code -Dweir.dashboard.screenshot=FILE} it saves
 * the timeline as a PNG (docs/images/checkpoint-timeline.png is one).
 */
@Timeout(300)
class DashboardBrowserIT {

  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  @TempDir static Path dir;

  private static LocalSessionCluster cluster;
  private static ClusterClient client;
  private static WebDriver browser;
  private static String jobId;

  @BeforeAll
  static void start() throws Exception {
    assertThat(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER))
        .as(
            "The dashboard's browser test drives Debian's Chromium: install it with 'apt-get"
                + " install -y chromium chromium-driver' (.ci/run does when they are missing)")
        .isTrue();
    cluster = new LocalSessionCluster(Map.of());
    client = new ClusterClient(HostPort.parse("127.0.0.1:" + cluster.restPort(), "address"), null);
    jobId = runWithARestore();

    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1280,1000",
        "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium-profile")));
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .withLogFile(new File("target/dashboard-chromedriver.log"))
            .build();
    browser = new ChromeDriver(service, options);
  }

  @AfterAll
  static void stop() throws Exception {
    if (browser != null) {
      browser.quit();
    }
    if (cluster != null) {
      if (jobId != null) {
        client.cancel(jobId);
      }
      cluster.close();
    }
  }

  /**
   * Runs {@code FailOnSignalJob} with parallelism 2 until a checkpoint completed, fails it once and
   * waits until it restored and completed a checkpoint after the restore.
   */
  private static String runWithARestore() throws Exception {
    Path signal = dir.resolve("fail-now");
    String jarId = client.upload(TestCluster.testJobJar(dir.resolve("job.jar"), null));
    String id =
        client.run(
            jarId,
            "io.weir.testjobs.FailOnSignalJob",
            List.of(dir.resolve("checkpoints").toUri().toString(), signal.toString()),
            2,
            Map.of());
    await()
        .atMost(PATIENCE)
        .until(() -> checkpoints(id).path("counts").path("completed").asLong() > 1);
    Files.createFile(signal);
    await()
        .atMost(PATIENCE)
        .until(
            () -> {
              JsonNode c = checkpoints(id);
              JsonNode restored = c.path("latest").path("restored");
              return !restored.isMissingNode()
                  && c.path("latest").path("completed").path("id").asLong()
                      > restored.path("id").asLong();
            });
    return id;
  }

  private static JsonNode checkpoints(String id) throws Exception {
    return client.get("/jobs/" + id + "/checkpoints");
  }

  private static WebDriverWait waiting() {
    WebDriverWait wait = new WebDriverWait(browser, PATIENCE);
    // The pages redraw a section when what it shows changed: an element may go stale meanwhile.
    wait.ignoring(StaleElementReferenceException.class);
    return wait;
  }

  /** Clicks what {@code locator} finds once it is there, again if a redraw replaced it. */
  private static void click(By locator) {
    waiting()
        .until(
            d -> {
              d.findElement(locator).click();
              return true;
            });
  }

  @Test
  void theTimelineOfACompletedCheckpointHasALanePerSubtaskAndItsCriticalPath() throws Exception {
    JsonNode plan = client.get("/jobs/" + jobId + "/plan").path("plan").path("nodes");

    browser.get("http://127.0.0.1:" + cluster.restPort() + "/");
    click(By.cssSelector("#jobs tr[data-job-id='" + jobId + "'] a.job-link"));

    // The job's graph: the plan's vertices with their parallelism, its edges with their strategy.
    waiting()
        .until(
            d -> d.findElements(By.cssSelector("#job-graph-svg g.vertex")).size() == plan.size());
    for (JsonNode node : plan) {
      WebElement vertex =
          browser.findElement(
              By.cssSelector("g.vertex[data-vertex-id='" + node.path("id").asText() + "']"));
      assertThat(vertex.getAttribute("data-parallelism"))
          .isEqualTo(node.path("parallelism").asText());
      for (JsonNode input : node.path("inputs")) {
        assertThat(
                browser
                    .findElement(
                        By.cssSelector(
                            "g.edge[data-from='"
                                + input.path("id").asText()
                                + "'][data-to='"
                                + node.path("id").asText()
                                + "']"))
                    .getAttribute("data-ship-strategy"))
            .isEqualTo(input.path("ship_strategy").asText());
      }
    }

    // Below the graph, each vertex with the bytes and records it received and sent and its low
    // watermark: the source's row has bytes sent, none received, and no input watermark.
    String source = null;
    for (JsonNode node : plan) {
      if (node.path("inputs").isEmpty()) {
        source = node.path("id").asText();
      }
    }
    By sourceCells = By.cssSelector("#job-vertices-table tr[data-vertex-id='" + source + "'] td");
    waiting()
        .until(
            d ->
                d.findElements(By.cssSelector("#job-vertices-table tbody tr")).size()
                    == plan.size());
    waiting()
        .until(
            d -> {
              List<WebElement> cells = d.findElements(sourceCells);
              return cells.size() == 8
                  && cells.get(3).getText().equals("0 B")
                  && cells.get(7).getText().equals("No watermark")
                  && cells.get(5).getText().matches("[0-9.]+ (B|KiB|MiB|GiB)")
                  && !cells.get(5).getText().equals("0 B");
            });

    // Between them, the restore the job came back from: every subtask, all its state read.
    JsonNode recovery = client.get("/jobs/" + jobId + "/recovery");
    assertThat(recovery.path("status").asText()).as(recovery.toString()).isEqualTo("RESTORED");
    int subtaskCount = 0;
    for (JsonNode node : plan) {
      subtaskCount += node.path("parallelism").asInt();
    }
    int restoredSubtasks = subtaskCount;
    waiting()
        .until(
            d ->
                d.findElements(By.cssSelector("#recovery-subtasks tbody tr")).size()
                    == restoredSubtasks);
    assertThat(browser.findElement(By.cssSelector("#job-recovery h3")).getText())
        .isEqualTo(
            "Recovery from checkpoint " + recovery.path("checkpoint-id").asText() + " RESTORED");
    JsonNode total = recovery.path("total");
    assertThat(browser.findElement(By.id("recovery-total")).getText())
        .contains(
            "files "
                + total.path("files-read").asLong()
                + " of "
                + total.path("files-total").asLong())
        .endsWith("done");

    // The checkpoints: the counts, the restore, the completed ones in the history.
    click(By.cssSelector("nav.tabs a[data-tab='checkpoints']"));
    waiting()
        .until(
            d ->
                !d.findElements(By.cssSelector("#checkpoint-history tr[data-status='COMPLETED']"))
                    .isEmpty());
    JsonNode stats = checkpoints(jobId);
    String restored = stats.path("latest").path("restored").path("id").asText();
    assertThat(browser.findElement(By.id("checkpoint-counts")).getText())
        .contains("Restored\n" + restored + " at ");
    JsonNode chosen = null; // the slowest completed checkpoint: the most to see on its timeline
    for (JsonNode c : stats.path("history")) {
      if (c.path("status").asText().equals("COMPLETED")
          && c.has("critical_path")
          && (chosen == null
              || c.path("end_to_end_duration").asLong()
                  > chosen.path("end_to_end_duration").asLong())) {
        chosen = c;
      }
    }
    assertThat(chosen).as("a completed checkpoint with a critical path: %s", stats).isNotNull();
    long checkpointId = chosen.path("id").asLong();
    click(
        By.cssSelector(
            "#checkpoint-history tr[data-checkpoint-id='" + checkpointId + "'] a.checkpoint-link"));

    // Its timeline against the REST API's figures of the same checkpoint.
    waiting()
        .until(
            ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("#checkpoint-timeline[data-checkpoint-id='" + checkpointId + "']")));
    JsonNode details = client.get("/jobs/" + jobId + "/checkpoints/details/" + checkpointId);
    JsonNode subtasks = details.path("subtasks");
    JsonNode critical = details.path("critical_path");
    List<WebElement> lanes = browser.findElements(By.cssSelector("#checkpoint-timeline g.lane"));
    assertThat(subtasks.size()).as("every subtask acknowledged").isEqualTo(subtaskCount);
    assertThat(lanes).hasSize(subtasks.size());

    Map<String, JsonNode> bySubtask = new HashMap<>();
    for (JsonNode t : subtasks) {
      bySubtask.put(t.path("vertex_id").asText() + "/" + t.path("index").asInt(), t);
    }
    Set<String> seen = new HashSet<>();
    List<String> criticalLanes = new ArrayList<>();
    double latestEnd = -1;
    String latestLane = null;
    for (WebElement lane : lanes) {
      String key = lane.getAttribute("data-vertex-id") + "/" + lane.getAttribute("data-index");
      JsonNode t = bySubtask.get(key);
      assertThat(t).as("lane %s is a subtask of the checkpoint", key).isNotNull();
      assertThat(seen.add(key)).as("one lane for %s", key).isTrue();
      Map<String, Long> durations = new HashMap<>();
      double end = -1;
      double acknowledged = -1; // where the lane's acknowledgement ends: before any sink commit
      for (WebElement segment : lane.findElements(By.cssSelector("rect.segment"))) {
        durations.put(
            segment.getAttribute("data-phase"),
            Long.parseLong(segment.getAttribute("data-duration")));
        double x = Double.parseDouble(segment.getAttribute("x"));
        assertThat(x).as("%s's phases follow each other", key).isGreaterThanOrEqualTo(end - 0.01);
        end = x + Double.parseDouble(segment.getAttribute("width"));
        if (!segment.getAttribute("data-phase").equals("commit")) {
          acknowledged = end;
        }
      }
      // A two-phase-commit sink's commit after the completion is its own segment, as REST says.
      if (t.has("commit")) {
        assertThat(durations).containsEntry("commit", t.path("commit").path("duration").asLong());
      } else {
        assertThat(durations).doesNotContainKey("commit");
      }
      long phasesSum =
          t.path("start_delay").asLong()
              + t.path("alignment_duration").asLong()
              + t.path("sync_duration").asLong()
              + t.path("async_duration").asLong();
      assertThat(durations)
          .as("lane %s", key)
          .containsEntry("start_delay", t.path("start_delay").asLong())
          .containsEntry("alignment", t.path("alignment_duration").asLong())
          .containsEntry("sync", t.path("sync_duration").asLong())
          .containsEntry("async", t.path("async_duration").asLong())
          .containsEntry(
              "acknowledgement", Math.max(0, t.path("end_to_end_duration").asLong() - phasesSum));
      assertThat(lane.getAttribute("data-end-to-end"))
          .isEqualTo(t.path("end_to_end_duration").asText());
      if ("true".equals(lane.getAttribute("data-critical"))) {
        criticalLanes.add(key);
      }
      if (acknowledged > latestEnd) {
        latestEnd = acknowledged;
        latestLane = key;
      }
    }
    String criticalKey = critical.path("vertex_id").asText() + "/" + critical.path("index").asInt();
    assertThat(criticalLanes).as("the highlighted lane").containsExactly(criticalKey);
    assertThat(latestLane).as("the lane drawn longest is the one acknowledged last").isNotNull();
    if (!critical.path("phase").asText().equals("commit")) {
      // (A slow sink commit is the critical path of the subtask whose commit took longest.)
      assertThat(bySubtask.get(latestLane).path("ack_timestamp").asLong())
          .isEqualTo(bySubtask.get(criticalKey).path("ack_timestamp").asLong());
    }

    List<WebElement> highlighted =
        browser.findElements(By.cssSelector("#checkpoint-timeline rect.segment.critical"));
    assertThat(highlighted).hasSize(1);
    assertThat(highlighted.get(0).getAttribute("data-phase"))
        .isEqualTo(critical.path("phase").asText());
    if (!critical.path("phase").asText().equals("finalize")) {
      assertThat(Long.parseLong(highlighted.get(0).getAttribute("data-duration")))
          .isEqualTo(critical.path("duration").asLong());
    }
    WebElement explanation = browser.findElement(By.id("critical-path"));
    assertThat(explanation.findElement(By.className("description")).getText())
        .isEqualTo(critical.path("description").asText());
    assertThat(explanation.findElement(By.className("advice")).getText())
        .isEqualTo(critical.path("advice").asText());

    String screenshot = System.getProperty("weir.dashboard.screenshot");
    if (screenshot != null && !screenshot.isBlank()) {
      WebElement detail = browser.findElement(By.id("checkpoint-detail"));
      Path png = detail.getScreenshotAs(OutputType.FILE).toPath();
      Path target = Path.of(screenshot).toAbsolutePath();
      Files.createDirectories(target.getParent());
      Files.copy(png, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
