package io.weir.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one piece of the sink that reaches into kafka-clients' internals: a transaction opened and
 * flushed by one producer is committed by another that resumes it with the recorded producer id and
 * epoch, again idempotently, and a resumed commit of a transaction the broker aborted fails.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KafkaTransactionalProducerTest {

  @RegisterExtension static final KafkaBroker KAFKA = new KafkaBroker();

  private Properties props() {
    Properties props = new Properties();
    props.setProperty(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
    props.setProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000");
    return props;
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, String value) {
    return new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void resumedTransactionCommitsAndCommitsAgain() throws Exception {
    KAFKA.createTopic("resume", 1);
    long producerId;
    short epoch;
    boolean v2;
    TransactionalProducer first = new TransactionalProducer(props(), "resume-0-0");
    first.producer.initTransactions();
    first.producer.beginTransaction();
    first.producer.send(record("resume", "a"));
    first.producer.send(record("resume", "b"));
    first.producer.flush();
    producerId = first.producerId();
    epoch = first.epoch();
    v2 = first.transactionV2();
    first.close(); // the process dies: the transaction stays open on the broker

    assertThat(KAFKA.readCommitted("resume")).isEmpty();

    try (TransactionalProducer second = new TransactionalProducer(props(), "resume-0-0")) {
      second.resume(producerId, epoch, v2);
      second.producer.commitTransaction();
    }
    KAFKA.awaitNoOpenTransaction("resume", Duration.ofSeconds(20));
    assertThat(KAFKA.readCommitted("resume")).containsExactly("a", "b");

    // A restore that finds the same transaction pending commits it again: no error, no change.
    try (TransactionalProducer third = new TransactionalProducer(props(), "resume-0-0")) {
      third.resume(producerId, epoch, v2);
      third.producer.commitTransaction();
    }
    KAFKA.awaitNoOpenTransaction("resume", Duration.ofSeconds(20));
    assertThat(KAFKA.readCommitted("resume")).containsExactly("a", "b");
  }

  @Test
  void resumingATransactionThatWasAbortedFails() throws Exception {
    KAFKA.createTopic("aborted", 1);
    TransactionalProducer first = new TransactionalProducer(props(), "aborted-0-0");
    first.producer.initTransactions();
    first.producer.beginTransaction();
    first.producer.send(record("aborted", "lost"));
    first.producer.flush();
    long producerId = first.producerId();
    short epoch = first.epoch();
    boolean v2 = first.transactionV2();
    first.close();
    // A new producer of the same id fences the old one and aborts its transaction.
    try (TransactionalProducer fencing = new TransactionalProducer(props(), "aborted-0-0")) {
      fencing.producer.initTransactions();
    }
    try (TransactionalProducer late = new TransactionalProducer(props(), "aborted-0-0")) {
      late.resume(producerId, epoch, v2);
      assertThatThrownBy(late.producer::commitTransaction).isInstanceOf(KafkaException.class);
    }
    assertThat(KAFKA.readCommitted("aborted")).isEmpty();
  }
}
