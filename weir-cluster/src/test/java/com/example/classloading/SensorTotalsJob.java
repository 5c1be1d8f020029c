package com.example.classloading;

import io.weir.api.CheckpointingMode;
import io.weir.api.RestartStrategy;
import io.weir.api.StreamEnvironment;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.connector.files.FileSink;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * A user's job as a class-loading test needs it, in a package of the user's (not {@code io.weir}):
 * readings ({@link Reading}, a POJO of the job's jar) from {@code env.fromData}, a total per sensor
 * in keyed state ({@link SensorTotal}, another POJO), each total written by a {@link Report} that
 * {@link ServiceLoader} finds through the thread's context class loader, with a unit read from a
 * resource of the jar through the same loader. The first attempt fails once a checkpoint holding
 * every reading's total completed; the next restores it, and then {@link LateReadingsSource} adds
 * one reading per sensor, whose totals go on from the restored ones.
 *
 * <p>Arguments: the output directory (an exactly-once file sink), the checkpoint storage URI.
 */
public final class SensorTotalsJob {

  /** The readings of {@code env.fromData}. */
  public static final List<Reading> READINGS =
      List.of(
          new Reading("sensor-a", 1),
          new Reading("sensor-b", 10),
          new Reading("sensor-a", 2),
          new Reading("sensor-c", 5),
          new Reading("sensor-b", 20),
          new Reading("sensor-a", 3));

  /** The sensors of the readings that arrive after the restart, each of 100. */
  public static final List<String> LATE_SENSORS = List.of("sensor-a", "sensor-b", "sensor-c");

  /** Every line the job writes, in no particular order. */
  public static final List<String> EXPECTED_LINES =
      List.of(
          "sensor-a: 1 readings, 1 kWh",
          "sensor-a: 2 readings, 3 kWh",
          "sensor-a: 3 readings, 6 kWh",
          "sensor-b: 1 readings, 10 kWh",
          "sensor-b: 2 readings, 30 kWh",
          "sensor-c: 1 readings, 5 kWh",
          // after the restore: the totals go on from the restored state
          "sensor-a: 4 readings, 106 kWh",
          "sensor-b: 3 readings, 130 kWh",
          "sensor-c: 2 readings, 105 kWh");

  private SensorTotalsJob() {}

  /**
   * A total per sensor, written as a line. Looks up its {@link Report} and unit through the context
   * class loader in {@code open}, as a library would, and fails in its first attempt once a
   * checkpoint that holds every reading of {@code fromData} completed.
   */
  public static final class Totals extends KeyedProcessFunction<String, Reading, String>
      implements CheckpointedFunction, CheckpointListener {
    private static final long serialVersionUID = 1L;

    private final int readings;
    private transient ValueState<SensorTotal> total;
    private transient Report report;
    private transient String unit;
    private transient int seen;

    /**
     * The checkpoint whose snapshot held every reading, in the first attempt; -1 before. Set in
     * {@code open}: the subtask's copy of the function is deserialized, which runs no initializer
     * of a transient field.
     */
    private transient long complete;

    public Totals(int readings) {
      this.readings = readings;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) {}

    @Override
    public void open(OpenContext openContext) throws IOException {
      complete = -1;
      total =
          getRuntimeContext()
              .getState(new ValueStateDescriptor<>("total", Types.POJO(SensorTotal.class)));
      ClassLoader context = Thread.currentThread().getContextClassLoader();
      Iterator<Report> reports = ServiceLoader.load(Report.class).iterator();
      if (!reports.hasNext()) {
        throw new IllegalStateException(
            "ServiceLoader finds no " + Report.class.getName() + " through " + context);
      }
      report = reports.next();
      try (InputStream in = context.getResourceAsStream("com/example/classloading/unit.txt")) {
        if (in == null) {
          throw new IllegalStateException(
              "The context class loader " + context + " has no com/example/classloading/unit.txt");
        }
        unit = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      }
    }

    @Override
    public void processElement(Reading reading, Context ctx, Collector<String> out)
        throws Exception {
      SensorTotal t = total.value();
      if (t == null) {
        t = new SensorTotal();
        t.sensor = reading.sensor;
      }
      t.count++;
      t.sum += reading.value;
      total.update(t);
      seen++;
      out.collect(report.line(t, unit));
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) {
      if (complete < 0 && seen == readings && getRuntimeContext().getAttemptNumber() == 0) {
        complete = context.getCheckpointId();
      }
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
      if (complete >= 0 && checkpointId >= complete) {
        throw new IllegalStateException(
            "injected failure once checkpoint " + checkpointId + " holds every reading");
      }
    }
  }

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    StreamEnvironment env = StreamEnvironment.create();
    env.setParallelism(1);
    env.enableCheckpointing(Duration.ofMillis(100), CheckpointingMode.EXACTLY_ONCE);
    env.getCheckpointConfig().setCheckpointStorage(args[1]);
    env.setRestartStrategy(RestartStrategy.fixedDelay(2, Duration.ofMillis(100)));
    env.fromData(READINGS)
        .name("Readings")
        .union(
            env.fromSource(
                    new LateReadingsSource(LATE_SENSORS, 100),
                    "Late readings",
                    TypeInformation.of(Reading.class))
                .name("Late readings"))
        .keyBy(r -> r.sensor)
        .process(new Totals(READINGS.size()))
        .name("Totals")
        .sinkTo(FileSink.exactlyOnce(out))
        .name("Files");
    env.execute("sensor-totals");
  }
}
