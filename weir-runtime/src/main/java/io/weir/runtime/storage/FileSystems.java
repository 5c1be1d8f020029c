package io.weir.runtime.storage;

import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Finds the {@link FileSystem} for a URI, and turns what a user typed (a URI or a local path) into
 * one. Supported: {@code file:} URIs and plain local paths. HDFS ({@code hdfs://}) and S3 ({@code
 * s3://}) come with their own modules.
 */
public final class FileSystems {

  /** A URI scheme of two or more characters, so that {@code C:\dir} stays a Windows path. */
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]+:.*");

  /** File systems plugged in by scheme (HDFS and S3 modules, tests). */
  private static final Map<String, FileSystem> REGISTERED = new ConcurrentHashMap<>();

  private FileSystems() {}

  /**
   * Plugs in the file system for {@code scheme}; its paths are the URI's path component. How the
   * HDFS and S3 modules (and tests that need a slow or failing file system) join in.
   */
  public static void register(String scheme, FileSystem fileSystem) {
    REGISTERED.put(scheme.toLowerCase(Locale.ROOT), fileSystem);
  }

  /** Removes a plugged-in file system. */
  public static void unregister(String scheme) {
    REGISTERED.remove(scheme.toLowerCase(Locale.ROOT));
  }

  /**
   * The file system that serves {@code uri}.
   *
   * @throws IllegalArgumentException for a scheme Weir has no file system for
   */
  public static FileSystem get(URI uri) {
    String scheme = uri.getScheme();
    if (scheme == null || scheme.toLowerCase(Locale.ROOT).equals("file")) {
      return LocalFileSystem.INSTANCE;
    }
    FileSystem registered = REGISTERED.get(scheme.toLowerCase(Locale.ROOT));
    if (registered != null) {
      return registered;
    }
    throw new IllegalArgumentException(
        "No file system for "
            + uri
            + ": the scheme '"
            + scheme
            + "' is not supported. Weir supports file:// URIs and local paths; hdfs:// and s3://"
            + " come with their own modules later.");
  }

  /**
   * The path of {@code uri} in the namespace of {@link #get(URI) its file system}, without a
   * trailing {@code '/'}. A URI without scheme is a local path, made absolute.
   *
   * @throws IllegalArgumentException for {@code file://host/...}, which usually means a missing
   *     slash
   */
  public static String pathOf(URI uri) {
    get(uri); // rejects unsupported schemes with the full message
    if (uri.getScheme() != null
        && REGISTERED.containsKey(uri.getScheme().toLowerCase(Locale.ROOT))) {
      return stripTrailingSlash(uri.getPath());
    }
    String authority = uri.getAuthority();
    if (authority != null && !authority.isEmpty() && !authority.equals("localhost")) {
      throw new IllegalArgumentException(
          "The local file URI "
              + uri
              + " names the host '"
              + authority
              + "'; a local path needs three slashes, as in file:///"
              + authority
              + uri.getPath());
    }
    String path = uri.getPath();
    if (path == null || path.isEmpty()) {
      throw new IllegalArgumentException(
          "The URI " + uri + " has no path; give a directory such as file:///var/weir/checkpoints");
    }
    String absolute = Path.of(path).toAbsolutePath().normalize().toString().replace('\\', '/');
    return stripTrailingSlash(absolute);
  }

  /**
   * What a user gave as a location, {@code file:///var/weir}, {@code hdfs://nn/weir} or {@code
   * /var/weir} or {@code relative/dir}, as a URI.
   */
  public static URI toUri(String pathOrUri) {
    String text = pathOrUri.trim();
    if (text.isEmpty()) {
      throw new IllegalArgumentException("An empty string is not a path or URI");
    }
    if (SCHEME.matcher(text).matches()) {
      try {
        return URI.create(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "'" + text + "' is not a valid URI: " + e.getMessage(), e);
      }
    }
    return Path.of(text).toAbsolutePath().normalize().toUri();
  }

  /** {@code dir + '/' + name}, without doubling the separator. */
  static String child(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }

  /** The directory holding {@code path}, or null at the root. */
  static String parent(String path) {
    String p = stripTrailingSlash(path);
    int slash = p.lastIndexOf('/');
    if (slash < 0 || p.equals("/")) {
      return null;
    }
    return slash == 0 ? "/" : p.substring(0, slash);
  }

  /** The last segment of {@code path}. */
  static String name(String path) {
    String p = stripTrailingSlash(path);
    return p.substring(p.lastIndexOf('/') + 1);
  }

  private static String stripTrailingSlash(String path) {
    String p = path;
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }
}
