package io.weir.api;

import io.weir.api.source.Boundedness;
import io.weir.api.source.InputStatus;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SimpleVersionedSerializer;
import io.weir.api.source.Source;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The source of {@code socketTextStream}: the text a server sends, cut at a delimiter. A thread of
 * the reader's own reads the socket into a bounded queue, which the task thread drains, so a slow
 * job back-pressures the socket. One split without progress: nothing is replayed after a restore,
 * as in Flink.
 */
final class SocketTextSource implements Source<String, Integer> {
  private static final long serialVersionUID = 1L;

  private static final long RETRY_MILLIS = 1000;

  private final String hostname;
  private final int port;
  private final String delimiter;
  private final long maxRetry;

  SocketTextSource(String hostname, int port, String delimiter, long maxRetry) {
    this.hostname = Objects.requireNonNull(hostname, "socketTextStream: hostname");
    if (port < 0 || port > 0xFFFF) {
      throw new IllegalArgumentException(
          "socketTextStream: the port must be between 0 and 65535, but was " + port);
    }
    if (delimiter == null || delimiter.isEmpty()) {
      throw new IllegalArgumentException("socketTextStream: the delimiter must not be empty");
    }
    if (maxRetry < -1) {
      throw new IllegalArgumentException(
          "socketTextStream: maxRetry must be -1 (forever), 0 or more, but was " + maxRetry);
    }
    this.port = port;
    this.delimiter = delimiter;
    this.maxRetry = maxRetry;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public List<Integer> createSplits(int parallelism) {
    return List.of(0);
  }

  @Override
  public SourceReader<String, Integer> createReader(SourceReaderContext context) {
    return new SocketReader();
  }

  @Override
  public SimpleVersionedSerializer<Integer> getSplitSerializer() {
    return IntSplitSerializer.INSTANCE;
  }

  @Override
  public String toString() {
    return "socketTextStream(" + hostname + ":" + port + ")";
  }

  /** The end of the text, after the last line, in the queue. */
  private static final Object END = new Object();

  /** Reads on a thread of its own; the task thread polls. */
  private final class SocketReader implements SourceReader<String, Integer> {
    private final BlockingQueue<Object> lines = new ArrayBlockingQueue<>(1024);
    private volatile CompletableFuture<Void> available = new CompletableFuture<>();
    private volatile boolean closed;
    private volatile Socket socket;
    private Thread thread;
    private boolean hasSplit;

    @Override
    public void addSplits(List<Integer> splits) {
      if (!splits.isEmpty() && thread == null) {
        hasSplit = true;
        thread = new Thread(this::run, "socketTextStream " + hostname + ":" + port);
        thread.setDaemon(true);
        thread.start();
      }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<String> output) throws Exception {
      if (!hasSplit) {
        return InputStatus.END_OF_INPUT;
      }
      Object next = lines.poll();
      if (next == null) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        available = future;
        next = lines.poll(); // an element may have come before the new future was visible
        if (next == null) {
          return InputStatus.NOTHING_AVAILABLE;
        }
        future.complete(null);
      }
      if (next == END) {
        return InputStatus.END_OF_INPUT;
      }
      if (next instanceof IOException e) {
        throw new IOException(
            "socketTextStream lost its connection to "
                + hostname
                + ":"
                + port
                + (maxRetry == 0 ? "" : " and could not connect again"),
            e);
      }
      output.collect((String) next);
      return InputStatus.MORE_AVAILABLE;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return available;
    }

    @Override
    public List<Integer> snapshotState(long checkpointId) {
      return hasSplit ? List.of(0) : List.of();
    }

    @Override
    public void close() throws Exception {
      closed = true;
      Socket s = socket;
      if (s != null) {
        s.close();
      }
      if (thread != null) {
        thread.interrupt();
      }
    }

    private void run() {
      long attempts = 0;
      Object last = END;
      while (!closed) {
        try (Socket s = new Socket()) {
          socket = s;
          s.connect(new InetSocketAddress(hostname, port), 10_000);
          attempts = 0;
          read(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
          last = END;
        } catch (IOException e) {
          last = e;
        } catch (InterruptedException e) {
          return;
        }
        if (closed || (maxRetry != -1 && attempts++ >= maxRetry)) {
          break;
        }
        try {
          Thread.sleep(RETRY_MILLIS); // Flink's pause between connection attempts
        } catch (InterruptedException e) {
          return;
        }
      }
      try {
        put(last);
      } catch (InterruptedException e) {
        // closed
      }
    }

    private void read(Reader in) throws IOException, InterruptedException {
      StringBuilder buffer = new StringBuilder();
      char[] chars = new char[8192];
      int n;
      while (!closed && (n = in.read(chars)) != -1) {
        buffer.append(chars, 0, n);
        int at;
        while ((at = buffer.indexOf(delimiter)) != -1) {
          String line = buffer.substring(0, at);
          if (delimiter.equals("\n") && line.endsWith("\r")) {
            line = line.substring(0, line.length() - 1);
          }
          put(line);
          buffer.delete(0, at + delimiter.length());
        }
      }
      if (buffer.length() > 0) {
        put(buffer.toString()); // the text after the last delimiter, as Flink emits it
      }
    }

    private void put(Object element) throws InterruptedException {
      while (!closed && !lines.offer(element, 50, TimeUnit.MILLISECONDS)) {
        // the job is behind: wait
      }
      available.complete(null);
    }
  }
}
