package io.weir.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.TypeSerializerSchemaCompatibility.Kind;
import io.weir.api.typeutils.Types;
import io.weir.runtime.recovery.NonRecoverableException;
import org.junit.jupiter.api.Test;

/** What a restore decides for a class that Kryo wrote and Weir now infers as a POJO. */
class StateMigrationTest {

  /** A POJO by Flink's rules. */
  public static class Sensor {
    public String id;
    public double value;

    public Sensor() {}
  }

  @Test
  void aKryoWrittenStateOfAnInferredPojoMigrates() {
    var kryo = Types.GENERIC(Sensor.class).createSerializer().snapshotConfiguration();
    var compatibility =
        StateMigration.resolve(
            "counter", "sensor", kryo, TypeInformation.of(Sensor.class).createSerializer());
    assertThat(compatibility.kind()).isEqualTo(Kind.COMPATIBLE_AFTER_MIGRATION);
  }

  @Test
  void aKryoWrittenKeyOfAnInferredPojoIsRefusedSayingHowToKeepIt() {
    var kryo = Types.GENERIC(Sensor.class).createSerializer().snapshotConfiguration();
    assertThatThrownBy(
            () ->
                StateMigration.checkKey(
                    "counter", kryo, TypeInformation.of(Sensor.class).createSerializer()))
        .isInstanceOf(NonRecoverableException.class)
        .hasMessageContaining("The key of operator 'counter' was Kryo<")
        .hasMessageContaining("is now a POJO")
        .hasMessageContaining("declare it as Types.GENERIC(Sensor.class)");
  }
}
