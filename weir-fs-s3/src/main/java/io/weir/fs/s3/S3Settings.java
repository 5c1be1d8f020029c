package io.weir.fs.s3;

import io.weir.api.config.Configuration;
import io.weir.api.config.MemorySize;
import io.weir.api.config.TimeUtils;
import java.net.URI;
import java.time.Duration;

/**
 * The {@code s3.*} configuration of an S3 file system, read and checked once. Keys are Flink's
 * where Flink has them ({@code s3.endpoint}, {@code s3.path.style.access}, {@code s3.access-key},
 * {@code s3.secret-key}, {@code s3.entropy.key}, {@code s3.entropy.length}, {@code
 * s3.upload.min.part.size}, {@code s3.upload.max.concurrent.uploads}) and Hadoop S3A's under the
 * {@code s3.} prefix otherwise ({@code s3.attempts.maximum}, {@code s3.connection.maximum}, {@code
 * s3.paging.maximum}, {@code s3.bulk.delete.page.size}).
 *
 * @param endpoint the endpoint of an S3-compatible store, or null for AWS
 * @param region the signing region
 * @param pathStyle path-style requests ({@code http://endpoint/bucket/key}) instead of virtual-host
 *     style ({@code http://bucket.endpoint/key})
 * @param accessKey the access key, or null for the AWS default credential chain
 * @param secretKey the secret key, or null for the AWS default credential chain
 * @param entropyKey the marker in a path that entropy replaces, or null for none
 * @param entropyLength how many characters replace the marker
 * @param partSize bytes per part of a multipart upload; smaller files take one PUT
 * @param maxConcurrentUploads requests that write (PUT, part uploads) in flight at once
 * @param maxConnections HTTP connections in the pool
 * @param maxAttempts attempts per request, the first one included, before a request fails
 * @param retryBaseDelay the first retry's delay, doubled for each next one (with jitter)
 * @param connectionTimeout how long to wait for a TCP connection
 * @param pageSize keys per listing request
 * @param deletePageSize keys per DeleteObjects request
 */
record S3Settings(
    URI endpoint,
    String region,
    boolean pathStyle,
    String accessKey,
    String secretKey,
    String entropyKey,
    int entropyLength,
    int partSize,
    int maxConcurrentUploads,
    int maxConnections,
    int maxAttempts,
    Duration retryBaseDelay,
    Duration connectionTimeout,
    int pageSize,
    int deletePageSize) {

  static final String ENDPOINT = "s3.endpoint";
  static final String REGION = "s3.region";
  static final String PATH_STYLE = "s3.path.style.access";
  static final String ACCESS_KEY = "s3.access-key";
  static final String SECRET_KEY = "s3.secret-key";
  static final String ENTROPY_KEY = "s3.entropy.key";
  static final String ENTROPY_LENGTH = "s3.entropy.length";
  static final String PART_SIZE = "s3.upload.min.part.size";
  static final String MAX_CONCURRENT_UPLOADS = "s3.upload.max.concurrent.uploads";
  static final String MAX_CONNECTIONS = "s3.connection.maximum";
  static final String MAX_ATTEMPTS = "s3.attempts.maximum";
  static final String RETRY_BASE_DELAY = "s3.retry.interval";
  static final String CONNECTION_TIMEOUT = "s3.connection.timeout";
  static final String PAGE_SIZE = "s3.paging.maximum";
  static final String DELETE_PAGE_SIZE = "s3.bulk.delete.page.size";

  /** S3's smallest part (but the last). */
  static final int MIN_PART_SIZE = 5 * 1024 * 1024;

  static S3Settings from(Configuration conf) {
    String endpointText = blankToNull(conf.getString(ENDPOINT, null));
    URI endpoint = null;
    if (endpointText != null) {
      try {
        endpoint =
            URI.create(endpointText.contains("://") ? endpointText : "https://" + endpointText);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            ENDPOINT + ": '" + endpointText + "' is not a URI such as http://127.0.0.1:9000", e);
      }
    }
    // Flink also reads the older spellings s3.access.key and s3.secret.key.
    String accessKey =
        blankToNull(conf.getString(ACCESS_KEY, conf.getString("s3.access.key", null)));
    String secretKey =
        blankToNull(conf.getString(SECRET_KEY, conf.getString("s3.secret.key", null)));
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException(
          (accessKey == null ? ACCESS_KEY : SECRET_KEY)
              + " is not set but "
              + (accessKey == null ? SECRET_KEY : ACCESS_KEY)
              + " is: set both, or neither to use the AWS default credential chain");
    }
    String entropyKey = blankToNull(conf.getString(ENTROPY_KEY, null));
    if (entropyKey != null && entropyKey.contains("/")) {
      throw new IllegalArgumentException(
          ENTROPY_KEY + ": '" + entropyKey + "' must be one path segment, without '/'");
    }
    int entropyLength = positiveInt(conf, ENTROPY_LENGTH, 4);
    long partSize = bytes(conf, PART_SIZE, "5 mb");
    if (partSize < MIN_PART_SIZE || partSize > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          PART_SIZE + " is " + partSize + " bytes; S3 needs parts of 5 mb to 2 gb");
    }
    int maxConnections = positiveInt(conf, MAX_CONNECTIONS, 64);
    return new S3Settings(
        endpoint,
        blankToDefault(conf.getString(REGION, null), "us-east-1"),
        Boolean.parseBoolean(conf.getString(PATH_STYLE, "false").trim()),
        accessKey,
        secretKey,
        entropyKey,
        entropyLength,
        (int) partSize,
        positiveInt(conf, MAX_CONCURRENT_UPLOADS, 16),
        maxConnections,
        positiveInt(conf, MAX_ATTEMPTS, 10),
        duration(conf, RETRY_BASE_DELAY, "100 ms"),
        duration(conf, CONNECTION_TIMEOUT, "5 s"),
        Math.min(1000, positiveInt(conf, PAGE_SIZE, 1000)),
        Math.min(1000, positiveInt(conf, DELETE_PAGE_SIZE, 1000)));
  }

  private static int positiveInt(Configuration conf, String key, int defaultValue) {
    String text = conf.getString(key, null);
    if (text == null || text.isBlank()) {
      return defaultValue;
    }
    try {
      int value = Integer.parseInt(text.trim());
      if (value > 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(key + ": '" + text + "' is not a positive whole number");
  }

  private static long bytes(Configuration conf, String key, String defaultValue) {
    String text = conf.getString(key, defaultValue);
    try {
      return MemorySize.parse(text).bytes();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          key + ": '" + text + "' is not a size such as 8 mb: " + e.getMessage(), e);
    }
  }

  private static Duration duration(Configuration conf, String key, String defaultValue) {
    String text = conf.getString(key, defaultValue);
    try {
      return TimeUtils.parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          key + ": '" + text + "' is not a duration such as 100 ms or 5 s: " + e.getMessage(), e);
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  private static String blankToDefault(String s, String defaultValue) {
    String v = blankToNull(s);
    return v == null ? defaultValue : v;
  }

  @Override
  public String toString() {
    // Never the secret key.
    return "S3Settings[endpoint="
        + endpoint
        + ", region="
        + region
        + ", pathStyle="
        + pathStyle
        + ", credentials="
        + (accessKey != null ? "access key " + accessKey : "default chain")
        + ", entropy="
        + (entropyKey != null ? entropyKey + "/" + entropyLength : "none")
        + "]";
  }
}
