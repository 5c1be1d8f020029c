package io.weir.runtime.storage;

import io.weir.api.config.Configuration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Finds the {@link FileSystem} for a URI, and turns what a user typed (a URI or a local path) into
 * one. {@code file:} URIs and plain local paths are built in; other schemes come from modules on
 * the class path that register a {@link FileSystemFactory} with {@link ServiceLoader}: {@code
 * hdfs://} from {@code weir-fs-hadoop}, {@code s3://} and {@code s3a://} from {@code weir-fs-s3}.
 *
 * <p>One file system is kept per scheme, authority (name node, bucket) and value of the
 * configuration keys its factory reads, so it is made once and shared by the jobs that configure it
 * alike. {@link #get(URI)} without a configuration returns the one made last for that scheme and
 * authority, or makes one from an empty configuration (the environment's defaults: {@code
 * HADOOP_CONF_DIR}, the AWS default credential chain). Thread-safe.
 */
public final class FileSystems {

  /** A URI scheme of two or more characters, so that {@code C:\dir} stays a Windows path. */
  private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]+:.*");

  /** Which module serves the schemes Weir knows, for the error when it is missing. */
  private static final Map<String, String> MODULES =
      Map.of("hdfs", "weir-fs-hadoop", "s3", "weir-fs-s3", "s3a", "weir-fs-s3");

  /** File systems plugged in by scheme by hand (tests that need a slow or failing one). */
  private static final Map<String, FileSystem> REGISTERED = new ConcurrentHashMap<>();

  /** File systems made by factories, by {@code scheme://authority}. */
  private static final Map<String, Made> MADE = new ConcurrentHashMap<>();

  private static volatile Map<String, FileSystemFactory> factories;

  /**
   * Factories found only through a job's own class loader (a job jar that brings a file system
   * module), by that loader: never shared with other jobs, and forgotten with the loader ({@link
   * #forget}).
   */
  private static final Map<ClassLoader, Map<String, FileSystemFactory>> JOB_FACTORIES =
      Collections.synchronizedMap(new WeakHashMap<>());

  private FileSystems() {}

  /**
   * Plugs in the file system for {@code scheme}, ahead of any factory; its paths are the URI's path
   * component. For tests that need a slow or failing file system.
   */
  public static void register(String scheme, FileSystem fileSystem) {
    REGISTERED.put(scheme.toLowerCase(Locale.ROOT), fileSystem);
  }

  /** Removes a plugged-in file system. */
  public static void unregister(String scheme) {
    REGISTERED.remove(scheme.toLowerCase(Locale.ROOT));
  }

  /**
   * The file system that serves {@code uri}, as configured last for its scheme and authority.
   *
   * @throws IllegalArgumentException for a scheme Weir has no file system for, naming the module to
   *     add
   */
  public static FileSystem get(URI uri) {
    return get(uri, null);
  }

  /**
   * The file system that serves {@code uri}, configured by {@code conf} (the job's configuration).
   *
   * @param conf the configuration, or null for the one used last for this scheme and authority
   * @throws IllegalArgumentException for a scheme Weir has no file system for, naming the module to
   *     add, or a configuration the file system refuses
   * @throws java.io.UncheckedIOException naming the URI if the file system cannot be made
   */
  public static FileSystem get(URI uri, Configuration conf) {
    String scheme = uri.getScheme();
    if (scheme == null || scheme.toLowerCase(Locale.ROOT).equals("file")) {
      return LocalFileSystem.INSTANCE;
    }
    scheme = scheme.toLowerCase(Locale.ROOT);
    FileSystem registered = REGISTERED.get(scheme);
    if (registered != null) {
      return registered;
    }
    FileSystemFactory factory = factories().get(scheme);
    ClassLoader jobLoader = null;
    if (factory == null) {
      // A job's own class loader (a job jar that brings the module) may see more.
      ClassLoader context = Thread.currentThread().getContextClassLoader();
      if (context != null && context != FileSystems.class.getClassLoader()) {
        factory = jobFactories(context).get(scheme);
        jobLoader = context;
      }
    }
    if (factory == null) {
      throw new IllegalArgumentException(noFileSystem(uri, scheme));
    }
    String key =
        scheme
            + "://"
            + Objects.requireNonNullElse(uri.getAuthority(), "")
            + (jobLoader == null ? "" : " of " + System.identityHashCode(jobLoader));
    Made made = MADE.get(key);
    if (made != null && (conf == null || made.settings().equals(settings(factory, conf)))) {
      return made.fileSystem();
    }
    Configuration effective = conf != null ? conf : new Configuration();
    synchronized (MADE) {
      made = MADE.get(key);
      Map<String, String> settings = settings(factory, effective);
      if (made == null || (conf != null && !made.settings().equals(settings))) {
        try {
          made = new Made(settings, factory.create(uri, effective), jobLoader);
        } catch (IOException e) {
          throw new UncheckedIOException("Cannot open the file system for " + uri + ": " + e, e);
        }
        MADE.put(key, made);
      }
      return made.fileSystem();
    }
  }

  /**
   * Checks before a job runs that {@code uri} names a directory its file system can reach with
   * {@code conf}: the scheme is served, the server answers, the credentials and the bucket are
   * good.
   *
   * @throws IllegalArgumentException naming the URI and what to do, if not
   */
  public static void checkAccess(URI uri, Configuration conf) {
    FileSystem fs = get(uri, conf);
    try {
      fs.checkAccess(pathOf(uri));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "Cannot use " + uri + " for checkpoints: " + e.getMessage(), e);
    }
  }

  /** Forgets (and closes, where they can be) the file systems made so far. For tests. */
  public static void closeAll() {
    synchronized (MADE) {
      MADE.values().forEach(FileSystems::close);
      MADE.clear();
    }
    JOB_FACTORIES.clear();
  }

  /**
   * Forgets (and closes) what was found and made through the class loader of a job that ended, so
   * that no later job gets a file system of a closed loader and the loader is not kept alive.
   */
  public static void forget(ClassLoader jobLoader) {
    JOB_FACTORIES.remove(jobLoader);
    synchronized (MADE) {
      MADE.values()
          .removeIf(
              made -> {
                if (made.jobLoader() != jobLoader) {
                  return false;
                }
                close(made);
                return true;
              });
    }
  }

  private static void close(Made made) {
    if (made.fileSystem() instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // Best effort: the file system is forgotten either way.
      }
    }
  }

  /** The factories a job's class loader sees, looked up once per loader. */
  private static Map<String, FileSystemFactory> jobFactories(ClassLoader loader) {
    synchronized (JOB_FACTORIES) {
      Map<String, FileSystemFactory> found = JOB_FACTORIES.get(loader);
      if (found == null) {
        found = new HashMap<>();
        for (FileSystemFactory factory : ServiceLoader.load(FileSystemFactory.class, loader)) {
          found.putIfAbsent(factory.scheme().toLowerCase(Locale.ROOT), factory);
        }
        JOB_FACTORIES.put(loader, found);
      }
      return found;
    }
  }

  private static Map<String, String> settings(FileSystemFactory factory, Configuration conf) {
    Map<String, String> settings = new TreeMap<>();
    conf.toMap()
        .forEach(
            (k, v) -> {
              if (factory.configPrefixes().stream().anyMatch(k::startsWith)) {
                settings.put(k, v);
              }
            });
    return settings;
  }

  private static Map<String, FileSystemFactory> factories() {
    Map<String, FileSystemFactory> found = factories;
    if (found == null) {
      found = new ConcurrentHashMap<>();
      for (FileSystemFactory factory :
          ServiceLoader.load(FileSystemFactory.class, FileSystems.class.getClassLoader())) {
        found.putIfAbsent(factory.scheme().toLowerCase(Locale.ROOT), factory);
      }
      factories = found;
    }
    return found;
  }

  private static String noFileSystem(URI uri, String scheme) {
    String module = MODULES.get(scheme);
    StringBuilder message =
        new StringBuilder("No file system for ")
            .append(uri)
            .append(": the scheme '")
            .append(scheme)
            .append("' is not supported: no module on the class path serves it. ");
    if (module != null) {
      message
          .append("Add the module ")
          .append(module)
          .append(" (io.weir:")
          .append(module)
          .append(") to the job's class path.");
    } else {
      message.append(
          "Weir serves file:// URIs and local paths, hdfs:// with the module weir-fs-hadoop and"
              + " s3:// with the module weir-fs-s3.");
    }
    if (!factories().isEmpty()) {
      message.append(" Schemes served now: file, ").append(new TreeMap<>(factories()).keySet());
    }
    return message.toString();
  }

  /** A file system made by a factory, and the settings it was made with. */
  /**
   * A file system made by a factory; {@code jobLoader} is the job's class loader it was found
   * through, or null for the factories on Weir's own class path.
   */
  private record Made(Map<String, String> settings, FileSystem fileSystem, ClassLoader jobLoader) {}

  /**
   * The path of {@code uri} in the namespace of {@link #get(URI) its file system}, without a
   * trailing {@code '/'}. A URI without scheme is a local path, made absolute.
   *
   * @throws IllegalArgumentException for {@code file://host/...}, which usually means a missing
   *     slash
   */
  public static String pathOf(URI uri) {
    get(uri); // rejects unsupported schemes with the full message
    if (uri.getScheme() != null && !uri.getScheme().equalsIgnoreCase("file")) {
      return stripTrailingSlash(Objects.requireNonNullElse(uri.getPath(), ""));
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
   * Whether {@code pathOrUri} names one place wherever it is read: a URI with a scheme ({@code
   * hdfs://}, {@code s3://}, {@code file:/}) or an absolute path, not a path relative to some
   * process's working directory.
   */
  public static boolean isAbsolute(String pathOrUri) {
    String text = pathOrUri.trim();
    return SCHEME.matcher(text).matches() || (!text.isEmpty() && Path.of(text).isAbsolute());
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
