package io.weir.connector.kafka;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A transactional {@link KafkaProducer} for one transactional id, which can also <em>resume</em> a
 * transaction that another producer (of a failed attempt, maybe another process) opened and
 * flushed, so that the restored job can commit it: what Flink's {@code FlinkKafkaInternalProducer}
 * does.
 *
 * <p>kafka-clients 4.4 has no public way to do this: KIP-939's {@code initTransactions(true)} and
 * {@code completeTransaction} are not exposed by {@code KafkaProducer} yet, and need two-phase
 * commit enabled on the brokers. So {@link #resume} sets the producer id and epoch recorded in the
 * checkpoint into the producer's transaction manager by reflection, as Flink does. This is the only
 * reflection in the connector; it is checked against the kafka-clients version in the tests, and an
 * incompatible version fails with an error saying so instead of doing something else.
 */
final class TransactionalProducer implements AutoCloseable {

  private static final String STATE_ENUM =
      "org.apache.kafka.clients.producer.internals.TransactionManager$State";

  final String transactionalId;
  final KafkaProducer<byte[], byte[]> producer;

  TransactionalProducer(Properties clientProperties, String transactionalId) {
    this.transactionalId = transactionalId;
    Properties props = new Properties();
    props.putAll(clientProperties);
    props.setProperty(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    props.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    props.setProperty(ProducerConfig.ACKS_CONFIG, "all");
    this.producer =
        new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** The producer id of the current transaction. */
  long producerId() {
    try {
      Object idAndEpoch = field(transactionManager(), "producerIdAndEpoch");
      return idAndEpoch.getClass().getField("producerId").getLong(idAndEpoch);
    } catch (ReflectiveOperationException e) {
      throw incompatible(e);
    }
  }

  /** The producer epoch of the current transaction. */
  short epoch() {
    try {
      Object idAndEpoch = field(transactionManager(), "producerIdAndEpoch");
      return idAndEpoch.getClass().getField("epoch").getShort(idAndEpoch);
    } catch (ReflectiveOperationException e) {
      throw incompatible(e);
    }
  }

  /** True if this producer speaks the transaction protocol version 2 (KIP-890) with the broker. */
  boolean transactionV2() {
    try {
      Object tm = transactionManager();
      return (boolean) tm.getClass().getMethod("isTransactionV2Enabled").invoke(tm);
    } catch (ReflectiveOperationException e) {
      throw incompatible(e);
    }
  }

  /**
   * Makes this (new, not initialized) producer the owner of the open transaction {@code
   * producerId}/{@code epoch}, so that {@code producer.commitTransaction()} commits it. A commit of
   * a transaction that is already committed succeeds again (the broker treats it as a retry); one
   * that the broker has aborted fails with a fencing or state error.
   */
  void resume(long producerId, short epoch, boolean transactionV2) {
    try {
      Object tm = transactionManager();
      synchronized (tm) {
        transitionTo(tm, "INITIALIZING");
        Field idAndEpoch = declared(tm.getClass(), "producerIdAndEpoch");
        idAndEpoch.set(
            tm,
            idAndEpoch
                .getType()
                .getDeclaredConstructor(long.class, short.class)
                .newInstance(producerId, epoch));
        transitionTo(tm, "READY");
        transitionTo(tm, "IN_TRANSACTION");
        // Without it the producer skips the EndTxn request of a transaction it sent nothing in.
        declared(tm.getClass(), "transactionStarted").setBoolean(tm, true);
        declared(tm.getClass(), "isTransactionV2Enabled").setBoolean(tm, transactionV2);
      }
    } catch (InvocationTargetException e) {
      throw incompatible(e.getCause());
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw incompatible(e);
    }
  }

  private Object transactionManager() throws ReflectiveOperationException {
    return declared(KafkaProducer.class, "transactionManager").get(producer);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void transitionTo(Object tm, String state) throws ReflectiveOperationException {
    Class<? extends Enum> states = (Class<? extends Enum>) Class.forName(STATE_ENUM);
    Method transition = tm.getClass().getDeclaredMethod("transitionTo", states);
    transition.setAccessible(true);
    transition.invoke(tm, Enum.valueOf(states, state));
  }

  private static Object field(Object target, String name) throws ReflectiveOperationException {
    return declared(target.getClass(), name).get(target);
  }

  private static Field declared(Class<?> type, String name) throws NoSuchFieldException {
    Field field = type.getDeclaredField(name);
    field.setAccessible(true);
    return field;
  }

  private static KafkaConnectorException incompatible(Throwable cause) {
    return new KafkaConnectorException(
        "This kafka-clients version ("
            + KafkaProducer.class.getPackage().getImplementationVersion()
            + ") cannot resume Kafka transactions the way Weir's exactly-once KafkaSink needs"
            + " (tested with 4.4.0): "
            + cause
            + ". Use the kafka-clients version the connector was built with.",
        cause);
  }

  /** Closes at once: a graceful close would abort a transaction that waits for its checkpoint. */
  @Override
  public void close() {
    producer.close(Duration.ZERO);
  }
}
