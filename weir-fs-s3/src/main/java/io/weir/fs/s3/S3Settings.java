package io.weir.fs.s3;

import static io.weir.fs.s3.S3Options.ACCESS_KEY;
import static io.weir.fs.s3.S3Options.CONNECTION_TIMEOUT;
import static io.weir.fs.s3.S3Options.DELETE_PAGE_SIZE;
import static io.weir.fs.s3.S3Options.ENDPOINT;
import static io.weir.fs.s3.S3Options.ENTROPY_KEY;
import static io.weir.fs.s3.S3Options.ENTROPY_LENGTH;
import static io.weir.fs.s3.S3Options.MAX_ATTEMPTS;
import static io.weir.fs.s3.S3Options.MAX_CONCURRENT_UPLOADS;
import static io.weir.fs.s3.S3Options.MAX_CONNECTIONS;
import static io.weir.fs.s3.S3Options.PAGE_SIZE;
import static io.weir.fs.s3.S3Options.PART_SIZE;
import static io.weir.fs.s3.S3Options.PATH_STYLE;
import static io.weir.fs.s3.S3Options.REGION;
import static io.weir.fs.s3.S3Options.RETRY_BASE_DELAY;
import static io.weir.fs.s3.S3Options.SECRET_KEY;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.Configuration;
import java.net.URI;
import java.time.Duration;

/**
 * The {@code s3.*} configuration of an S3 file system ({@link S3Options}), read and checked once.
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

  /** S3's smallest part (but the last). */
  static final int MIN_PART_SIZE = 5 * 1024 * 1024;

  static S3Settings from(Configuration conf) {
    String endpointText = blankToNull(conf.get(ENDPOINT));
    URI endpoint = null;
    if (endpointText != null) {
      try {
        endpoint =
            URI.create(endpointText.contains("://") ? endpointText : "https://" + endpointText);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            ENDPOINT.key() + ": '" + endpointText + "' is not a URI such as http://127.0.0.1:9000",
            e);
      }
    }
    // Flink also reads the older spellings s3.access.key and s3.secret.key: deprecated keys.
    String accessKey = blankToNull(conf.get(ACCESS_KEY));
    String secretKey = blankToNull(conf.get(SECRET_KEY));
    if ((accessKey == null) != (secretKey == null)) {
      throw new IllegalArgumentException(
          (accessKey == null ? ACCESS_KEY : SECRET_KEY).key()
              + " is not set but "
              + (accessKey == null ? SECRET_KEY : ACCESS_KEY).key()
              + " is: set both, or neither to use the AWS default credential chain");
    }
    String entropyKey = blankToNull(conf.get(ENTROPY_KEY));
    if (entropyKey != null && entropyKey.contains("/")) {
      throw new IllegalArgumentException(
          ENTROPY_KEY.key() + ": '" + entropyKey + "' must be one path segment, without '/'");
    }
    long partSize = conf.get(PART_SIZE).bytes();
    if (partSize < MIN_PART_SIZE || partSize > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          PART_SIZE.key() + " is " + partSize + " bytes; S3 needs parts of 5 mb to 2 gb");
    }
    String region = blankToNull(conf.get(REGION));
    return new S3Settings(
        endpoint,
        region == null ? REGION.defaultValue() : region,
        conf.get(PATH_STYLE),
        accessKey,
        secretKey,
        entropyKey,
        positive(conf, ENTROPY_LENGTH),
        (int) partSize,
        positive(conf, MAX_CONCURRENT_UPLOADS),
        positive(conf, MAX_CONNECTIONS),
        positive(conf, MAX_ATTEMPTS),
        conf.get(RETRY_BASE_DELAY),
        conf.get(CONNECTION_TIMEOUT),
        Math.min(1000, positive(conf, PAGE_SIZE)),
        Math.min(1000, positive(conf, DELETE_PAGE_SIZE)));
  }

  private static int positive(Configuration conf, ConfigOption<Integer> option) {
    int value = conf.get(option);
    if (value <= 0) {
      throw new IllegalArgumentException(
          option.key() + ": '" + value + "' is not a positive whole number");
    }
    return value;
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
