package io.weir.runtime.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.runtime.checkpoint.CompletedCheckpoint;
import io.weir.runtime.checkpoint.InputChannelStateHandle;
import io.weir.runtime.checkpoint.KeyGroupsStateHandle;
import io.weir.runtime.checkpoint.OperatorState;
import io.weir.runtime.checkpoint.OperatorStateHandle;
import io.weir.runtime.checkpoint.OperatorSubtaskState;
import io.weir.runtime.checkpoint.ResultSubpartitionInfo;
import io.weir.runtime.checkpoint.ResultSubpartitionStateHandle;
import io.weir.runtime.checkpoint.SourceSplitsHandle;
import io.weir.runtime.checkpoint.StateSchema;
import io.weir.runtime.state.DefaultOperatorStateStore.Mode;
import io.weir.runtime.state.KeyGroupRange;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class MetadataSerializerTest {

  private static final String SOURCE = "file:///checkpoints/job/chk-7/_metadata";

  @Property(tries = 300)
  void everyCheckpointSurvivesARoundTrip(@ForAll("checkpoints") CompletedCheckpoint checkpoint)
      throws IOException {
    byte[] bytes = MetadataSerializer.serialize(checkpoint);

    assertThat(MetadataSerializer.deserialize(bytes, SOURCE))
        .usingRecursiveComparison()
        .isEqualTo(checkpoint);
  }

  @Test
  void startsWithMagicAndVersionAndEndsWithTheChecksumOfTheRest() {
    byte[] bytes = MetadataSerializer.serialize(sample());

    assertThat(Arrays.copyOf(bytes, 4)).isEqualTo("WEIR".getBytes(StandardCharsets.US_ASCII));
    assertThat(ByteBuffer.wrap(bytes, 4, 4).getInt()).isEqualTo(MetadataSerializer.VERSION);
    assertThat(ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt())
        .isEqualTo(crc(bytes, bytes.length - 4));
  }

  @Test
  void everySingleByteCorruptionIsDetected() {
    byte[] good = MetadataSerializer.serialize(sample());
    for (int i = 0; i < good.length; i++) {
      for (int mask : new int[] {0x01, 0x80, 0xff}) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) mask;
        String expected =
            i < 4 ? "is not a Weir checkpoint metadata file" : "is corrupt: checksum mismatch";
        int at = i;
        assertThatThrownBy(() -> MetadataSerializer.deserialize(bad, SOURCE))
            .as("byte %d flipped with %02x", at, mask)
            .isInstanceOf(IOException.class)
            .hasMessageStartingWith(SOURCE)
            .hasMessageContaining(expected);
      }
    }
  }

  @Test
  void everyTruncationIsDetected() {
    byte[] good = MetadataSerializer.serialize(sample());
    for (int length = 0; length < good.length; length++) {
      byte[] truncated = Arrays.copyOf(good, length);
      assertThatThrownBy(() -> MetadataSerializer.deserialize(truncated, SOURCE))
          .isInstanceOf(IOException.class)
          .hasMessageStartingWith(SOURCE);
    }
  }

  @Test
  void aCheckpointInFormat2ReadsWithoutSerializerSnapshots() throws IOException {
    // Format 3 only added the optional schema of a subtask: without one, the bytes are format 2's.
    CompletedCheckpoint old = withoutSchemas(sample());
    byte[] v3 = MetadataSerializer.serialize(old);
    byte[] body = Arrays.copyOfRange(v3, 8, v3.length - 4);
    byte[] v2 = withChecksum(header(2, body));

    CompletedCheckpoint read = MetadataSerializer.deserialize(v2, SOURCE);

    assertThat(read).usingRecursiveComparison().isEqualTo(old);
    assertThat(read.operators().get(0).subtasks()).allMatch(s -> s.schema() == null);
  }

  @Test
  void channelsThatShareAStreamAreReadBackSharingIt() throws IOException {
    StreamStateHandle inFlight = new StreamStateHandle.Inline(new byte[] {0, 0, 0, 1, 7}, 0x1234);
    OperatorSubtaskState subtask =
        new OperatorSubtaskState(
            null,
            null,
            List.of(
                new InputChannelStateHandle(0, inFlight, new long[] {0}),
                new InputChannelStateHandle(2, inFlight, new long[] {})),
            List.of(
                new ResultSubpartitionStateHandle(
                    new ResultSubpartitionInfo(5, 1), inFlight, new long[] {0})),
            new SourceSplitsHandle(
                new StreamStateHandle.File("chk-7/splits", 40, 1), new long[] {0}, new long[] {24}),
            false,
            null);
    CompletedCheckpoint cp = checkpointOf(subtask);

    byte[] bytes = MetadataSerializer.serialize(cp);
    OperatorSubtaskState read =
        MetadataSerializer.deserialize(bytes, SOURCE).operators().get(0).subtasks().get(0);

    assertThat(read).usingRecursiveComparison().isEqualTo(subtask);
    assertThat(read.inputChannelState().get(1).data())
        .isSameAs(read.inputChannelState().get(0).data())
        .isSameAs(read.resultSubpartitionState().get(0).data());
    assertThat(read.handles()).as("each stream once").hasSize(2);
    int inlineCopies = 0;
    for (int i = 0; i + 5 <= bytes.length; i++) {
      if (Arrays.equals(Arrays.copyOfRange(bytes, i, i + 5), new byte[] {0, 0, 0, 1, 7})) {
        inlineCopies++;
      }
    }
    assertThat(inlineCopies).as("the shared stream is written once").isEqualTo(1);
  }

  @Test
  void aCheckpointInFormat3HasItsNamedListsReadAsChannelStateAndSplits() throws IOException {
    // Format 3 kept a task's own state among the head operator's lists, by name.
    StreamStateHandle stream = new StreamStateHandle.File("chk-7/op", 100, 0xABCD);
    Map<String, OperatorStateHandle.StateMetaInfo> lists = new LinkedHashMap<>();
    lists.put("offsets", new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {0}));
    lists.put(
        "_channel_in_3", new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {8, 20}));
    lists.put(
        "_channel_out_12_0", new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {40}));
    lists.put("_source_splits", new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {60}));
    StateSchema schema =
        new StateSchema(
            null,
            List.of(
                new StateSchema.Entry(
                    "offsets", StateSchema.Kind.OPERATOR_LIST, new byte[] {4}, null)));
    byte[] v3 =
        inFormat3(
            checkpointOf(
                new OperatorSubtaskState(
                    null, new OperatorStateHandle(lists, stream), true, schema)));

    OperatorSubtaskState read =
        MetadataSerializer.deserialize(v3, SOURCE).operators().get(0).subtasks().get(0);

    assertThat(read.operator().states()).containsOnlyKeys("offsets");
    assertThat(read.operator().data()).isEqualTo(stream);
    assertThat(read.inputChannelState())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.channel()).isEqualTo(3);
              assertThat(c.data()).isSameAs(read.operator().data());
              assertThat(c.offsets()).containsExactly(8, 20);
            });
    assertThat(read.resultSubpartitionState())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.subpartition()).isEqualTo(new ResultSubpartitionInfo(12, 0));
              assertThat(c.offsets()).containsExactly(40);
            });
    assertThat(read.splits().splits()).containsExactly(60);
    assertThat(read.splits().watermarks()).isEmpty();
    assertThat(read.finished()).isTrue();
    assertThat(read.schema()).usingRecursiveComparison().isEqualTo(schema);
    assertThat(read.handles()).as("the operator-state stream, once").containsExactly(stream);

    // Written again, it is format 4 with the typed fields.
    CompletedCheckpoint again =
        MetadataSerializer.deserialize(MetadataSerializer.serialize(checkpointOf(read)), SOURCE);
    assertThat(again.operators().get(0).subtasks().get(0))
        .usingRecursiveComparison()
        .isEqualTo(read);
  }

  @Test
  void aSourceOnlyWithSplitsInFormat3KeepsNoOperatorState() throws IOException {
    StreamStateHandle stream = new StreamStateHandle.Inline(new byte[24], 7);
    byte[] v3 =
        inFormat3(
            checkpointOf(
                new OperatorSubtaskState(
                    null,
                    new OperatorStateHandle(
                        Map.of(
                            "_source_splits",
                            new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {0, 12})),
                        stream),
                    false)));

    OperatorSubtaskState read =
        MetadataSerializer.deserialize(v3, SOURCE).operators().get(0).subtasks().get(0);

    assertThat(read.operator()).isNull();
    assertThat(read.splits().data()).usingRecursiveComparison().isEqualTo(stream);
    assertThat(read.splits().splits()).containsExactly(0, 12);
    assertThat(read.hasNoState()).isFalse();
    assertThat(read.stateSize()).isEqualTo(24);
  }

  @Test
  void aChannelStateNameFormat3CannotParseIsCorrupt() {
    byte[] v3 =
        inFormat3(
            checkpointOf(
                new OperatorSubtaskState(
                    null,
                    new OperatorStateHandle(
                        Map.of(
                            "_channel_out_7",
                            new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {0})),
                        new StreamStateHandle.Inline(new byte[4], 7)),
                    false)));

    assertThatThrownBy(() -> MetadataSerializer.deserialize(v3, SOURCE))
        .isInstanceOf(IOException.class)
        .hasMessage(SOURCE + " is corrupt: unknown channel state '_channel_out_7'");
  }

  @Test
  void typedChannelStateIsUnknownToFormat3() {
    OperatorSubtaskState subtask =
        new OperatorSubtaskState(
            null,
            null,
            List.of(
                new InputChannelStateHandle(
                    0, new StreamStateHandle.Inline(new byte[4], 7), new long[] {0})),
            List.of(),
            null,
            false,
            null);
    byte[] v3 = inFormat3(checkpointOf(subtask));

    assertThatThrownBy(() -> MetadataSerializer.deserialize(v3, SOURCE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("unknown subtask flags 32");
  }

  /**
   * {@code cp} as format 3 wrote it: the bytes of format 4 are format 3's as long as no subtask has
   * typed channel state or splits.
   */
  private static byte[] inFormat3(CompletedCheckpoint cp) {
    byte[] v4 = MetadataSerializer.serialize(cp);
    return withChecksum(header(3, Arrays.copyOfRange(v4, 8, v4.length - 4)));
  }

  private static CompletedCheckpoint checkpointOf(OperatorSubtaskState subtask) {
    return new CompletedCheckpoint(
        TestCheckpoints.JOB_ID,
        7,
        1_700_000_000_000L,
        false,
        List.of(new OperatorState("uid", "op", 1, 128, List.of(subtask))));
  }

  private static CompletedCheckpoint withoutSchemas(CompletedCheckpoint cp) {
    List<OperatorState> operators = new java.util.ArrayList<>();
    for (OperatorState op : cp.operators()) {
      operators.add(
          new OperatorState(
              op.operatorId(),
              op.operatorName(),
              op.parallelism(),
              op.maxParallelism(),
              op.subtasks().stream()
                  .map(s -> new OperatorSubtaskState(s.keyed(), s.operator(), s.finished()))
                  .toList()));
    }
    return new CompletedCheckpoint(
        cp.jobId(), cp.checkpointId(), cp.timestamp(), cp.savepoint(), operators);
  }

  @Test
  void aForeignFileIsNotMistakenForMetadata() {
    byte[] text = "{\"checkpoint\": 7}\n".getBytes(StandardCharsets.UTF_8);

    assertThatThrownBy(() -> MetadataSerializer.deserialize(text, SOURCE))
        .isInstanceOf(IOException.class)
        .hasMessage(
            SOURCE + " is not a Weir checkpoint metadata file (it does not start with 'WEIR')");
    assertThatThrownBy(() -> MetadataSerializer.deserialize(new byte[0], SOURCE))
        .hasMessageContaining("is not a Weir checkpoint metadata file");
  }

  @Test
  void anIntactFileFromANewerWeirIsReportedAsSuch() {
    byte[] future = withChecksum(header(MetadataSerializer.VERSION + 1, new byte[] {1, 2, 3}));

    assertThatThrownBy(() -> MetadataSerializer.deserialize(future, SOURCE))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(SOURCE)
        .hasMessageContaining(
            "written by a newer Weir: format version "
                + (MetadataSerializer.VERSION + 1)
                + ", this Weir reads up to "
                + MetadataSerializer.VERSION);
  }

  @Test
  void aBodyThatMakesNoSenseIsCorruptEvenWithAValidChecksum() {
    // A huge operator count right after an empty job id: a writer bug, not a bit flip.
    ByteBuffer body = ByteBuffer.allocate(4 + 8 + 8 + 1 + 4);
    body.putInt(0).putLong(7).putLong(0).put((byte) 0).putInt(Integer.MAX_VALUE);
    byte[] bytes = withChecksum(header(1, body.array()));

    assertThatThrownBy(() -> MetadataSerializer.deserialize(bytes, SOURCE))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(SOURCE + " is corrupt: invalid number of operators");
  }

  // --- helpers ---

  private static byte[] header(int version, byte[] body) {
    return ByteBuffer.allocate(8 + body.length)
        .putInt(MetadataSerializer.MAGIC)
        .putInt(version)
        .put(body)
        .array();
  }

  private static byte[] withChecksum(byte[] bytes) {
    return ByteBuffer.allocate(bytes.length + 4)
        .put(bytes)
        .putInt(crc(bytes, bytes.length))
        .array();
  }

  private static int crc(byte[] bytes, int length) {
    CRC32 crc = new CRC32();
    crc.update(bytes, 0, length);
    return (int) crc.getValue();
  }

  private static CompletedCheckpoint sample() {
    Map<String, OperatorStateHandle.StateMetaInfo> states = new LinkedHashMap<>();
    states.put("offsets", new OperatorStateHandle.StateMetaInfo(Mode.SPLIT, new long[] {0, 9}));
    states.put("all", new OperatorStateHandle.StateMetaInfo(Mode.UNION, new long[] {18}));
    OperatorSubtaskState subtask =
        new OperatorSubtaskState(
            new KeyGroupsStateHandle(
                KeyGroupRange.of(0, 2),
                new long[] {0, 5, 10},
                new StreamStateHandle.File("chk-7/3f2a", 1234, 0xCAFEBABE)),
            new OperatorStateHandle(
                states, new StreamStateHandle.Inline(new byte[] {1, 2, 3}, 0x12345678)),
            false,
            new StateSchema(
                new byte[] {9, 8},
                List.of(
                    new StateSchema.Entry("count", StateSchema.Kind.VALUE, new byte[] {1}, null),
                    new StateSchema.Entry(
                        "index", StateSchema.Kind.MAP, new byte[] {2}, new byte[] {3}),
                    new StateSchema.Entry(
                        "offsets", StateSchema.Kind.OPERATOR_LIST, new byte[] {4}, null))));
    return new CompletedCheckpoint(
        TestCheckpoints.JOB_ID,
        7,
        1_700_000_000_000L,
        true,
        List.of(
            new OperatorState(
                "uid", "Zähler €", 2, 128, List.of(subtask, OperatorSubtaskState.FINISHED))));
  }

  // --- arbitraries ---

  @Provide
  Arbitrary<CompletedCheckpoint> checkpoints() {
    Arbitrary<String> ids = Arbitraries.strings().withCharRange('0', 'f').ofMaxLength(32);
    Arbitrary<OperatorState> operators =
        Combinators.combine(
                ids,
                names().injectNull(0.1),
                Arbitraries.integers().between(1, 16),
                Arbitraries.integers().between(1, 32768),
                subtasks().list().ofMaxSize(4))
            .as(OperatorState::new);
    return Combinators.combine(
            ids,
            Arbitraries.longs(),
            Arbitraries.longs(),
            Arbitraries.of(true, false),
            operators.list().ofMaxSize(4))
        .as(CompletedCheckpoint::new);
  }

  private static Arbitrary<OperatorSubtaskState> subtasks() {
    Arbitrary<KeyGroupRange> ranges =
        Combinators.combine(
                Arbitraries.integers().between(0, 32767), Arbitraries.integers().between(-1, 128))
            .as((start, length) -> KeyGroupRange.of(start, start + length));
    Arbitrary<KeyGroupsStateHandle> keyed =
        Combinators.combine(ranges, offsets(), handles()).as(KeyGroupsStateHandle::new);
    Arbitrary<OperatorStateHandle.StateMetaInfo> metaInfo =
        Combinators.combine(Arbitraries.of(Mode.class), offsets())
            .as(OperatorStateHandle.StateMetaInfo::new);
    Arbitrary<OperatorStateHandle> operator =
        Combinators.combine(Arbitraries.maps(names(), metaInfo).ofMaxSize(3), handles())
            .as(OperatorStateHandle::new);
    Arbitrary<Integer> indexes = Arbitraries.integers().between(0, 1000);
    Arbitrary<InputChannelStateHandle> inputs =
        Combinators.combine(indexes, handles(), offsets()).as(InputChannelStateHandle::new);
    Arbitrary<ResultSubpartitionStateHandle> outputs =
        Combinators.combine(
                Combinators.combine(indexes, indexes).as(ResultSubpartitionInfo::new),
                handles(),
                offsets())
            .as(ResultSubpartitionStateHandle::new);
    Arbitrary<SourceSplitsHandle> splits =
        Combinators.combine(handles(), offsets(), offsets()).as(SourceSplitsHandle::new);
    return Combinators.combine(
            keyed.injectNull(0.3),
            operator.injectNull(0.3),
            inputs.list().ofMaxSize(3),
            outputs.list().ofMaxSize(3),
            splits.injectNull(0.5),
            Arbitraries.of(true, false),
            schemas().injectNull(0.3))
        .as(OperatorSubtaskState::new);
  }

  private static Arbitrary<StateSchema> schemas() {
    Arbitrary<byte[]> snapshots = Arbitraries.bytes().array(byte[].class).ofMaxSize(40);
    Arbitrary<StateSchema.Entry> entries =
        Combinators.combine(names(), Arbitraries.of(StateSchema.Kind.class), snapshots, snapshots)
            .as(
                (name, kind, value, mapKey) ->
                    new StateSchema.Entry(
                        name, kind, value, kind == StateSchema.Kind.MAP ? mapKey : null));
    return Combinators.combine(snapshots.injectNull(0.3), entries.list().ofMaxSize(4))
        .as(StateSchema::new);
  }

  private static Arbitrary<StreamStateHandle> handles() {
    Arbitrary<StreamStateHandle> inline =
        Combinators.combine(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(64), Arbitraries.integers())
            .as(StreamStateHandle.Inline::new);
    Arbitrary<StreamStateHandle> file =
        Combinators.combine(names(), Arbitraries.longs().greaterOrEqual(0), Arbitraries.integers())
            .as(StreamStateHandle.File::new);
    return Arbitraries.oneOf(inline, file);
  }

  private static Arbitrary<long[]> offsets() {
    return Arbitraries.longs().greaterOrEqual(0).array(long[].class).ofMaxSize(8);
  }

  private static Arbitrary<String> names() {
    return Arbitraries.strings()
        .alpha()
        .numeric()
        .withChars(" -_/:.äöü€")
        .withCharRange('\u4e00', '\u4e0f')
        .ofMaxLength(24);
  }
}
