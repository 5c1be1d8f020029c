package io.weir.benchmarks.nexmark;

import io.weir.benchmarks.nexmark.NexmarkResults.AuctionPrice;
import io.weir.benchmarks.nexmark.NexmarkResults.CategoryAverage;
import io.weir.benchmarks.nexmark.NexmarkResults.HighestBid;
import io.weir.benchmarks.nexmark.NexmarkResults.HotItem;
import io.weir.benchmarks.nexmark.NexmarkResults.LocalItem;
import io.weir.benchmarks.nexmark.NexmarkResults.NewUser;
import io.weir.benchmarks.nexmark.NexmarkResults.SellerAverage;
import io.weir.benchmarks.nexmark.NexmarkResults.WinningBid;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The queries computed the plain way over the whole input at once, with maps and loops and no
 * streaming: what both engines must emit (as multisets of rows; the engines' order differs).
 */
final class NexmarkReference {
  private NexmarkReference() {}

  static List<Object> query(String query, List<Event> events) {
    List<Person> persons = new ArrayList<>();
    List<Auction> auctions = new ArrayList<>();
    List<Bid> bids = new ArrayList<>();
    for (Event e : events) {
      if (e.person() != null) {
        persons.add(e.person());
      } else if (e.auction() != null) {
        auctions.add(e.auction());
      } else {
        bids.add(e.bid());
      }
    }
    List<Object> out = new ArrayList<>();
    switch (query) {
      case "q0" -> out.addAll(bids);
      case "q1" -> {
        for (Bid b : bids) {
          out.add(
              new Bid(
                  b.auction(),
                  b.bidder(),
                  NexmarkResults.euros(b.price()),
                  b.dateTime(),
                  b.extra()));
        }
      }
      case "q2" -> {
        for (Bid b : bids) {
          if (b.auction() % 123 == 0) {
            out.add(new AuctionPrice(b.auction(), b.price()));
          }
        }
      }
      case "q3" -> {
        Map<Long, Person> byId = new HashMap<>();
        persons.forEach(p -> byId.put(p.id(), p));
        for (Auction a : auctions) {
          Person p = byId.get(a.seller());
          if (a.category() == 10
              && p != null
              && (p.state().equals("OR") || p.state().equals("ID") || p.state().equals("CA"))) {
            out.add(new LocalItem(p.name(), p.city(), p.state(), a.id()));
          }
        }
      }
      case "q4" -> {
        // (category, window end) -> {sum, count}, over sliding windows of 10 s every 5 s.
        Map<List<Long>, long[]> sums = new TreeMap<>(NexmarkReference::compareLists);
        for (WinningBid w : winningBids(auctions, bids)) {
          for (long end : slidingWindowEnds(w.expires(), 10_000, 5_000)) {
            long[] s = sums.computeIfAbsent(List.of(w.category(), end), k -> new long[2]);
            s[0] += w.price();
            s[1]++;
          }
        }
        sums.forEach(
            (k, s) -> out.add(new CategoryAverage(k.get(0), k.get(1), (double) s[0] / s[1])));
      }
      case "q5" -> {
        Map<Long, Map<Long, Long>> countsByEnd = new TreeMap<>();
        for (Bid b : bids) {
          for (long end : slidingWindowEnds(b.dateTime(), 10_000, 2_000)) {
            countsByEnd
                .computeIfAbsent(end, k -> new HashMap<>())
                .merge(b.auction(), 1L, Long::sum);
          }
        }
        countsByEnd.forEach(
            (end, counts) -> {
              long max = counts.values().stream().mapToLong(Long::longValue).max().orElseThrow();
              counts.forEach(
                  (auction, n) -> {
                    if (n == max) {
                      out.add(new HotItem(end, auction, n));
                    }
                  });
            });
      }
      case "q6" -> {
        Map<Long, List<WinningBid>> bySeller = new HashMap<>();
        for (WinningBid w : winningBids(auctions, bids)) {
          bySeller.computeIfAbsent(w.seller(), k -> new ArrayList<>()).add(w);
        }
        for (List<WinningBid> winners : bySeller.values()) {
          winners.sort(
              Comparator.comparingLong(WinningBid::expires).thenComparingLong(WinningBid::auction));
          for (int i = 0; i < winners.size(); i++) {
            long sum = 0;
            int from = Math.max(0, i - 9);
            for (int j = from; j <= i; j++) {
              sum += winners.get(j).price();
            }
            WinningBid w = winners.get(i);
            out.add(new SellerAverage(w.seller(), w.auction(), (double) sum / (i - from + 1)));
          }
        }
      }
      case "q7" -> {
        Map<Long, Bid> highest = new HashMap<>();
        for (Bid b : bids) {
          long end = b.dateTime() - Math.floorMod(b.dateTime(), 10_000L) + 10_000;
          Bid current = highest.get(end);
          if (current == null
              || b.price() > current.price()
              || (b.price() == current.price() && before(b, current))) {
            highest.put(end, b);
          }
        }
        highest.forEach(
            (end, b) ->
                out.add(new HighestBid(end, b.auction(), b.bidder(), b.price(), b.dateTime())));
      }
      case "q8" -> {
        Set<List<Long>> sellerWindows = new HashSet<>();
        for (Auction a : auctions) {
          sellerWindows.add(
              List.of(a.seller(), a.dateTime() - Math.floorMod(a.dateTime(), 10_000L)));
        }
        for (Person p : persons) {
          long start = p.dateTime() - Math.floorMod(p.dateTime(), 10_000L);
          if (sellerWindows.contains(List.of(p.id(), start))) {
            out.add(new NewUser(p.id(), p.name(), start));
          }
        }
      }
      default -> throw new IllegalArgumentException(query);
    }
    return out;
  }

  /** Smallest auction, then bidder, then time first. */
  private static boolean before(Bid a, Bid b) {
    if (a.auction() != b.auction()) {
      return a.auction() < b.auction();
    }
    if (a.bidder() != b.bidder()) {
      return a.bidder() < b.bidder();
    }
    return a.dateTime() < b.dateTime();
  }

  /** Per auction with a bid made while it was open: the highest such bid. */
  static List<WinningBid> winningBids(List<Auction> auctions, List<Bid> bids) {
    Map<Long, List<Bid>> byAuction = new HashMap<>();
    for (Bid b : bids) {
      byAuction.computeIfAbsent(b.auction(), k -> new ArrayList<>()).add(b);
    }
    List<WinningBid> winners = new ArrayList<>();
    for (Auction a : auctions) {
      long best = -1;
      for (Bid b : byAuction.getOrDefault(a.id(), List.of())) {
        if (b.dateTime() >= a.dateTime() && b.dateTime() <= a.expires()) {
          best = Math.max(best, b.price());
        }
      }
      if (best >= 0) {
        winners.add(new WinningBid(a.id(), a.seller(), a.category(), best, a.expires()));
      }
    }
    return winners;
  }

  /** The ends of the sliding windows (size, slide; aligned to the epoch) holding {@code time}. */
  static List<Long> slidingWindowEnds(long time, long size, long slide) {
    List<Long> ends = new ArrayList<>();
    for (long start = time - Math.floorMod(time, slide); start > time - size; start -= slide) {
      ends.add(start + size);
    }
    return ends;
  }

  private static int compareLists(List<Long> a, List<Long> b) {
    int c = Long.compare(a.get(0), b.get(0));
    return c != 0 ? c : Long.compare(a.get(1), b.get(1));
  }
}
