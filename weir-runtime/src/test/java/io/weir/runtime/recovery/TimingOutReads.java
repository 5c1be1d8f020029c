package io.weir.runtime.recovery;

import io.weir.runtime.state.KeyedStateBackend;
import io.weir.runtime.state.KeyedStateBackendFactory;
import io.weir.runtime.storage.ForwardingFileSystem;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.util.function.Predicate;

/**
 * The local file system under a scheme of its own, whose reads of the paths a test names time out,
 * as a store that does not answer does: for the tests of what a failed read during a restore means.
 */
public final class TimingOutReads extends ForwardingFileSystem {

  private volatile Predicate<String> timesOut = path -> false;

  public TimingOutReads(String scheme) {
    super(scheme);
  }

  /** From now on, reads of the paths {@code timesOut} accepts time out. */
  public void timeOut(Predicate<String> timesOut) {
    this.timesOut = timesOut;
  }

  /** Every read succeeds again. */
  public void answer() {
    this.timesOut = path -> false;
  }

  @Override
  public InputStream open(String path) throws IOException {
    if (timesOut.test(path)) {
      throw new SocketTimeoutException("injected: reading " + path + " timed out");
    }
    return super.open(path);
  }

  /** A state backend never asked for: the checkpoints of these tests hold no keyed state. */
  public static final KeyedStateBackendFactory NO_KEYED_STATE =
      new KeyedStateBackendFactory() {
        @Override
        public String type() {
          return "none";
        }

        @Override
        public <K> KeyedStateBackend<K> create(Context<K> context) {
          throw new UnsupportedOperationException();
        }
      };
}
