package io.weir.benchmarks.nexmark;

import io.weir.api.DataStream;
import io.weir.api.StreamEnvironment;
import io.weir.api.eventtime.WatermarkStrategy;
import io.weir.api.functions.AggregateFunction;
import io.weir.api.functions.CoGroupFunction;
import io.weir.api.functions.Collector;
import io.weir.api.functions.KeyedCoProcessFunction;
import io.weir.api.functions.KeyedProcessFunction;
import io.weir.api.functions.OpenContext;
import io.weir.api.functions.windowing.ProcessAllWindowFunction;
import io.weir.api.functions.windowing.ProcessWindowFunction;
import io.weir.api.source.NumberSequenceSource;
import io.weir.api.state.ListState;
import io.weir.api.state.ListStateDescriptor;
import io.weir.api.state.ValueState;
import io.weir.api.state.ValueStateDescriptor;
import io.weir.api.tuple.Tuple2;
import io.weir.api.typeutils.TypeInformation;
import io.weir.api.typeutils.Types;
import io.weir.api.windowing.assigners.SlidingEventTimeWindows;
import io.weir.api.windowing.assigners.TumblingEventTimeWindows;
import io.weir.api.windowing.windows.TimeWindow;
import io.weir.benchmarks.nexmark.NexmarkResults.AuctionBids;
import io.weir.benchmarks.nexmark.NexmarkResults.AuctionPrice;
import io.weir.benchmarks.nexmark.NexmarkResults.CategoryAverage;
import io.weir.benchmarks.nexmark.NexmarkResults.HighestBid;
import io.weir.benchmarks.nexmark.NexmarkResults.HotItem;
import io.weir.benchmarks.nexmark.NexmarkResults.LocalItem;
import io.weir.benchmarks.nexmark.NexmarkResults.NewUser;
import io.weir.benchmarks.nexmark.NexmarkResults.SellerAverage;
import io.weir.benchmarks.nexmark.NexmarkResults.WinningBid;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Nexmark q0–q8 as DataStream jobs on Weir; {@link FlinkQueries} is the same on Flink, line for
 * line where the APIs allow. What each query computes is in {@code weir-benchmarks/README.md}.
 */
public final class WeirQueries {
  private WeirQueries() {}

  static final TypeInformation<Event> EVENT = Types.RECORD(Event.class);
  static final TypeInformation<Person> PERSON = Types.RECORD(Person.class);
  static final TypeInformation<Auction> AUCTION = Types.RECORD(Auction.class);
  static final TypeInformation<Bid> BID = Types.RECORD(Bid.class);
  static final TypeInformation<WinningBid> WINNING_BID = Types.RECORD(WinningBid.class);

  /**
   * The Nexmark events as a parallel, checkpointable source: the positions {@code 0..events-1}
   * (split into one range per subtask, their progress checkpointed), each turned into its event by
   * the generator, with event time and watermarks (timestamps never go down within a range).
   */
  public static DataStream<Event> events(StreamEnvironment env, NexmarkGenerator generator) {
    WatermarkStrategy<Long> strategy =
        WatermarkStrategy.<Long>forMonotonousTimestamps()
            .withTimestampAssigner((position, ts) -> generator.timestamp(position));
    return env.fromSource(
            new NumberSequenceSource(0, generator.config().events() - 1),
            strategy,
            "Nexmark Source",
            Types.LONG)
        .map(generator::event)
        .name("Nexmark Generator")
        .returns(EVENT);
  }

  /** The result stream of {@code query} (q0 … q8) over {@code events}. */
  public static DataStream<?> query(String query, DataStream<Event> events) {
    return switch (query) {
      case "q0" -> bids(events);
      case "q1" ->
          bids(events)
              .map(
                  b ->
                      new Bid(
                          b.auction(),
                          b.bidder(),
                          NexmarkResults.euros(b.price()),
                          b.dateTime(),
                          b.extra()))
              .name("q1")
              .returns(BID);
      case "q2" ->
          bids(events)
              .filter(b -> NexmarkResults.selected(b.auction()))
              .map(b -> new AuctionPrice(b.auction(), b.price()))
              .name("q2")
              .returns(Types.RECORD(AuctionPrice.class));
      case "q3" -> q3(events);
      case "q4" -> q4(events);
      case "q5" -> q5(events);
      case "q6" -> q6(events);
      case "q7" -> q7(events);
      case "q8" -> q8(events);
      default ->
          throw new IllegalArgumentException(
              "Unknown Nexmark query '" + query + "'; there are " + NexmarkResults.QUERIES);
    };
  }

  static DataStream<Bid> bids(DataStream<Event> events) {
    return events.filter(e -> e.bid() != null).map(Event::bid).name("Bids").returns(BID);
  }

  static DataStream<Auction> auctions(DataStream<Event> events) {
    return events
        .filter(e -> e.auction() != null)
        .map(Event::auction)
        .name("Auctions")
        .returns(AUCTION);
  }

  static DataStream<Person> persons(DataStream<Event> events) {
    return events
        .filter(e -> e.person() != null)
        .map(Event::person)
        .name("Persons")
        .returns(PERSON);
  }

  // ------------------------------------------------------------------ q3

  static DataStream<LocalItem> q3(DataStream<Event> events) {
    DataStream<Auction> auctions = auctions(events).filter(NexmarkResults::localCategory);
    DataStream<Person> persons = persons(events).filter(NexmarkResults::localSeller);
    return auctions
        .keyBy(Auction::seller, Types.LONG)
        .connect(persons.keyBy(Person::id, Types.LONG))
        .process(new LocalItems())
        .name("q3")
        .returns(Types.RECORD(LocalItem.class));
  }

  /** Joins each auction with its seller, whichever comes first; keeps both sides for good. */
  static final class LocalItems extends KeyedCoProcessFunction<Long, Auction, Person, LocalItem> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Person> seller;
    private transient ListState<Long> waiting;

    @Override
    public void open(OpenContext openContext) throws Exception {
      seller = getRuntimeContext().getState(new ValueStateDescriptor<>("seller", PERSON));
      waiting = getRuntimeContext().getListState(new ListStateDescriptor<>("waiting", Types.LONG));
    }

    @Override
    public void processElement1(Auction auction, Context ctx, Collector<LocalItem> out)
        throws Exception {
      Person person = seller.value();
      if (person != null) {
        out.collect(new LocalItem(person.name(), person.city(), person.state(), auction.id()));
      } else {
        waiting.add(auction.id());
      }
    }

    @Override
    public void processElement2(Person person, Context ctx, Collector<LocalItem> out)
        throws Exception {
      seller.update(person);
      for (long auction : waiting.get()) {
        out.collect(new LocalItem(person.name(), person.city(), person.state(), auction));
      }
      waiting.clear();
    }
  }

  // ------------------------------------------------------------------ q4, q6

  /** The highest valid bid of every auction that had one, at the auction's close. */
  static DataStream<WinningBid> winningBids(DataStream<Event> events) {
    return auctions(events)
        .keyBy(Auction::id, Types.LONG)
        .connect(bids(events).keyBy(Bid::auction, Types.LONG))
        .process(new WinningBids())
        .name("Winning Bids")
        .returns(WINNING_BID);
  }

  /**
   * Keeps an open auction and its highest valid bid; bids that come before their auction wait for
   * it. At the auction's close (an event-time timer at {@code expires}) it emits the winner, with
   * {@code expires} as its timestamp, and remembers only that the auction is closed.
   */
  static final class WinningBids extends KeyedCoProcessFunction<Long, Auction, Bid, WinningBid> {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Auction> open;
    private transient ValueState<Long> best;
    private transient ValueState<Boolean> closed;
    private transient ListState<Bid> early;

    @Override
    public void open(OpenContext openContext) throws Exception {
      open = getRuntimeContext().getState(new ValueStateDescriptor<>("auction", AUCTION));
      best = getRuntimeContext().getState(new ValueStateDescriptor<>("best", Types.LONG));
      closed = getRuntimeContext().getState(new ValueStateDescriptor<>("closed", Types.BOOLEAN));
      early = getRuntimeContext().getListState(new ListStateDescriptor<>("early", BID));
    }

    @Override
    public void processElement1(Auction auction, Context ctx, Collector<WinningBid> out)
        throws Exception {
      open.update(auction);
      long highest = -1;
      for (Bid bid : early.get()) {
        if (NexmarkResults.validBid(auction, bid)) {
          highest = Math.max(highest, bid.price());
        }
      }
      early.clear();
      if (highest >= 0) {
        best.update(highest);
      }
      ctx.timerService().registerEventTimeTimer(auction.expires());
    }

    @Override
    public void processElement2(Bid bid, Context ctx, Collector<WinningBid> out) throws Exception {
      Auction auction = open.value();
      if (auction == null) {
        if (closed.value() == null) {
          early.add(bid);
        }
        return;
      }
      if (NexmarkResults.validBid(auction, bid)) {
        Long highest = best.value();
        if (highest == null || bid.price() > highest) {
          best.update(bid.price());
        }
      }
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<WinningBid> out)
        throws Exception {
      Auction auction = open.value();
      Long highest = best.value();
      if (highest != null) {
        out.collect(
            new WinningBid(
                auction.id(), auction.seller(), auction.category(), highest, auction.expires()));
      }
      open.clear();
      best.clear();
      closed.update(true);
    }
  }

  static DataStream<CategoryAverage> q4(DataStream<Event> events) {
    return winningBids(events)
        .keyBy(WinningBid::category, Types.LONG)
        .window(
            SlidingEventTimeWindows.of(
                Duration.ofMillis(NexmarkResults.Q4_WINDOW_MS),
                Duration.ofMillis(NexmarkResults.Q4_SLIDE_MS)))
        .aggregate(new AveragePrice(), new CategoryWindow())
        .name("q4")
        .returns(Types.RECORD(CategoryAverage.class));
  }

  /** Sum and count of winning prices. */
  static final class AveragePrice
      implements AggregateFunction<WinningBid, Tuple2<Long, Long>, Double> {
    private static final long serialVersionUID = 1L;

    @Override
    public Tuple2<Long, Long> createAccumulator() {
      return Tuple2.of(0L, 0L);
    }

    @Override
    public Tuple2<Long, Long> add(WinningBid value, Tuple2<Long, Long> acc) {
      return Tuple2.of(acc.f0 + value.price(), acc.f1 + 1);
    }

    @Override
    public Double getResult(Tuple2<Long, Long> acc) {
      return (double) acc.f0 / acc.f1;
    }

    @Override
    public Tuple2<Long, Long> merge(Tuple2<Long, Long> a, Tuple2<Long, Long> b) {
      return Tuple2.of(a.f0 + b.f0, a.f1 + b.f1);
    }
  }

  static final class CategoryWindow
      extends ProcessWindowFunction<Double, CategoryAverage, Long, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        Long category, Context context, Iterable<Double> averages, Collector<CategoryAverage> out) {
      for (double average : averages) {
        out.collect(new CategoryAverage(category, context.window().getEnd(), average));
      }
    }
  }

  static DataStream<SellerAverage> q6(DataStream<Event> events) {
    return winningBids(events)
        .keyBy(WinningBid::seller, Types.LONG)
        .process(new SellerAverages())
        .name("q6")
        .returns(Types.RECORD(SellerAverage.class));
  }

  /**
   * The running average of a seller's last ten winning prices, taken in event-time order: winners
   * wait until the watermark passes their close, then go in by (close, auction), so the result does
   * not depend on the order in which the upstream subtasks' winners arrive.
   */
  static final class SellerAverages extends KeyedProcessFunction<Long, WinningBid, SellerAverage> {
    private static final long serialVersionUID = 1L;
    private transient ListState<WinningBid> waiting;
    private transient ListState<Long> last;

    @Override
    public void open(OpenContext openContext) throws Exception {
      waiting = getRuntimeContext().getListState(new ListStateDescriptor<>("waiting", WINNING_BID));
      last = getRuntimeContext().getListState(new ListStateDescriptor<>("last", Types.LONG));
    }

    @Override
    public void processElement(WinningBid value, Context ctx, Collector<SellerAverage> out)
        throws Exception {
      waiting.add(value);
      ctx.timerService().registerEventTimeTimer(value.expires());
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<SellerAverage> out)
        throws Exception {
      List<WinningBid> due = new ArrayList<>();
      List<WinningBid> later = new ArrayList<>();
      for (WinningBid w : waiting.get()) {
        (w.expires() <= timestamp ? due : later).add(w);
      }
      due.sort(BY_CLOSE);
      List<Long> prices = new ArrayList<>();
      last.get().forEach(prices::add);
      for (WinningBid w : due) {
        prices.add(w.price());
        if (prices.size() > NexmarkResults.Q6_LAST) {
          prices.remove(0);
        }
        out.collect(new SellerAverage(w.seller(), w.auction(), NexmarkResults.average(prices)));
      }
      last.update(prices);
      waiting.update(later);
    }
  }

  static final Comparator<WinningBid> BY_CLOSE =
      Comparator.comparingLong(WinningBid::expires).thenComparingLong(WinningBid::auction);

  // ------------------------------------------------------------------ q5

  static DataStream<HotItem> q5(DataStream<Event> events) {
    return bids(events)
        .keyBy(Bid::auction, Types.LONG)
        .window(
            SlidingEventTimeWindows.of(
                Duration.ofMillis(NexmarkResults.Q5_WINDOW_MS),
                Duration.ofMillis(NexmarkResults.Q5_SLIDE_MS)))
        .aggregate(new CountBids(), new AuctionWindow())
        .name("q5: bids per auction")
        .returns(Types.RECORD(AuctionBids.class))
        .keyBy(AuctionBids::windowEnd, Types.LONG)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(NexmarkResults.Q5_SLIDE_MS)))
        .process(new HottestInWindow())
        .name("q5")
        .returns(Types.RECORD(HotItem.class));
  }

  static final class CountBids implements AggregateFunction<Bid, Long, Long> {
    private static final long serialVersionUID = 1L;

    @Override
    public Long createAccumulator() {
      return 0L;
    }

    @Override
    public Long add(Bid value, Long acc) {
      return acc + 1;
    }

    @Override
    public Long getResult(Long acc) {
      return acc;
    }

    @Override
    public Long merge(Long a, Long b) {
      return a + b;
    }
  }

  static final class AuctionWindow
      extends ProcessWindowFunction<Long, AuctionBids, Long, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        Long auction, Context context, Iterable<Long> counts, Collector<AuctionBids> out) {
      for (long count : counts) {
        out.collect(new AuctionBids(auction, context.window().getEnd(), count));
      }
    }
  }

  /** The auctions with the most bids among those of one window end (ties: all of them). */
  static final class HottestInWindow
      extends ProcessWindowFunction<AuctionBids, HotItem, Long, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(
        Long windowEnd, Context context, Iterable<AuctionBids> counts, Collector<HotItem> out) {
      long max = 0;
      for (AuctionBids c : counts) {
        max = Math.max(max, c.bids());
      }
      for (AuctionBids c : counts) {
        if (c.bids() == max) {
          out.collect(new HotItem(windowEnd, c.auction(), c.bids()));
        }
      }
    }
  }

  // ------------------------------------------------------------------ q7

  static DataStream<HighestBid> q7(DataStream<Event> events) {
    TumblingEventTimeWindows window =
        TumblingEventTimeWindows.of(Duration.ofMillis(NexmarkResults.Q7_WINDOW_MS));
    return bids(events)
        .keyBy(b -> (int) (b.price() % NexmarkResults.Q7_BUCKETS), Types.INT)
        .window(window)
        .reduce(NexmarkResults::higher)
        .name("q7: highest per bucket")
        .windowAll(window)
        .process(new HighestWindow())
        .name("q7")
        .returns(Types.RECORD(HighestBid.class));
  }

  /** The highest of the buckets' highest bids of one window. */
  static final class HighestWindow extends ProcessAllWindowFunction<Bid, HighestBid, TimeWindow> {
    private static final long serialVersionUID = 1L;

    @Override
    public void process(Context context, Iterable<Bid> bucketHighest, Collector<HighestBid> out) {
      Bid b = null;
      for (Bid candidate : bucketHighest) {
        b = b == null ? candidate : NexmarkResults.higher(b, candidate);
      }
      out.collect(
          new HighestBid(
              context.window().getEnd(), b.auction(), b.bidder(), b.price(), b.dateTime()));
    }
  }

  // ------------------------------------------------------------------ q8

  static DataStream<NewUser> q8(DataStream<Event> events) {
    return persons(events)
        .coGroup(auctions(events))
        .where(Person::id, Types.LONG)
        .equalTo(Auction::seller)
        .window(TumblingEventTimeWindows.of(Duration.ofMillis(NexmarkResults.Q8_WINDOW_MS)))
        .apply(new NewUsers(), Types.RECORD(NewUser.class));
  }

  /** Each person of the window once, if the window holds an auction of theirs. */
  static final class NewUsers implements CoGroupFunction<Person, Auction, NewUser> {
    private static final long serialVersionUID = 1L;

    @Override
    public void coGroup(
        Iterable<Person> persons, Iterable<Auction> auctions, Collector<NewUser> out) {
      if (!auctions.iterator().hasNext()) {
        return;
      }
      for (Person p : persons) {
        out.collect(new NewUser(p.id(), p.name(), NexmarkResults.q8WindowStart(p.dateTime())));
      }
    }
  }
}
