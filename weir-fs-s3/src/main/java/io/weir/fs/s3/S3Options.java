package io.weir.fs.s3;

import io.weir.api.config.ConfigOption;
import io.weir.api.config.ConfigOptionProvider;
import io.weir.api.config.ConfigOptions;
import io.weir.api.config.MemorySize;
import java.time.Duration;
import java.util.Collection;

/**
 * The {@code s3.*} keys of S3 checkpoint storage, in the one registry of keys (through {@link
 * Provider}). Flink's keys where Flink has them, Hadoop S3A's under the {@code s3.} prefix
 * otherwise. They hold for {@code s3://} and {@code s3a://} alike.
 */
public final class S3Options {

  private S3Options() {}

  public static final ConfigOption<String> ENDPOINT =
      ConfigOptions.key("s3.endpoint")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "Endpoint of an S3-compatible store, e.g. http://127.0.0.1:9000; unset: AWS.");

  public static final ConfigOption<String> REGION =
      ConfigOptions.key("s3.region")
          .stringType()
          .defaultValue("us-east-1")
          .withDescription("The region requests are signed for.");

  public static final ConfigOption<Boolean> PATH_STYLE =
      ConfigOptions.key("s3.path.style.access")
          .booleanType()
          .defaultValue(false)
          .withDescription(
              "Path-style requests (http://endpoint/bucket/key) instead of virtual-host style"
                  + " (http://bucket.endpoint/key).");

  public static final ConfigOption<String> ACCESS_KEY =
      ConfigOptions.key("s3.access-key")
          .stringType()
          .noDefaultValue()
          .withDescription("The access key; unset with the secret key: AWS's default chain.")
          .withDeprecatedKeys("s3.access.key");

  public static final ConfigOption<String> SECRET_KEY =
      ConfigOptions.key("s3.secret-key")
          .stringType()
          .noDefaultValue()
          .withDescription("The secret key; unset with the access key: AWS's default chain.")
          .withDeprecatedKeys("s3.secret.key");

  public static final ConfigOption<String> ENTROPY_KEY =
      ConfigOptions.key("s3.entropy.key")
          .stringType()
          .noDefaultValue()
          .withDescription(
              "A marker in checkpoint paths that random characters replace in state files' keys"
                  + " (one path segment, without '/').");

  public static final ConfigOption<Integer> ENTROPY_LENGTH =
      ConfigOptions.key("s3.entropy.length")
          .intType()
          .defaultValue(4)
          .withDescription("How many random characters replace the entropy marker.");

  public static final ConfigOption<MemorySize> PART_SIZE =
      ConfigOptions.key("s3.upload.min.part.size")
          .memoryType()
          .defaultValue(MemorySize.ofMebiBytes(5))
          .withDescription(
              "Bytes per part of a multipart upload (5 mb to 2 gb); smaller files take one PUT.");

  public static final ConfigOption<Integer> MAX_CONCURRENT_UPLOADS =
      ConfigOptions.key("s3.upload.max.concurrent.uploads")
          .intType()
          .defaultValue(16)
          .withDescription("Requests that write (PUT, part uploads) in flight at once.");

  public static final ConfigOption<Integer> MAX_CONNECTIONS =
      ConfigOptions.key("s3.connection.maximum")
          .intType()
          .defaultValue(64)
          .withDescription("HTTP connections in the pool.");

  public static final ConfigOption<Integer> MAX_ATTEMPTS =
      ConfigOptions.key("s3.attempts.maximum")
          .intType()
          .defaultValue(10)
          .withDescription("Attempts per request, the first one included, before it fails.");

  public static final ConfigOption<Duration> RETRY_BASE_DELAY =
      ConfigOptions.key("s3.retry.interval")
          .durationType()
          .defaultValue(Duration.ofMillis(100))
          .withDescription("The first retry's delay, doubled for each next one (with jitter).");

  public static final ConfigOption<Duration> CONNECTION_TIMEOUT =
      ConfigOptions.key("s3.connection.timeout")
          .durationType()
          .defaultValue(Duration.ofSeconds(5))
          .withDescription("How long to wait for a TCP connection.");

  public static final ConfigOption<Integer> PAGE_SIZE =
      ConfigOptions.key("s3.paging.maximum")
          .intType()
          .defaultValue(1000)
          .withDescription("Keys per listing request (at most 1000).");

  public static final ConfigOption<Integer> DELETE_PAGE_SIZE =
      ConfigOptions.key("s3.bulk.delete.page.size")
          .intType()
          .defaultValue(1000)
          .withDescription("Keys per DeleteObjects request (at most 1000).");

  /** Makes the S3 keys known to the registry. */
  public static final class Provider implements ConfigOptionProvider {
    @Override
    public String module() {
      return "weir-fs-s3";
    }

    @Override
    public Collection<ConfigOption<?>> options() {
      return ConfigOptionProvider.declaredIn(S3Options.class);
    }
  }
}
