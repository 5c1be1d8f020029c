package io.weir.api;

import io.weir.api.config.Configuration;
import io.weir.api.functions.CheckpointListener;
import io.weir.api.functions.CheckpointedFunction;
import io.weir.api.sink.Sink;
import io.weir.api.sink.SinkWriter;
import io.weir.api.sink.WriterInitContext;
import io.weir.api.state.FunctionInitializationContext;
import io.weir.api.state.FunctionSnapshotContext;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.typeutils.DataInputDeserializer;
import io.weir.api.typeutils.DataOutputSerializer;
import io.weir.api.typeutils.TypeSerializer;
import io.weir.api.typeutils.TypeSerializerSnapshot;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The sink of {@code executeAndCollect}, with parallelism 1: sends every element to the {@link
 * CollectResultIterator} of the program that called it, over a TCP connection the sink opens to the
 * address the program published in the job's configuration (so the copy of the sink that a
 * TaskManager builds when it re-runs the program's {@code main} finds the same address).
 *
 * <p>Elements are numbered from 0 in the order written. The sink keeps those the iterator has not
 * acknowledged yet, at most {@link #CAPACITY}; with that many, {@code write} waits, which
 * back-pressures the job while the reader is behind. A checkpoint stores them with the count
 * written so far, and its completion tells the iterator that the elements before that count are
 * final, which makes them visible to the reader. A restored sink tells the iterator the count of
 * its checkpoint (the iterator drops what it received after it, which the job now produces again)
 * and sends again what the iterator had not acknowledged: the reader sees every element once.
 * Without checkpointing, elements are visible when they arrive, and a restart starts the count over
 * (see {@link CollectResultIterator}).
 *
 * <p>The protocol, sink to iterator: {@code HELLO} (token, whether checkpointing is on, the
 * restored count or -1, the number of the first element it sends), then {@code ELEMENT} (length,
 * bytes), {@code COMMIT} (count) and {@code END} (count) frames; iterator to sink: the count
 * received so far, a long, as often as it likes. All sink calls come from the task thread.
 */
final class CollectSink<T> implements Sink<T>, CheckpointedFunction, CheckpointListener {
  private static final long serialVersionUID = 1L;

  /** Elements the sink holds that the iterator has not acknowledged, and that it has not read. */
  static final int CAPACITY = 4096;

  /** Prefix of the configuration keys that hold each collect sink's address. */
  static final String KEY_PREFIX = "collect-sink.";

  static final byte HELLO = 1;
  static final byte ELEMENT = 2;
  static final byte COMMIT = 3;
  static final byte END = 4;

  private static final int STATE_FORMAT = 1;
  private static final int CONNECT_TIMEOUT_MILLIS = 10_000;

  /** The configuration key of this sink's address: {@code token@host:port}. */
  private final String addressKey;

  private final byte[] serializerSnapshot;

  /** Set by {@link #validate} from the job's configuration, in every process building the plan. */
  private String address;

  private boolean checkpointing;

  // State of the running sink, on the task thread.
  private transient ListState<byte[]> state;

  /** Elements written and not acknowledged, the first one numbered {@link #acknowledged}. */
  private transient ArrayDeque<byte[]> unacknowledged;

  private transient long acknowledged;
  private transient long written;
  private transient long restoredCount;

  /** The count written at each checkpoint not yet known to be complete. */
  private transient TreeMap<Long, Long> pendingCommits;

  CollectSink(String addressKey, byte[] serializerSnapshot) {
    this.addressKey = addressKey;
    this.serializerSnapshot = serializerSnapshot;
  }

  /** The configuration key of the {@code index}-th collect sink of a program's environment. */
  static String addressKey(int index) {
    return KEY_PREFIX + index + ".address";
  }

  /** How many collect sinks a program defined on an environment of this configuration so far. */
  static int definedIn(Configuration configuration) {
    int count = 0;
    for (String key : configuration.toMap().keySet()) {
      if (key.startsWith(KEY_PREFIX)) {
        count++;
      }
    }
    return count;
  }

  static <T> byte[] snapshotOf(TypeSerializer<T> serializer) {
    try {
      DataOutputSerializer out = new DataOutputSerializer(64);
      TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
      return out.getCopyOfBuffer();
    } catch (IOException e) {
      throw new IllegalStateException("Cannot describe the serializer " + serializer, e);
    }
  }

  @Override
  public void validate(Configuration jobConfiguration) {
    address = jobConfiguration.getString(addressKey, null);
    if (address == null) {
      throw new IllegalStateException(
          "The job's configuration has no "
              + addressKey
              + ": the address where executeAndCollect() receives its results. It is set by"
              + " executeAndCollect() itself; do not remove collect-sink.* keys from the job's"
              + " settings");
    }
    checkpointing = CheckpointConfig.isCheckpointingEnabled(jobConfiguration);
  }

  @Override
  public boolean keepsElements() {
    return false; // write serializes the element at once
  }

  @Override
  public void initializeState(FunctionInitializationContext context) throws Exception {
    state =
        context
            .getOperatorStateStore()
            .getListState(new ListStateDescriptor<>("collect-sink-results", byte[].class));
    unacknowledged = new ArrayDeque<>();
    pendingCommits = new TreeMap<>();
    restoredCount = -1;
    boolean header = true;
    for (byte[] element : state.get()) {
      if (header) {
        DataInputDeserializer in = new DataInputDeserializer(element);
        int format = in.readInt();
        if (format != STATE_FORMAT) {
          throw new IOException(
              "The state of executeAndCollect's sink has format "
                  + format
                  + ", which this Weir version cannot read (it reads "
                  + STATE_FORMAT
                  + ")");
        }
        acknowledged = in.readLong();
        written = in.readLong();
        restoredCount = written;
        header = false;
      } else {
        unacknowledged.add(element);
      }
    }
  }

  @Override
  public void snapshotState(FunctionSnapshotContext context) throws Exception {
    List<byte[]> elements = new ArrayList<>(unacknowledged.size() + 1);
    DataOutputSerializer header = new DataOutputSerializer(20);
    header.writeInt(STATE_FORMAT);
    header.writeLong(acknowledged);
    header.writeLong(written);
    elements.add(header.getCopyOfBuffer());
    elements.addAll(unacknowledged);
    state.update(elements);
    pendingCommits.put(context.getCheckpointId(), written);
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) throws Exception {
    NavigableMap<Long, Long> due = pendingCommits.headMap(checkpointId, true);
    if (due.isEmpty()) {
      return;
    }
    long count = due.lastEntry().getValue();
    due.clear();
    if (writer != null) {
      writer.send(COMMIT, count);
    }
  }

  private transient Writer writer;

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) throws Exception {
    if (address == null) {
      throw new IllegalStateException(
          "executeAndCollect's sink was not given its address: the plan was built without"
              + " validating its sinks");
    }
    if (unacknowledged == null) { // no state initialized: run outside a task
      unacknowledged = new ArrayDeque<>();
      pendingCommits = new TreeMap<>();
      restoredCount = -1;
    }
    writer = new Writer(context.attemptNumber());
    return writer;
  }

  @Override
  public String toString() {
    return "CollectSink";
  }

  /** The connection to the iterator. */
  private final class Writer implements SinkWriter<T> {
    private final TypeSerializer<T> serializer;
    private final DataOutputSerializer buffer = new DataOutputSerializer(64);
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final byte[] ack = new byte[Long.BYTES];
    private int ackFill;

    Writer(int attempt) throws IOException {
      DataInputDeserializer snapshotIn = new DataInputDeserializer(serializerSnapshot);
      ClassLoader loader = Thread.currentThread().getContextClassLoader();
      TypeSerializerSnapshot<T> snapshot =
          TypeSerializerSnapshot.readVersionedSnapshot(
              snapshotIn, loader != null ? loader : CollectSink.class.getClassLoader());
      this.serializer = snapshot.restoreSerializer();
      int at = address.indexOf('@');
      int colon = address.lastIndexOf(':');
      String token = address.substring(0, at);
      String host = address.substring(at + 1, colon);
      int port = Integer.parseInt(address.substring(colon + 1));
      this.socket = new Socket();
      try {
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
        socket.setSoTimeout(100);
      } catch (IOException e) {
        socket.close();
        throw new IOException(
            "executeAndCollect's sink (attempt "
                + attempt
                + ") cannot reach the program that collects the results at "
                + host
                + ":"
                + port
                + ". On a cluster that is the JobManager's jobmanager.rpc.address: every"
                + " TaskManager must reach it. If the program closed its iterator, the job is"
                + " being cancelled: "
                + e,
            e);
      }
      this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
      this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      out.writeByte(HELLO);
      out.writeUTF(token);
      out.writeBoolean(checkpointing);
      out.writeLong(restoredCount);
      out.writeLong(acknowledged);
      for (byte[] element : unacknowledged) {
        writeElement(element);
      }
      out.flush();
    }

    @Override
    public void write(T element, Context context) throws Exception {
      buffer.clear();
      serializer.serialize(element, buffer);
      byte[] bytes = buffer.getCopyOfBuffer();
      while (unacknowledged.size() >= CAPACITY) {
        awaitAcknowledgement(); // the reader is behind: back-pressure the job
      }
      unacknowledged.add(bytes);
      written++;
      writeElement(bytes);
      out.flush();
      while (in.available() > 0) {
        readAcknowledgement();
      }
    }

    /** At the end of the input: waits until the iterator has every element. */
    @Override
    public void flush(boolean endOfInput) throws Exception {
      if (endOfInput) {
        send(END, written);
        while (acknowledged < written) {
          awaitAcknowledgement();
        }
      }
    }

    void send(byte frame, long count) throws IOException {
      out.writeByte(frame);
      out.writeLong(count);
      out.flush();
    }

    private void writeElement(byte[] bytes) throws IOException {
      out.writeByte(ELEMENT);
      out.writeInt(bytes.length);
      out.write(bytes);
    }

    /** Waits up to the socket's timeout for an acknowledgement; throws once cancelled. */
    private void awaitAcknowledgement() throws IOException, InterruptedException {
      try {
        readAcknowledgement();
      } catch (SocketTimeoutException e) {
        if (Thread.interrupted()) {
          throw new InterruptedException("Cancelled while waiting for the collecting program");
        }
      }
    }

    /**
     * Reads what the socket has of an acknowledgement (blocking up to its timeout when it has
     * nothing), keeping a partial one for the next call, as a timeout may split it.
     */
    private void readAcknowledgement() throws IOException {
      int n = in.read(ack, ackFill, Long.BYTES - ackFill);
      if (n < 0) {
        throw new EOFException(
            "The program collecting the results of executeAndCollect closed its connection");
      }
      ackFill += n;
      if (ackFill == Long.BYTES) {
        ackFill = 0;
        acknowledge(ByteBuffer.wrap(ack).getLong());
      }
    }

    private void acknowledge(long count) {
      while (acknowledged < count && !unacknowledged.isEmpty()) {
        unacknowledged.poll();
        acknowledged++;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
