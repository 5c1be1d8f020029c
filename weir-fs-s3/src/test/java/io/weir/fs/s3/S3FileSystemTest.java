package io.weir.fs.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.weir.api.config.Configuration;
import io.weir.runtime.storage.FileSystem;
import io.weir.runtime.storage.FileSystemContract;
import io.weir.runtime.storage.FileSystems;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The file-system contract on a real S3-compatible server, path style, with listings of two keys
 * per page so that every listing paginates; found through ServiceLoader by its scheme.
 */
class S3FileSystemTest extends FileSystemContract {

  static final String BUCKET = "contract";
  static S3Server server;
  static FileSystem fs;

  @BeforeAll
  static void startServer() throws Exception {
    server = S3Server.start(BUCKET);
    fs =
        FileSystems.get(
            URI.create("s3://" + BUCKET + "/"),
            server.configuration().setString("s3.paging.maximum", "2"));
  }

  @AfterAll
  static void stopServer() throws Exception {
    FileSystems.closeAll();
    if (server != null) {
      server.close();
    }
  }

  @Override
  protected FileSystem fs() {
    return fs;
  }

  @Override
  protected String newDirectory() {
    return "/contract/" + UUID.randomUUID();
  }

  @Test
  void s3IsServedByThisModuleWithoutAtomicRename() {
    assertThat(fs).isInstanceOf(S3FileSystem.class);
    assertThat(fs.hasAtomicRename()).isFalse();
    assertThat(fs.toUri("/a/b")).isEqualTo(URI.create("s3://contract/a/b"));
  }

  @Test
  void s3aIsTheSameFileSystemUnderHadoopsName() {
    FileSystem s3a = FileSystems.get(URI.create("s3a://" + BUCKET + "/x"), server.configuration());
    assertThat(s3a).isInstanceOf(S3FileSystem.class);
    assertThat(s3a.toUri("/x")).isEqualTo(URI.create("s3a://contract/x"));
  }

  /** A file system of its own on the same bucket: few attempts, small delete batches. */
  static S3FileSystem impatient() {
    return new S3FileSystem(
        "s3",
        BUCKET,
        S3Settings.from(
            server
                .configuration()
                .setString("s3.attempts.maximum", "2")
                .setString("s3.retry.interval", "10 ms")
                .setString("s3.bulk.delete.page.size", "10")),
        null);
  }

  @Test
  void aRecursiveDeleteOfMoreThanOneBatchDeletesEverything() throws Exception {
    String dir = newDirectory();
    int files = 45; // five DeleteObjects requests of at most 10 keys
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      java.util.List<java.util.concurrent.Future<?>> writes = new java.util.ArrayList<>();
      for (int i = 0; i < files; i++) {
        String path = dir + "/sub" + (i % 3) + "/f" + i;
        writes.add(
            pool.submit(
                () -> {
                  write(path, "x");
                  return null;
                }));
      }
      for (var w : writes) {
        w.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(fs.list(dir)).containsExactly("sub0", "sub1", "sub2");
    assertThat(fs.list(dir + "/sub0")).hasSize(15);

    try (S3FileSystem batched = impatient()) {
      assertThat(batched.delete(dir, true)).isTrue();
    }
    assertThat(fs.exists(dir)).isFalse();
    assertThat(fs.exists(dir + "/sub1/f1")).isFalse();
  }

  @Test
  void aStreamThatFailsMidUploadLeavesNoObject() throws IOException {
    String file = newDirectory() + "/large";
    S3FileSystem impatient = impatient();
    OutputStream out = impatient.create(file, false);
    byte[] chunk = new byte[1024 * 1024];
    for (int i = 0; i < 6; i++) {
      out.write(chunk); // the first part (5 mb) is uploaded on the way
    }
    server.store().refuseWrites = true;
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(out::close)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("s3://contract/");
    } finally {
      server.store().refuseWrites = false;
      impatient.close();
    }
    assertThat(fs.exists(file)).isFalse();
  }

  @Test
  void aFileLargerThanAPartGoesUpAsAMultipartUpload() throws IOException {
    long before = server.store().multipartUploads.get();
    String file = newDirectory() + "/big";
    byte[] data = new byte[11 * 1024 * 1024 + 3]; // two full parts of 5 mb and a rest
    new java.util.Random(7).nextBytes(data);
    try (OutputStream out = fs.create(file, false)) {
      out.write(data);
    }
    assertThat(server.store().multipartUploads.get()).isEqualTo(before + 1);
    try (java.io.InputStream in = fs.open(file)) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    write(newDirectory() + "/small", "small");
    assertThat(server.store().multipartUploads.get()).isEqualTo(before + 1);
  }

  @Test
  void writesInFlightAreBounded() throws Exception {
    S3FileSystem bounded =
        new S3FileSystem(
            "s3",
            BUCKET,
            S3Settings.from(
                server.configuration().setString("s3.upload.max.concurrent.uploads", "2")),
            null);
    String dir = newDirectory();
    server.store().maxWritesInFlight.set(0);
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(12);
    try {
      java.util.List<java.util.concurrent.Future<?>> writes = new java.util.ArrayList<>();
      for (int i = 0; i < 60; i++) {
        String path = dir + "/f" + i;
        writes.add(
            pool.submit(
                () -> {
                  try (OutputStream out = bounded.create(path, false)) {
                    out.write(new byte[64 * 1024]);
                  }
                  return null;
                }));
      }
      for (var w : writes) {
        w.get();
      }
    } finally {
      pool.shutdown();
      bounded.close();
    }
    assertThat(server.store().maxWritesInFlight.get()).isBetween(1, 2);
    assertThat(fs.list(dir)).hasSize(60);
  }

  @Test
  void throttlingIsRetriedUpToTheAttemptsAndThenNamed() throws IOException {
    S3FileSystem patient =
        new S3FileSystem(
            "s3",
            BUCKET,
            S3Settings.from(
                server
                    .configuration()
                    .setString("s3.attempts.maximum", "4")
                    .setString("s3.retry.interval", "10 ms")),
            null);
    String dir = newDirectory();
    try {
      long before = server.store().throttled.get();
      server.store().throttleNext.set(3);
      try (OutputStream out = patient.create(dir + "/through", false)) {
        out.write(1);
      }
      assertThat(server.store().throttled.get() - before).isEqualTo(3);
      assertThat(patient.exists(dir + "/through")).isTrue();

      server.store().throttleNext.set(4);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> patient.open(dir + "/through"))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("s3://contract" + dir + "/through")
          .hasMessageContaining("503 SlowDown")
          .hasMessageContaining("s3.attempts.maximum");
    } finally {
      server.store().throttleNext.set(0);
      patient.close();
    }
  }

  @Test
  void withoutKeysTheDefaultCredentialChainIsUsed() throws IOException {
    // System properties are one link of the AWS default chain.
    System.setProperty("aws.accessKeyId", S3Server.ACCESS_KEY);
    System.setProperty("aws.secretAccessKey", S3Server.SECRET_KEY);
    try (S3FileSystem chained =
        new S3FileSystem(
            "s3",
            BUCKET,
            S3Settings.from(
                new Configuration()
                    .setString("s3.endpoint", server.endpoint().toString())
                    .setString("s3.path.style.access", "true")),
            null)) {
      chained.checkAccess("/");
      String file = newDirectory() + "/chained";
      try (OutputStream out = chained.create(file, false)) {
        out.write(7);
      }
      assertThat(fs.exists(file)).isTrue();
    } finally {
      System.clearProperty("aws.accessKeyId");
      System.clearProperty("aws.secretAccessKey");
    }
  }

  @Test
  void oneFileSystemPerBucketAndSettings() {
    URI uri = URI.create("s3://" + BUCKET + "/some/where");
    Configuration conf = server.configuration().setString("s3.paging.maximum", "2");
    assertThat(FileSystems.get(uri, conf.setString("pipeline.name", "another job"))).isSameAs(fs);
    assertThat(FileSystems.get(uri)).isSameAs(fs);
  }

  @Test
  void renameIsACopyAndADeleteThatNeverReplaces() throws IOException {
    String dir = newDirectory();
    write(dir + "/from", "data");
    write(dir + "/taken", "other");
    fs.rename(dir + "/from", dir + "/to");
    assertThat(fs.exists(dir + "/from")).isFalse();
    assertThat(read(dir + "/to")).isEqualTo("data");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> fs.rename(dir + "/to", dir + "/taken"))
        .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> fs.rename(dir + "/gone", dir + "/new"))
        .isInstanceOf(java.io.FileNotFoundException.class);
  }

  @Test
  void settingsNameTheKeyAtFault() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> S3Settings.from(new Configuration().setString("s3.access-key", "only-this")))
        .hasMessageContaining("s3.secret-key");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> S3Settings.from(new Configuration().setString("s3.upload.min.part.size", "1 mb")))
        .hasMessageContaining("s3.upload.min.part.size");
    assertThat(S3Settings.from(server.configuration()).toString())
        .doesNotContain(S3Server.SECRET_KEY);
    S3Settings older =
        S3Settings.from(
            new Configuration().setString("s3.access.key", "a").setString("s3.secret.key", "b"));
    assertThat(older.accessKey()).isEqualTo("a");
    assertThat(older.secretKey()).isEqualTo("b");
  }
}
