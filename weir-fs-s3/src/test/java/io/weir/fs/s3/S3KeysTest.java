package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Paths to keys, with and without entropy injection; no server needed. */
class S3KeysTest {

  private final S3Keys plain = new S3Keys(null, 4);
  private final S3Keys entropy = new S3Keys("_entropy_", 4);

  @Test
  void aPathIsItsKeyWithoutTheLeadingSlash() {
    assertThat(plain.fileKey("/checkpoints/job/chk-1/state"))
        .isEqualTo("checkpoints/job/chk-1/state");
    assertThat(plain.directoryPrefix("/checkpoints/job")).isEqualTo("checkpoints/job/");
    assertThat(plain.directoryPrefix("/")).isEmpty();
    assertThat(plain.hasEntropyMarker("/_entropy_/checkpoints")).isFalse();
  }

  @Test
  void stateFilesGetTheirDirectorysEntropyAndMetadataLosesTheMarker() {
    String state = entropy.fileKey("/_entropy_/checkpoints/job/chk-1/state");
    assertThat(state).matches("[0-9a-z]{4}/checkpoints/job/chk-1/state");
    // The same directory, the same prefix: its files are listed with one request.
    assertThat(entropy.fileKey("/_entropy_/checkpoints/job/chk-1/other"))
        .startsWith(state.substring(0, 5));
    assertThat(entropy.entropyDirectoryPrefix("/_entropy_/checkpoints/job/chk-1"))
        .isEqualTo(state.substring(0, state.length() - "state".length()));
    assertThat(entropy.fileKey("/_entropy_/checkpoints/job/chk-1/_metadata"))
        .isEqualTo("checkpoints/job/chk-1/_metadata");
    assertThat(entropy.directoryPrefix("/_entropy_/checkpoints/job/chk-1"))
        .isEqualTo("checkpoints/job/chk-1/");
  }

  @Test
  void directoriesSpreadOverPrefixes() {
    java.util.Set<String> prefixes = new java.util.HashSet<>();
    for (int n = 0; n < 100; n++) {
      prefixes.add(
          entropy.fileKey("/_entropy_/checkpoints/job/chk-" + n + "/state").substring(0, 4));
    }
    assertThat(prefixes).hasSizeGreaterThan(90);
  }

  @Test
  void onlyAWholeSegmentIsTheMarker() {
    assertThat(entropy.hasEntropyMarker("/my_entropy_dir/x")).isFalse();
    assertThat(entropy.fileKey("/my_entropy_dir/x")).isEqualTo("my_entropy_dir/x");
  }
}
