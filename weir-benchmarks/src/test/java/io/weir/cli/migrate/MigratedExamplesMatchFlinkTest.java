package io.weir.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.javaparser.StaticJavaParser;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.NodeList;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.SimpleName;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.stmt.IfStmt;
import com.github.javaparser.ast.stmt.Statement;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink's own streaming examples (weir-cli's src/test/resources/flink-examples, Flink 2.3.0's
 * sources) print the same lines on Flink 2.3 as on Weir once {@code weir migrate} has rewritten
 * them. Each example is compiled as it is against Flink (this module's Flink 2.3 dependencies) and
 * its {@code main} run on Flink's local environment; the same source is migrated in this JVM, given
 * only the hand edits a user would make for what the tool reports it could not map, compiled
 * against Weir alone and run. Each side runs in a JVM of its own whose class path holds one engine
 * only (so a Flink class left in the migrated code fails to compile instead of running on Flink);
 * what their {@code print()} sinks print is compared as a multiset of lines, the subtask prefix
 * ({@code "2> "}) removed on both sides.
 *
 * <ul>
 *   <li>WordCount: as it is, its built-in text (no options). The hand edit drops its command-line
 *       handling (MigratedWordCountRunTest's).
 *   <li>SocketWindowWordCount: against a server this test runs on 127.0.0.1, which sends a few
 *       lines while at least 2.5 s of a 5-second processing-time window are left, keeps the
 *       connection open until that window has fired, then closes it, which ends the job on both
 *       engines (both drop a window still open at the end of input). No hand edit.
 *   <li>WindowJoin: its generators are unbounded and unseeded ({@code Long.MAX_VALUE} records from
 *       {@code new Random()}), and no option changes that, so WindowJoinSampleData gets an edit to
 *       Flink's source (as StateMachineExample does), the same on both sides: 30 records from
 *       {@code new Random(42)} per stream. Its timestamps are the wall clock's; {@code
 *       --windowSize} of 10<sup>13</sup> ms puts every record in the one window [0,
 *       10<sup>13</sup>), which fires at the end of input, so the output is each name's grades
 *       joined with its salaries. The hand edits drop the file output branch (Flink's FileSink
 *       encoder and rolling policy) and the {@code TimestampAssignerSupplier.Context} parameter
 *       Weir's strategy does not take.
 *   <li>StateMachineExample: its generator is unbounded and unseeded ({@code Long.MAX_VALUE} events
 *       from {@code new Random()}) with no option to change that, so it gets the same kind of edit,
 *       on both sides: 2000 events from {@code new Random(42)}; {@code --error-rate 0.1} makes one
 *       event in ten an invalid transition (the default, 0, prints nothing). Its events depend on
 *       the number of source subtasks (each draws addresses from its own range), so both engines
 *       run at parallelism 2. The hand edits drop the Kafka source and the file sink (and the kafka
 *       package, which only they use) and turn the state V2 calls the tool lists into Weir's
 *       synchronous ones.
 * </ul>
 *
 * <p>The two engines' jobs run at the same time. Flink's JVM takes most of an example's time (about
 * 6 s on 2 busy cores, its mini cluster's start included; Weir's under 2 s), the socket example up
 * to 8 s more, waiting for its window to fire: the four took 42 to 48 s beside other builds.
 */
class MigratedExamplesMatchFlinkTest {

  private static final String EXAMPLES = "flink-examples/org/apache/flink/streaming/examples/";
  private static final String PACKAGE = "org.apache.flink.streaming.examples";

  /** What StateMachineExample's print() prints of an alert. */
  private static final Pattern ALERT = Pattern.compile("ALERT .*");

  /** What print() prints of a record, once the subtask prefix is removed. */
  private static final Pattern TUPLE = Pattern.compile("\\(.*\\)");

  /** The subtask print() puts before a line when it runs in parallel, on both engines. */
  private static final Pattern SUBTASK = Pattern.compile("^\\d+> ");

  @TempDir Path tmp;

  /** The jobs' JVMs, ended after each test if an assertion left one running. */
  private final List<Process> started = new ArrayList<>();

  @AfterEach
  void endTheJobs() throws InterruptedException {
    for (Process process : started) {
      process.destroyForcibly().waitFor();
    }
  }

  @Test
  void wordCount() throws Exception {
    Path flink = flinkClasses("wordcount");
    Path migrated = migrate("wordcount");
    Path wordCount = migrated.resolve("WordCount.java");
    Files.writeString(
        wordCount, MigratedWordCountRunTest.withoutOptions(Files.readString(wordCount)));
    Files.delete(migrated.resolve("util/CLI.java"));
    Path weir = weirClasses(migrated);

    String main = PACKAGE + ".wordcount.WordCount";
    Job flinkJob = start(Engine.FLINK, flink, main);
    Job weirJob = start(Engine.WEIR, weir, main);
    List<String> onFlink = printed(flinkJob, TUPLE);
    List<String> onWeir = printed(weirJob, TUPLE);

    assertThat(onFlink).as("Flink's running counts").hasSizeGreaterThan(100);
    assertThat(onWeir).containsExactlyInAnyOrderElementsOf(onFlink);
  }

  @Test
  void socketWindowWordCount() throws Exception {
    Path flink = flinkClasses("socket");
    Path weir = weirClasses(migrate("socket"));

    String main = PACKAGE + ".socket.SocketWindowWordCount";
    String text = "to be or not to be\nthat is the question\nto be is to do\n";
    List<String> onFlink;
    List<String> onWeir;
    try (ServerSocket flinkServer = server();
        ServerSocket weirServer = server()) {
      Job flinkJob = start(Engine.FLINK, flink, main, socketArgs(flinkServer));
      Job weirJob = start(Engine.WEIR, weir, main, socketArgs(weirServer));
      try (Socket toFlink = accept(flinkServer, flinkJob);
          Socket toWeir = accept(weirServer, weirJob)) {
        // Both get the text in one 5-second window and keep the connection until that window has
        // fired: both engines drop a processing-time window still open at the end of input.
        long windowEnd = windowWithTimeLeft(5_000, 2_500) + 5_000;
        send(toFlink, text);
        send(toWeir, text);
        Thread.sleep(Math.max(0, windowEnd - System.currentTimeMillis()) + 1_500);
      }
      onFlink = printed(flinkJob, Pattern.compile(".* : \\d+"));
      onWeir = printed(weirJob, Pattern.compile(".* : \\d+"));
    }

    assertThat(onFlink)
        .containsExactlyInAnyOrder(
            "to : 4",
            "be : 3",
            "or : 1",
            "not : 1",
            "that : 1",
            "is : 2",
            "the : 1",
            "question : 1",
            "do : 1");
    assertThat(onWeir).containsExactlyInAnyOrderElementsOf(onFlink);
  }

  @Test
  void windowJoin() throws Exception {
    Path source = example("join");
    // The input edits, the same on both sides: bounded, seeded generators.
    edit(source.resolve("WindowJoinSampleData.java"), "new Random()", "new Random(42)");
    edit(source.resolve("WindowJoinSampleData.java"), "Long.MAX_VALUE", "30L");
    Path flink = compiled(source, tmp.resolve("flink-classes"), Engine.FLINK);
    Path migrated = migrate(source);
    Path windowJoin = migrated.resolve("WindowJoin.java");
    Files.writeString(windowJoin, withoutFileOutput(Files.readString(windowJoin)));
    Path weir = weirClasses(migrated);

    String main = PACKAGE + ".join.WindowJoin";
    String[] args = {"--windowSize", "10000000000000", "--rate", "1000"};
    Job flinkJob = start(Engine.FLINK, flink, main, args);
    Job weirJob = start(Engine.WEIR, weir, main, args);
    List<String> onFlink = printed(flinkJob, TUPLE);
    List<String> onWeir = printed(weirJob, TUPLE);

    assertThat(onFlink).as("every name's grades joined with its salaries").hasSizeGreaterThan(30);
    assertThat(onWeir).containsExactlyInAnyOrderElementsOf(onFlink);
  }

  @Test
  void stateMachine() throws Exception {
    Path source = example("statemachine");
    // The input edits, the same on both sides: a bounded, seeded generator.
    edit(source.resolve("generator/EventsGenerator.java"), "new Random()", "new Random(42)");
    edit(source.resolve("StateMachineExample.java"), "Long.MAX_VALUE", "2000L");
    Path flink = compiled(source, tmp.resolve("flink-classes"), Engine.FLINK);
    Path migrated = migrate(source);
    Path stateMachine = migrated.resolve("StateMachineExample.java");
    Files.writeString(
        stateMachine, withoutKafkaFileSinkOrAsyncState(Files.readString(stateMachine)));
    deleteTree(migrated.resolve("kafka"));
    Path weir = weirClasses(migrated);

    String main = PACKAGE + ".statemachine.StateMachineExample";
    String[] args = {"--error-rate", "0.1", "--rps", "1000000"};
    Job flinkJob = start(Engine.FLINK, flink, main, args);
    Job weirJob = start(Engine.WEIR, weir, main, args);
    List<String> onFlink = printed(flinkJob, ALERT);
    List<String> onWeir = printed(weirJob, ALERT);

    assertThat(onFlink).as("alerts for the invalid transitions").hasSizeGreaterThan(10);
    assertThat(onWeir).containsExactlyInAnyOrderElementsOf(onFlink);
  }

  private static void edit(Path file, String from, String to) throws IOException {
    String text = Files.readString(file);
    assertThat(text).contains(from);
    Files.writeString(file, text.replace(from, to));
  }

  /**
   * StateMachineExample's hand edits: the Kafka source and the file sink, which the options choose,
   * are dropped (the tool lists Flink's deserialization schemas, encoder and rolling policy), and
   * the state machine uses Weir's synchronous state, as the tool's list says ({@code asyncValue()}
   * becomes {@code value()}, the body of its {@code thenAccept} follows it, {@code asyncUpdate} and
   * {@code asyncClear} become {@code update} and {@code clear}).
   */
  private static String withoutKafkaFileSinkOrAsyncState(String source) {
    CompilationUnit unit = StaticJavaParser.parse(source);
    unit.getImports()
        .removeIf(
            i ->
                (i.getNameAsString().startsWith("org.apache.flink.")
                        && !i.getNameAsString().startsWith(PACKAGE + "."))
                    || i.getNameAsString().endsWith(".kafka.EventDeSerializationSchema"));
    BlockStmt main = method(unit, "main").getBody().orElseThrow();
    NodeList<Statement> kept = new NodeList<>();
    for (Statement statement : main.getStatements()) {
      if (statement instanceof IfStmt branch
          && branch.getCondition().toString().contains("kafka-topic")) {
        kept.addAll(branch.getElseStmt().orElseThrow().asBlockStmt().getStatements());
      } else if (statement instanceof IfStmt branch
          && branch.getCondition().toString().equals("outputFile == null")) {
        kept.addAll(branch.getThenStmt().asBlockStmt().getStatements());
      } else {
        kept.add(statement);
      }
    }
    main.setStatements(kept);
    BlockStmt flatMap = method(unit, "flatMap").getBody().orElseThrow();
    LambdaExpr thenAccept = flatMap.findFirst(LambdaExpr.class).orElseThrow();
    NodeList<Statement> body = new NodeList<>();
    body.add(StaticJavaParser.parseStatement("State state = currentState.value();"));
    body.addAll(thenAccept.getBody().asBlockStmt().getStatements());
    BlockStmt synchronous = new BlockStmt(body);
    synchronous
        .findAll(MethodCallExpr.class)
        .forEach(
            call -> {
              switch (call.getNameAsString()) {
                case "asyncUpdate" -> call.setName("update");
                case "asyncClear" -> call.setName("clear");
                default -> {}
              }
            });
    method(unit, "flatMap").setBody(synchronous);
    return unit.toString();
  }

  /**
   * WindowJoin's hand edits: main prints instead of choosing a file sink by {@code --output} (the
   * tool lists the encoder, the rolling policy and Flink's Path as things to do), and the timestamp
   * assigner is created without Flink's {@code TimestampAssignerSupplier.Context}, which Weir's
   * strategy does not pass (listed by the tool too).
   */
  private static String withoutFileOutput(String source) {
    CompilationUnit unit = StaticJavaParser.parse(source);
    unit.getImports()
        .removeIf(
            i ->
                i.getNameAsString().startsWith("org.apache.flink.")
                    || i.getNameAsString().equals("io.weir.connector.files.FileSink"));
    BlockStmt main = method(unit, "main").getBody().orElseThrow();
    NodeList<Statement> kept = new NodeList<>();
    for (Statement statement : main.getStatements()) {
      boolean aboutFileOutput =
          statement.findAll(SimpleName.class).stream()
              .anyMatch(n -> n.getIdentifier().equals("fileOutput"));
      if (!aboutFileOutput) {
        kept.add(statement);
      } else if (statement instanceof IfStmt branch && branch.getElseStmt().isPresent()) {
        kept.addAll(branch.getElseStmt().get().asBlockStmt().getStatements());
      }
    }
    main.setStatements(kept);
    method(unit, "createTimestampAssigner").getParameters().clear();
    return unit.toString();
  }

  private static MethodDeclaration method(CompilationUnit unit, String name) {
    return unit.findFirst(MethodDeclaration.class, m -> m.getNameAsString().equals(name))
        .orElseThrow(() -> new AssertionError("no method " + name + " in\n" + unit));
  }

  // ---------------------------------------------------------------------------------------------
  // The two engines' class paths, compiling and running

  /** Which engine a class path or a child JVM is for. */
  private enum Engine {
    FLINK,
    WEIR;

    /**
     * This JVM's class path without the other engine: Weir's side without Flink's jars (and its
     * frocksdbjni), Flink's without Weir's modules (and Weir's rocksdbjni, another build of the
     * same org.rocksdb package).
     */
    String classPath() {
      List<String> kept = new ArrayList<>();
      for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
        Path path = Path.of(entry);
        String name = path.getFileName().toString();
        boolean flink = name.startsWith("flink-") || name.startsWith("frocksdbjni-");
        boolean weir =
            name.startsWith("weir-")
                || name.startsWith("rocksdbjni-")
                || Files.isDirectory(path.resolve("io/weir"));
        if (this == FLINK ? !weir : !flink) {
          kept.add(entry);
        }
      }
      return String.join(File.pathSeparator, kept);
    }
  }

  /** One example's original sources, copied out of weir-cli's test jar into tmp. */
  private Path example(String name) throws IOException, URISyntaxException {
    Path into = tmp.resolve("src").resolve(name);
    if (Files.isDirectory(into)) {
      return into;
    }
    Path codeSource =
        Path.of(MigratedSources.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (Files.isDirectory(codeSource)) {
      copyTree(codeSource.resolve(EXAMPLES + name), into);
    } else {
      try (FileSystem jar = FileSystems.newFileSystem(codeSource)) {
        copyTree(jar.getPath(EXAMPLES + name), into);
      }
    }
    return into;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        Path target = to.resolve(from.relativize(file).toString());
        Files.createDirectories(target.getParent());
        Files.copy(file, target);
      }
    }
  }

  private Path flinkClasses(String example) throws Exception {
    return compiled(example(example), tmp.resolve("flink-classes"), Engine.FLINK);
  }

  private Path weirClasses(Path migrated) throws IOException {
    return compiled(migrated, tmp.resolve("weir-classes"), Engine.WEIR);
  }

  private static Path compiled(Path sources, Path classes, Engine engine) throws IOException {
    assertThat(MigratedSources.compile(sources, classes, engine.classPath()))
        .as("compiling " + sources + " against " + engine)
        .isEmpty();
    return classes;
  }

  private Path migrate(String example) throws Exception {
    return migrate(example(example));
  }

  /** {@code weir migrate source --output tmp/migrated}, in this JVM. */
  private Path migrate(Path source) {
    Path out = tmp.resolve("migrated");
    MigratedSources.Run run =
        MigratedSources.weir("migrate", source.toString(), "--output", out.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    return out;
  }

  /** A job's JVM and the directory of its stdout, stderr and temporary files. */
  private record Job(Engine engine, Process process, Path dir) {}

  /** Starts {@code mainClass} in a JVM of its own with {@code engine}'s class path. */
  private Job start(Engine engine, Path classes, String mainClass, String... args)
      throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("run-" + engine));
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + dir,
                // Flink's local environment runs at the number of cores, Weir's at its
                // parallelism.default (1): both at 2 (for Weir as 'weir run -p 2' would), since
                // StateMachineExample's events depend on the number of source subtasks.
                "-XX:ActiveProcessorCount=2",
                // Jobs of a few seconds, most of it start-up: the client compiler alone and the
                // serial collector take about a quarter off Flink's (8.4 s to 6.0 s on 2 cores).
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                // Flink's and Weir's logging on stderr, at WARN: stdout is what the job prints.
                "-Dslf4j.provider=org.slf4j.simple.SimpleServiceProvider",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
    if (engine == Engine.WEIR) {
      command.add("-Dparallelism.default=2");
    }
    command.addAll(List.of("-cp", classes + File.pathSeparator + engine.classPath(), mainClass));
    command.addAll(Arrays.asList(args));
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(dir.resolve("stdout").toFile())
            .redirectError(dir.resolve("stderr").toFile())
            .start();
    started.add(process);
    return new Job(engine, process, dir);
  }

  /**
   * Waits for {@code job} to end and returns the lines it printed that match {@code record}, after
   * print()'s subtask prefix ("3> "); its other lines are the example's usage notes.
   */
  private static List<String> printed(Job job, Pattern record) throws Exception {
    boolean ended = job.process().waitFor(120, TimeUnit.SECONDS);
    if (!ended) {
      job.process().destroyForcibly().waitFor();
    }
    String stderr = Files.readString(job.dir().resolve("stderr"));
    assertThat(ended).as(job.engine() + "'s job ended within 120 s; stderr:\n" + stderr).isTrue();
    assertThat(job.process().exitValue()).as(job.engine() + "'s job; stderr:\n" + stderr).isZero();
    List<String> lines = new ArrayList<>();
    for (String line : Files.readAllLines(job.dir().resolve("stdout"), StandardCharsets.UTF_8)) {
      String printed = SUBTASK.matcher(line).replaceFirst("");
      if (record.matcher(printed).matches()) {
        lines.add(printed);
      }
    }
    return lines;
  }

  private static ServerSocket server() throws IOException {
    return new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
  }

  private static String[] socketArgs(ServerSocket server) {
    return new String[] {
      "--hostname", "127.0.0.1", "--port", Integer.toString(server.getLocalPort())
    };
  }

  private static Socket accept(ServerSocket server, Job job) throws IOException {
    server.setSoTimeout(60_000);
    assertThat(job.process().isAlive()).as(job.engine() + "'s job is running").isTrue();
    return server.accept();
  }

  private static void send(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /**
   * Waits, if need be, until at least {@code timeLeft} ms remain of a tumbling processing-time
   * window of {@code size} ms (Flink's and Weir's start at multiples of the size) and returns that
   * window's start.
   */
  private static long windowWithTimeLeft(long size, long timeLeft) throws InterruptedException {
    long now = System.currentTimeMillis();
    long start = now - now % size;
    if (start + size - now < timeLeft) {
      start += size;
      Thread.sleep(start + 100 - now);
    }
    return start;
  }
}
