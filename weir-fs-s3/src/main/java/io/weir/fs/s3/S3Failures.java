package io.weir.fs.s3;

import java.io.IOException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Turns the SDK's exceptions into I/O exceptions a user can act on: each names the object at fault,
 * the HTTP status and error code, the attempts made, and what to check or set (credentials, the
 * bucket, the endpoint and path-style requests, throttling).
 */
final class S3Failures {
  private final String scheme;
  private final String bucket;
  private final S3Settings settings;

  S3Failures(String scheme, String bucket, S3Settings settings) {
    this.scheme = scheme;
    this.bucket = bucket;
    this.settings = settings;
  }

  String noBucket() {
    return "the bucket '"
        + bucket
        + "' does not exist"
        + (settings.endpoint() != null ? " at " + settings.endpoint() : "")
        + ": create it, or fix the bucket in the URI (s3://<bucket>/<path>)";
  }

  /**
   * The attempts the SDK made for the failed request, as it counted them, with the configured
   * maximum when fewer (a request that is not retryable is tried once).
   */
  private String attempts(SdkException e) {
    Integer made = e.numAttempts();
    if (made == null || made == settings.maxAttempts()) {
      return String.valueOf(made == null ? settings.maxAttempts() : made);
    }
    return made + " (of " + S3Options.MAX_ATTEMPTS.key() + " = " + settings.maxAttempts() + ")";
  }

  /** An exception naming the object at fault, the status and what to do. */
  IOException of(String action, String key, SdkException e) {
    String what = "Could not " + action + " " + scheme + "://" + bucket + "/" + key;
    if (e instanceof S3Exception s3) {
      String code = s3.awsErrorDetails() != null ? s3.awsErrorDetails().errorCode() : null;
      String hint =
          switch (s3.statusCode()) {
            case 403 ->
                ". Check the credentials ("
                    + S3Options.ACCESS_KEY.key()
                    + ", "
                    + S3Options.SECRET_KEY.key()
                    + " or the AWS default chain) and the bucket's policy";
            case 404 -> code != null && code.equals("NoSuchBucket") ? ": " + noBucket() : "";
            case 503 ->
                ". S3 kept throttling after "
                    + attempts(e)
                    + " attempts: raise "
                    + S3Options.MAX_ATTEMPTS.key()
                    + ", set "
                    + S3Options.ENTROPY_KEY.key()
                    + " to spread keys, or checkpoint less often";
            default -> "";
          };
      return new IOException(
          what
              + ": HTTP "
              + s3.statusCode()
              + (code != null ? " " + code : "")
              + (s3.awsErrorDetails() != null && s3.awsErrorDetails().errorMessage() != null
                  ? " (" + s3.awsErrorDetails().errorMessage() + ")"
                  : "")
              + hint,
          e);
    }
    if (e instanceof SdkClientException) {
      return new IOException(
          what
              + " after "
              + attempts(e)
              + " attempts: "
              + e.getMessage()
              + ". Check that "
              + (settings.endpoint() != null
                  ? "the endpoint " + settings.endpoint() + " (" + S3Options.ENDPOINT.key() + ")"
                  : "S3")
              + " can be reached"
              + (settings.endpoint() != null && !settings.pathStyle()
                  ? "; requests are virtual-host style (http://"
                      + bucket
                      + "."
                      + settings.endpoint().getAuthority()
                      + "/...): for a store without virtual hosts, or whose bucket host names"
                      + " do not resolve, set "
                      + S3Options.PATH_STYLE.key()
                      + ": true"
                  : ""),
          e);
    }
    return new IOException(what + ": " + e.getMessage(), e);
  }
}
