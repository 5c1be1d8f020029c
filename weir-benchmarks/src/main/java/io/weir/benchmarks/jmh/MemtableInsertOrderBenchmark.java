package io.weir.benchmarks.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * One write batch of W2's shape (50 000 keys of a key group's two bytes and a long, 8-byte values,
 * one subtask's dirty entries at a checkpoint) into an empty memtable, in the order the write cache
 * hands it over: by key group only ({@code keyGroup}, as until 365c2723), or by the whole key
 * ({@code key}). RocksDB's skip list remembers where its last insert went, so keys in order each
 * land beside the last one. Times the batch's serialized bytes into {@code RocksDB.write}; the
 * memtable is flushed between invocations, as a checkpoint flushes it.
 */
@State(Scope.Thread)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class MemtableInsertOrderBenchmark {

  @Param({"keyGroup", "key"})
  String order;

  @Param({"50000"})
  int keys;

  private Path dir;
  private Options options;
  private RocksDB db;
  private WriteOptions writeOptions;
  private FlushOptions flushOptions;
  private byte[] batch;

  @Setup(Level.Trial)
  public void open() throws IOException, RocksDBException {
    RocksDB.loadLibrary();
    dir = Files.createTempDirectory("memtable-order-");
    options = new Options().setCreateIfMissing(true);
    db = RocksDB.open(options, dir.toString());
    writeOptions = new WriteOptions().setDisableWAL(true);
    flushOptions = new FlushOptions().setWaitForFlush(true);
    Random random = new Random(46);
    byte[][] batchKeys = new byte[keys][];
    for (int i = 0; i < keys; i++) {
      long key = random.nextInt(2_000_000);
      byte[] bytes = new byte[10];
      bytes[1] = (byte) random.nextInt(64);
      for (int b = 0; b < 8; b++) {
        bytes[2 + b] = (byte) (key >>> (56 - 8 * b));
      }
      batchKeys[i] = bytes;
    }
    Comparator<byte[]> byKey = Arrays::compareUnsigned;
    Comparator<byte[]> byKeyGroup = Comparator.comparingInt(k -> (k[0] & 0xFF) << 8 | k[1] & 0xFF);
    // Stable: by key group only, the keys of one key group stay in the order they were drawn.
    Arrays.sort(batchKeys, order.equals("key") ? byKey : byKeyGroup);
    // Serialized once, as Weir hands RocksDB a batch's bytes (RocksDBPendingWrites.serialized).
    try (WriteBatch built = new WriteBatch()) {
      byte[] value = new byte[8];
      for (byte[] key : batchKeys) {
        built.put(key, value);
      }
      batch = built.data();
    }
  }

  @Setup(Level.Invocation)
  public void emptyTheMemtable() throws RocksDBException {
    db.flush(flushOptions);
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public void write() throws RocksDBException {
    try (WriteBatch serialized = new WriteBatch(batch)) {
      db.write(writeOptions, serialized);
    }
  }

  @TearDown(Level.Trial)
  public void close() throws IOException {
    flushOptions.close();
    writeOptions.close();
    db.close();
    options.close();
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
