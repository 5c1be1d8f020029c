package io.weir.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code weir keys} lists the registry: the keys of the modules on the command's class path. */
class KeysCommandTest {

  @Test
  void aPrefixListsItsKeysWithDefaultsDescriptionsAndDeprecatedNames() {
    Cli.Result result = Cli.run("keys", "execution.checkpointing.dir");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .startsWith("weir-api\n")
        .contains("  execution.checkpointing.dir = (none)")
        .contains("deprecated names: state.checkpoints.dir, state.backend.fs.checkpointdir")
        .doesNotContain("execution.checkpointing.interval");
  }

  @Test
  void everyModuleOnTheClassPathIsListed() {
    Cli.Result result = Cli.run("keys");

    assertThat(result.exitCode()).as(result.toString()).isZero();
    assertThat(result.out())
        .contains("weir-api\n")
        .contains("weir-cluster\n  cluster.evenly-spread-out-slots = false")
        .contains("  heartbeat.timeout = 50 s")
        .contains("weir-state-rocksdb\n")
        .contains("  state.backend.rocksdb.");
  }

  @Test
  void aPrefixNoKeyHasIsRefused() {
    Cli.Result result = Cli.run("keys", "executoin.");

    assertThat(result.exitCode()).isEqualTo(WeirCli.EXIT_FAILURE);
    assertThat(result.err()).contains("No configuration key starts with 'executoin.'");
  }
}
