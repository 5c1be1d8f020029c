package io.weir.fs.s3;

import org.apache.http.conn.DnsResolver;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * The SDK client of an S3 file system, as its settings configure it: connections, credentials (the
 * given keys, or the AWS default chain), region, path-style requests, the endpoint, and retries
 * with exponential backoff for as many attempts as configured.
 */
final class S3Clients {

  private S3Clients() {}

  /** A client for {@code settings}; {@code dnsResolver} (tests) may be null. */
  static S3Client create(S3Settings settings, DnsResolver dnsResolver) {
    ApacheHttpClient.Builder http =
        ApacheHttpClient.builder()
            .maxConnections(settings.maxConnections())
            .connectionTimeout(settings.connectionTimeout());
    if (dnsResolver != null) {
      http.dnsResolver(dnsResolver);
    }
    AwsCredentialsProvider credentials =
        settings.accessKey() != null
            ? StaticCredentialsProvider.create(
                AwsBasicCredentials.create(settings.accessKey(), settings.secretKey()))
            : DefaultCredentialsProvider.builder().build();
    S3ClientBuilder builder =
        S3Client.builder()
            .httpClientBuilder(http)
            .credentialsProvider(credentials)
            .region(Region.of(settings.region()))
            .forcePathStyle(settings.pathStyle())
            // Weir checksums every state file itself; S3-compatible stores differ in what else
            // they accept.
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .overrideConfiguration(
                o ->
                    o.retryStrategy(
                        AwsRetryStrategy.standardRetryStrategy().toBuilder()
                            .maxAttempts(settings.maxAttempts())
                            .backoffStrategy(
                                BackoffStrategy.exponentialDelay(
                                    settings.retryBaseDelay(), java.time.Duration.ofSeconds(20)))
                            .throttlingBackoffStrategy(
                                BackoffStrategy.exponentialDelay(
                                    settings.retryBaseDelay(), java.time.Duration.ofSeconds(20)))
                            // Checkpoints retry as long as attempts last, however many failed.
                            .circuitBreakerEnabled(false)
                            .build()));
    if (settings.endpoint() != null) {
      builder.endpointOverride(settings.endpoint());
    } else {
      builder.crossRegionAccessEnabled(true);
    }
    return builder.build();
  }
}
