package io.weir.api.source.datagen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.weir.api.source.InputStatus;
import io.weir.api.source.NumberSequenceSource;
import io.weir.api.source.ReaderOutput;
import io.weir.api.source.SourceReader;
import io.weir.api.source.SourceReaderContext;
import io.weir.api.typeutils.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class DataGeneratorSourceTest {

  @Test
  void theScheduleHandsOutOneSlotPerIntervalFromTheFirstPoll() {
    DataGeneratorSource.Schedule schedule = new DataGeneratorSource.Schedule(1_000); // 1 per us
    long t0 = 5_000_000;

    assertThat(schedule.permits(t0)).isEqualTo(1);
    schedule.use(1);
    assertThat(schedule.permits(t0 + 999)).isZero();
    assertThat(schedule.nanosUntilNext(t0 + 999)).isEqualTo(1);
    assertThat(schedule.permits(t0 + 1_000)).isEqualTo(1);
    assertThat(schedule.permits(t0 + 10_500)).isEqualTo(10);
    schedule.use(4);
    assertThat(schedule.permits(t0 + 10_500)).isEqualTo(6);
    assertThat(schedule.nanosUntilNext(t0 + 10_500)).isEqualTo(5_000 - 10_500);
  }

  @Test
  void aScheduleThatFellBehindCatchesUpAtMostOneSecondOfRecords() {
    DataGeneratorSource.Schedule schedule = new DataGeneratorSource.Schedule(1_000_000); // 1 per ms
    long t0 = 0;
    schedule.permits(t0);
    schedule.use(1);

    assertThat(schedule.permits(t0 + 60_000_000_000L)).isEqualTo(1_000); // a minute late
    schedule.use(1_000);
    assertThat(schedule.permits(t0 + 60_000_000_000L)).isZero();
    assertThat(schedule.permits(t0 + 60_001_000_000L)).isEqualTo(1);
  }

  @Test
  void theRateIsSharedByTheSubtasks() {
    assertThat(RateLimiterStrategy.perSecond(100_000).nanosPerRecord(2)).isEqualTo(20_000.0);
    assertThat(RateLimiterStrategy.noOp().nanosPerRecord(2)).isZero();
  }

  @Test
  void aRestoredReaderGoesOnExactlyAfterItsCheckpointedPosition() throws Exception {
    DataGeneratorSource<String> source =
        new DataGeneratorSource<>(i -> "r" + i, 1_000, Types.STRING);
    List<NumberSequenceSource.Split> splits = source.createSplits(2);
    SourceReader<String, NumberSequenceSource.Split> reader =
        source.createReader(new SourceReaderContext(0, 2, 0));
    reader.addSplits(List.of(splits.get(0)));
    Collected<String> first = new Collected<>();
    assertThat(reader.pollNext(first)).isEqualTo(InputStatus.MORE_AVAILABLE);
    List<NumberSequenceSource.Split> position = reader.snapshotState(1);

    SourceReader<String, NumberSequenceSource.Split> restored =
        source.createReader(new SourceReaderContext(0, 2, 1));
    restored.addSplits(position);
    Collected<String> rest = new Collected<>();
    while (restored.pollNext(rest) == InputStatus.MORE_AVAILABLE) {}

    List<String> all = new ArrayList<>(first.records);
    all.addAll(rest.records);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      expected.add("r" + i);
    }
    assertThat(first.records).hasSize(256);
    assertThat(all).isEqualTo(expected);
  }

  @Test
  void aRateLimitedReaderWithNothingDueSaysWhenToComeBack() throws Exception {
    DataGeneratorSource<Long> source =
        // One record a second: the reader's two polls below come well within the second that
        // separates records 0 and 1 (at 100 a second, a thread late by 10 ms, as two test JVMs
        // on two cores make it, found record 1 already due).
        new DataGeneratorSource<>(i -> i, 10, RateLimiterStrategy.perSecond(1), Types.LONG);
    SourceReader<Long, NumberSequenceSource.Split> reader =
        source.createReader(new SourceReaderContext(0, 1, 0));
    reader.addSplits(source.createSplits(1));
    Collected<Long> out = new Collected<>();

    assertThat(reader.pollNext(out)).isEqualTo(InputStatus.MORE_AVAILABLE);
    assertThat(out.records).containsExactly(0L);
    assertThat(reader.pollNext(out)).isEqualTo(InputStatus.NOTHING_AVAILABLE);
    assertThat(out.records).containsExactly(0L);

    reader.isAvailable().get(10, TimeUnit.SECONDS); // when the next record is due (1 s)
    assertThat(reader.pollNext(out)).isEqualTo(InputStatus.MORE_AVAILABLE);
    // Record 1 at least, and every record due by now: more when this thread ran late.
    assertThat(out.records).hasSizeGreaterThanOrEqualTo(2);
    assertThat(out.records).isEqualTo(LongStream.range(0, out.records.size()).boxed().toList());
  }

  @Test
  void badArgumentsNameWhatIsWrong() {
    assertThatThrownBy(() -> new DataGeneratorSource<>(i -> i, 0, Types.LONG))
        .hasMessageContaining("count of at least 1 record, not 0");
    assertThatThrownBy(() -> RateLimiterStrategy.perSecond(0))
        .hasMessageContaining("positive, finite number of records per second, not 0.0");
  }

  private static final class Collected<T> implements ReaderOutput<T> {
    final List<T> records = new ArrayList<>();

    @Override
    public void collect(T record) {
      records.add(record);
    }

    @Override
    public void collect(T record, long timestamp) {
      records.add(record);
    }
  }
}
