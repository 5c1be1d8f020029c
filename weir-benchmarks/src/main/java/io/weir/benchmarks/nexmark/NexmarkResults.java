package io.weir.benchmarks.nexmark;

import java.util.Comparator;

/**
 * The rows the queries emit and the small pieces of logic both engines' implementations share, so
 * that a query means the same on Weir, on Flink and in the plain-Java reference of the tests.
 */
public final class NexmarkResults {
  private NexmarkResults() {}

  /** The queries there are, in order. */
  public static final java.util.List<String> QUERIES =
      java.util.List.of("q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8");

  /** q1: dollars to euros, as Nexmark's {@code 0.908 * price}, in whole cents (rounded down). */
  public static long euros(long dollarCents) {
    return dollarCents * 908 / 1000;
  }

  /** q2: the auctions selected, as Nexmark's {@code MOD(auction, 123) = 0}. */
  public static boolean selected(long auction) {
    return auction % 123 == 0;
  }

  /** q3: sellers from Oregon, Idaho or California. */
  public static boolean localSeller(Person person) {
    return person.state().equals("OR")
        || person.state().equals("ID")
        || person.state().equals("CA");
  }

  /** q3: auctions of category 10. */
  public static boolean localCategory(Auction auction) {
    return auction.category() == 10;
  }

  /** q4, q6: whether {@code bid} counts for {@code auction}: made while it was open. */
  public static boolean validBid(Auction auction, Bid bid) {
    return bid.dateTime() >= auction.dateTime() && bid.dateTime() <= auction.expires();
  }

  /** q4 window size and slide (ms): Beam's 10 s every 5 s. */
  public static final long Q4_WINDOW_MS = 10_000;

  public static final long Q4_SLIDE_MS = 5_000;

  /** q5 window size and slide (ms): Nexmark's 10 s every 2 s. */
  public static final long Q5_WINDOW_MS = 10_000;

  public static final long Q5_SLIDE_MS = 2_000;

  /** q6: closed auctions per seller in the running average. */
  public static final int Q6_LAST = 10;

  /** q7, q8 tumbling window size (ms). */
  public static final long Q7_WINDOW_MS = 10_000;

  public static final long Q8_WINDOW_MS = 10_000;

  /** q7: partial maxima are taken over this many price buckets before the global maximum. */
  public static final int Q7_BUCKETS = 128;

  /**
   * q7: the higher of two bids; among equal prices the one with the smallest auction, then bidder,
   * then time, so that the result does not depend on arrival order.
   */
  public static Bid higher(Bid a, Bid b) {
    return HIGHEST.compare(a, b) >= 0 ? a : b;
  }

  private static final Comparator<Bid> HIGHEST =
      Comparator.comparingLong(Bid::price)
          .thenComparing(Comparator.comparingLong(Bid::auction).reversed())
          .thenComparing(Comparator.comparingLong(Bid::bidder).reversed())
          .thenComparing(Comparator.comparingLong(Bid::dateTime).reversed());

  /** q8: the start of the tumbling window holding {@code time}. */
  public static long q8WindowStart(long time) {
    return time - Math.floorMod(time, Q8_WINDOW_MS);
  }

  /** q2. */
  public record AuctionPrice(long auction, long price) {}

  /** q3. */
  public record LocalItem(String name, String city, String state, long auction) {}

  /** q4, q6: the highest valid bid of a closed auction, emitted at its close. */
  public record WinningBid(long auction, long seller, long category, long price, long expires) {}

  /** q4: the average winning price of the auctions of {@code category} that closed in a window. */
  public record CategoryAverage(long category, long windowEnd, double average) {}

  /** q5: an auction with the most bids in the window ending at {@code windowEnd}. */
  public record HotItem(long windowEnd, long auction, long bids) {}

  /** q5, first step: the bids of one auction in one window. */
  public record AuctionBids(long auction, long windowEnd, long bids) {}

  /**
   * q6: the average of the winning prices of the seller's last ten closed auctions, {@code auction}
   * being the latest.
   */
  public record SellerAverage(long seller, long auction, double average) {}

  /** q7: the highest bid of the window ending at {@code windowEnd}. */
  public record HighestBid(long windowEnd, long auction, long bidder, long price, long dateTime) {}

  /** q8: a person who created auctions in the tumbling window in which they registered. */
  public record NewUser(long id, String name, long windowStart) {}

  /** A running average over at most {@link #Q6_LAST} prices, oldest first. */
  public static double average(Iterable<Long> prices) {
    long sum = 0;
    long count = 0;
    for (long price : prices) {
      sum += price;
      count++;
    }
    return (double) sum / count;
  }
}
