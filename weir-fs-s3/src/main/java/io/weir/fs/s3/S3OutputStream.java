package io.weir.fs.s3;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * Writes one object: bytes gather in a buffer of at most one part; a file that stays below a part
 * is sent with one PUT on close, a larger one as a multipart upload, part by part as the buffer
 * fills, completed on close. Either way the object becomes visible only when {@link #close}
 * returns; a failed upload is aborted and leaves nothing. Not thread-safe: one writer.
 */
final class S3OutputStream extends OutputStream {

  private final S3FileSystem fs;
  private final String key;
  private final URI uri;
  private final int partSize;

  private byte[] buffer = new byte[8 * 1024];
  private int count;
  private String uploadId;
  private final List<CompletedPart> parts = new ArrayList<>();
  private boolean closed;

  S3OutputStream(S3FileSystem fs, String key, URI uri) {
    this.fs = fs;
    this.key = key;
    this.uri = uri;
    this.partSize = fs.settings().partSize();
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (closed) {
      throw new IOException("The stream of " + uri + " is closed");
    }
    int offset = off;
    int left = len;
    while (left > 0) {
      if (count == partSize) {
        uploadPart();
      }
      int n = Math.min(left, partSize - count);
      ensureCapacity(count + n);
      System.arraycopy(b, offset, buffer, count, n);
      count += n;
      offset += n;
      left -= n;
    }
  }

  private void ensureCapacity(int needed) {
    if (needed > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.min(partSize, Math.max(needed, buffer.length * 2)));
    }
  }

  private void uploadPart() throws IOException {
    try {
      if (uploadId == null) {
        uploadId =
            fs.upload(
                    key,
                    () -> fs.client().createMultipartUpload(b -> b.bucket(fs.bucket()).key(key)))
                .uploadId();
      }
      int partNumber = parts.size() + 1;
      byte[] data = buffer;
      int length = count;
      UploadPartResponse response =
          fs.upload(
              key,
              () ->
                  fs.client()
                      .uploadPart(
                          b ->
                              b.bucket(fs.bucket())
                                  .key(key)
                                  .uploadId(uploadId)
                                  .partNumber(partNumber)
                                  .contentLength((long) length),
                          RequestBody.fromContentProvider(
                              () -> new ByteArrayInputStream(data, 0, length),
                              length,
                              "application/octet-stream")));
      parts.add(CompletedPart.builder().partNumber(partNumber).eTag(response.eTag()).build());
      count = 0;
    } catch (IOException | RuntimeException e) {
      abort(e);
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (uploadId == null) {
        byte[] data = buffer;
        int length = count;
        fs.upload(
            key,
            () ->
                fs.client()
                    .putObject(
                        b -> b.bucket(fs.bucket()).key(key).contentLength((long) length),
                        RequestBody.fromContentProvider(
                            () -> new ByteArrayInputStream(data, 0, length),
                            length,
                            "application/octet-stream")));
      } else {
        if (count > 0) {
          uploadPart();
        }
        fs.upload(
            key,
            () ->
                fs.client()
                    .completeMultipartUpload(
                        b ->
                            b.bucket(fs.bucket())
                                .key(key)
                                .uploadId(uploadId)
                                .multipartUpload(m -> m.parts(parts))));
      }
    } catch (IOException | RuntimeException e) {
      abort(e);
      throw e;
    } finally {
      buffer = null;
    }
  }

  /** Aborts the multipart upload, if one began, so that its parts are not kept (and billed). */
  private void abort(Exception cause) {
    String id = uploadId;
    if (id == null) {
      return;
    }
    uploadId = null;
    closed = true;
    try {
      fs.client().abortMultipartUpload(b -> b.bucket(fs.bucket()).key(key).uploadId(id));
    } catch (SdkException e) {
      cause.addSuppressed(e);
    }
  }
}
