package io.weir.fs.s3;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a path of an S3 file system lives in its bucket: {@code /a/b} is the key {@code a/b}, and a
 * directory is the prefix {@code a/b/}. With entropy injection ({@code s3.entropy.key}), a path
 * holding the marker segment maps to two namespaces: state files go under their directory's entropy
 * prefix (the marker replaced by characters hashed from the directory), while {@code _metadata}
 * files and directory markers go under the path with the marker removed. Immutable.
 */
final class S3Keys {

  static final String METADATA_FILE = "_metadata";
  private static final char[] ENTROPY_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();

  /** The marker segment, or null for no entropy injection. */
  private final String entropyKey;

  private final int entropyLength;

  S3Keys(String entropyKey, int entropyLength) {
    this.entropyKey = entropyKey;
    this.entropyLength = entropyLength;
  }

  /** The object key of a file. */
  String fileKey(String path) {
    String parent = parentOf(path);
    if (!hasEntropyMarker(path) || parent == null || nameOf(path).equals(METADATA_FILE)) {
      return keyOf(removeEntropy(path));
    }
    return entropyDirectoryPrefix(parent) + nameOf(path);
  }

  /** The prefix of a directory in the namespace without entropy: markers, metadata, subdirs. */
  String directoryPrefix(String dir) {
    String key = keyOf(removeEntropy(dir));
    return key.isEmpty() ? "" : key + "/";
  }

  /** The prefix under which the state files directly in {@code dir} are kept. */
  String entropyDirectoryPrefix(String dir) {
    String logical = removeEntropy(dir);
    String marker = entropyKey;
    String entropy = entropy(logical);
    List<String> segments = new ArrayList<>();
    for (String segment : keyOf(dir).split("/", -1)) {
      segments.add(segment.equals(marker) ? entropy : segment);
    }
    return String.join("/", segments) + "/";
  }

  boolean hasEntropyMarker(String path) {
    String marker = entropyKey;
    if (marker == null) {
      return false;
    }
    for (String segment : path.split("/", -1)) {
      if (segment.equals(marker)) {
        return true;
      }
    }
    return false;
  }

  private String removeEntropy(String path) {
    if (!hasEntropyMarker(path)) {
      return path;
    }
    List<String> kept = new ArrayList<>();
    for (String segment : path.split("/", -1)) {
      if (!segment.equals(entropyKey)) {
        kept.add(segment);
      }
    }
    return String.join("/", kept);
  }

  /** {@code entropyLength} characters from a hash of {@code logicalDir}. */
  private String entropy(String logicalDir) {
    byte[] digest;
    try {
      digest =
          MessageDigest.getInstance("SHA-256").digest(logicalDir.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
    StringBuilder chars = new StringBuilder(entropyLength);
    for (int i = 0; i < entropyLength; i++) {
      chars.append(ENTROPY_CHARS[(digest[i % digest.length] & 0xff) % ENTROPY_CHARS.length]);
    }
    return chars.toString();
  }

  private static String keyOf(String path) {
    String p = path;
    while (p.startsWith("/")) {
      p = p.substring(1);
    }
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }

  static String parentOf(String path) {
    String p = keyOf(path);
    int slash = p.lastIndexOf('/');
    return slash < 0 ? (p.isEmpty() ? null : "/") : "/" + p.substring(0, slash);
  }

  private static String nameOf(String path) {
    String p = keyOf(path);
    return p.substring(p.lastIndexOf('/') + 1);
  }
}
