package io.weir.benchmarks.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.junit.jupiter.api.Test;

/** The generator's model: proportions, ids, hot items, event time, determinism. */
class NexmarkGeneratorTest {

  private static final NexmarkGenerator.Config CONFIG =
      new NexmarkGenerator.Config(100_000, 2, 10_000, 1_000_000L);

  @Test
  void eventsComeAsOnePersonThreeAuctionsAndFortySixBidsInFifty() {
    NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
    int persons = 0;
    int auctions = 0;
    int bids = 0;
    for (long g = 0; g < CONFIG.events(); g++) {
      Event e = generator.event(g);
      if (e.person() != null) {
        persons++;
      } else if (e.auction() != null) {
        auctions++;
      } else {
        bids++;
      }
    }
    assertThat(persons).isEqualTo(2_000);
    assertThat(auctions).isEqualTo(6_000);
    assertThat(bids).isEqualTo(92_000);
  }

  @Test
  void personAndAuctionIdsAreUniqueAndBidsMostlyGoToHotAuctions() {
    NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
    Set<Long> personIds = new HashSet<>();
    Set<Long> auctionIds = new HashSet<>();
    List<Bid> bids = new ArrayList<>();
    for (long g = 0; g < CONFIG.events(); g++) {
      Event e = generator.event(g);
      if (e.person() != null) {
        assertThat(personIds.add(e.person().id())).isTrue();
      } else if (e.auction() != null) {
        assertThat(auctionIds.add(e.auction().id())).isTrue();
        assertThat(e.auction().expires()).isGreaterThan(e.auction().dateTime());
        assertThat(e.auction().category()).isBetween(10L, 14L);
      } else {
        bids.add(e.bid());
      }
    }
    long onHotAuctions = bids.stream().filter(b -> (b.auction() - 1000) % 100 == 0).count();
    long byHotBidders = bids.stream().filter(b -> (b.bidder() - 1000) % 100 == 1).count();
    // 1 in 2 bids goes to a hot auction and 3 in 4 come from a hot bidder, plus random hits.
    assertThat((double) onHotAuctions / bids.size()).isBetween(0.49, 0.53);
    assertThat((double) byHotBidders / bids.size()).isBetween(0.74, 0.77);
  }

  @Test
  void eachTimelineAdvancesEventTimeAtItsShareOfTheRate() {
    NexmarkGenerator generator = new NexmarkGenerator(CONFIG);
    // Two timelines at 10 000 events/s together: one event every 0.2 ms on each.
    assertThat(generator.event(0).dateTime()).isEqualTo(1_000_000L);
    assertThat(generator.event(1).dateTime()).isEqualTo(1_000_000L);
    assertThat(generator.event(10_000).dateTime()).isEqualTo(1_001_000L);
    assertThat(generator.event(99_999).dateTime()).isEqualTo(1_000_000L + 9_999);
    long previous = Long.MIN_VALUE;
    for (long g = 0; g < CONFIG.events(); g++) {
      long t = generator.timestamp(g);
      assertThat(t).isEqualTo(generator.event(g).dateTime()).isGreaterThanOrEqualTo(previous);
      previous = t;
    }
  }

  @Test
  void theSamePositionGivesTheSameEventOnEveryGenerator() {
    NexmarkGenerator a = new NexmarkGenerator(CONFIG);
    NexmarkGenerator b = new NexmarkGenerator(CONFIG);
    for (long g = 0; g < 1_000; g += 7) {
      assertThat(a.event(g)).isEqualTo(b.event(g));
    }
  }

  @Test
  void flinkSerializesTheEventsAsPojosNotThroughKryo() {
    assertThat(TypeInformation.of(Event.class)).isInstanceOf(PojoTypeInfo.class);
    assertThat(TypeInformation.of(Bid.class)).isInstanceOf(PojoTypeInfo.class);
    assertThat(TypeInformation.of(NexmarkResults.WinningBid.class))
        .isInstanceOf(PojoTypeInfo.class);
  }

  @Test
  void paddingIsLowercaseLettersOfTheAverageLengthGiven() {
    java.util.Random random = new java.util.Random(7);
    int[] counts = new int[26];
    long total = 0;
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      String extra = NexmarkGenerator.extra(random, 100, 500);
      assertThat(extra.length()).isBetween(320, 480);
      total += extra.length();
      for (char c : extra.toCharArray()) {
        assertThat(c).isBetween('a', 'z');
        counts[c - 'a']++;
      }
    }
    assertThat((double) total / n).isCloseTo(400, org.assertj.core.data.Offset.offset(2.0));
    double expected = total / 26.0;
    for (int count : counts) {
      assertThat(count)
          .as("each letter about as often")
          .isBetween((int) (expected * 0.97), (int) (expected * 1.03));
    }
    assertThat(NexmarkGenerator.extra(random, 600, 500)).as("an event over the average").isEmpty();
  }
}
