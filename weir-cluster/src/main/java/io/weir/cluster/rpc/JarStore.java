package io.weir.cluster.rpc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.jar.JarInputStream;
import java.util.regex.Pattern;

/**
 * Job jars by content: a jar's id is the SHA-256 of its bytes, so the same jar uploaded twice is
 * stored once, and a TaskManager fetches a jar once for every job that uses it.
 */
public final class JarStore {

  private static final Pattern ID = Pattern.compile("[0-9a-f]{64}");

  private final Path dir;

  public JarStore(Path dir) throws IOException {
    this.dir = Files.createDirectories(dir);
    // The first digest of a JVM loads its security providers (about 25 ms): done here, at start-up,
    // rather than in the first upload or the first deployment.
    sha256();
  }

  /** A fresh SHA-256 digest, which gives jars their ids. */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Stores the jar read from {@code in}, returning its id; fails if it is no jar. */
  public String store(InputStream in, String name) throws IOException {
    Path tmp = dir.resolve(".upload-" + UUID.randomUUID());
    MessageDigest sha = sha256();
    try (DigestInputStream digest = new DigestInputStream(in, sha)) {
      Files.copy(digest, tmp);
    }
    try (JarInputStream jar = new JarInputStream(Files.newInputStream(tmp))) {
      if (jar.getNextJarEntry() == null && jar.getManifest() == null) {
        throw new IOException("it holds no entries");
      }
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw new IllegalArgumentException(
          "The upload '" + name + "' is not a jar file (" + e.getMessage() + ")", e);
    }
    String id = HexFormat.of().formatHex(sha.digest());
    Files.move(tmp, path(id), StandardCopyOption.REPLACE_EXISTING);
    if (name != null && !name.isBlank()) {
      Files.writeString(dir.resolve(id + ".name"), name);
    }
    return id;
  }

  /** A stored jar: its id, the name it was uploaded with, and when. */
  public record StoredJar(String id, String name, long uploadedMillis) {}

  /** Every jar stored here, the newest first. */
  public List<StoredJar> list() throws IOException {
    List<StoredJar> jars = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.jar")) {
      for (Path file : files) {
        String id = file.getFileName().toString().replaceFirst("\\.jar$", "");
        if (!valid(id)) {
          continue;
        }
        Path nameFile = dir.resolve(id + ".name");
        String name = Files.exists(nameFile) ? Files.readString(nameFile) : id + ".jar";
        jars.add(new StoredJar(id, name, Files.getLastModifiedTime(file).toMillis()));
      }
    }
    jars.sort(Comparator.comparingLong(StoredJar::uploadedMillis).reversed());
    return jars;
  }

  /**
   * How a user knows jar {@code id}: the name it was uploaded with and its id, e.g. {@code
   * 'job.jar' (3f2a...)}, or its id alone.
   */
  public String describe(String id) {
    try {
      Path nameFile = dir.resolve(id + ".name");
      if (valid(id) && Files.exists(nameFile)) {
        return "'" + Files.readString(nameFile).strip() + "' (" + id + ")";
      }
    } catch (IOException e) {
      // the id alone names it
    }
    return id;
  }

  public boolean contains(String id) {
    return valid(id) && Files.isRegularFile(path(id));
  }

  static boolean valid(String id) {
    return id != null && ID.matcher(id).matches();
  }

  /** Where jar {@code id} is (whether or not it exists). */
  public Path path(String id) {
    if (!valid(id)) {
      throw new IllegalArgumentException("'" + id + "' is no jar id (64 hex digits)");
    }
    return dir.resolve(id + ".jar");
  }
}
