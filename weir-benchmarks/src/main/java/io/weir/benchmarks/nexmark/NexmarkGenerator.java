package io.weir.benchmarks.nexmark;

import java.io.Serializable;
import java.util.Random;

/**
 * The Nexmark event generator, written from the behaviour of the Beam and Flink Nexmark generators,
 * with no engine in it: both engines' sources call {@link #event(long)}.
 *
 * <p>The model: of every 50 event ids, 1 is a person, 3 are auctions and 46 are bids; ids of
 * persons and auctions count up from 1000; an auction's seller is, 3 times in 4, the first person
 * of the latest block of 100 (a hot seller), else a recent person; a bid's auction is, 1 time in 2,
 * the first auction of the latest block of 100 (a hot auction), else one of the last 100 auctions
 * or up to 10 not yet created; its bidder is, 3 times in 4, the second person of the latest block
 * of 100 (a hot bidder), else one of the last 1000 persons or up to 10 not yet created. An auction
 * lasts on average as long as it takes to create 100 more auctions. Prices are {@code round(10^(6
 * u) * 100)} cents for a uniform {@code u}; the {@code extra} strings pad events to 200 (person),
 * 500 (auction) and 100 (bid) bytes on average.
 *
 * <p>Parallel timelines, as Nexmark's {@code GeneratorConfig.split}: {@link Config#generators()}
 * sub-generators each own a contiguous range of event ids and advance event time from the same base
 * time, one event every {@code generators / eventsPerSecond} seconds, so together they make {@code
 * eventsPerSecond} events per second of event time. Every event is a pure function of its position
 * in the whole input, and its fields come from a {@link Random} seeded with its event id (as Beam's
 * generator does), so the input is the same on every engine and every run however the engine splits
 * the positions among its subtasks: position {@code g} is event {@code g / generators} of
 * sub-generator {@code g % generators}, so the timestamps within any contiguous range of positions
 * never go down.
 */
public final class NexmarkGenerator implements Serializable {
  private static final long serialVersionUID = 1L;

  static final int PERSON_PROPORTION = 1;
  static final int AUCTION_PROPORTION = 3;
  static final int BID_PROPORTION = 46;
  static final int TOTAL_PROPORTION = PERSON_PROPORTION + AUCTION_PROPORTION + BID_PROPORTION;

  public static final long FIRST_PERSON_ID = 1000;
  public static final long FIRST_AUCTION_ID = 1000;
  public static final long FIRST_CATEGORY_ID = 10;
  static final int NUM_CATEGORIES = 5;

  private static final int NUM_ACTIVE_PEOPLE = 1000;
  private static final int NUM_IN_FLIGHT_AUCTIONS = 100;
  private static final int PERSON_ID_LEAD = 10;
  private static final int AUCTION_ID_LEAD = 10;
  private static final int HOT_SELLERS_RATIO = 4;
  private static final int HOT_AUCTION_RATIO = 2;
  private static final int HOT_BIDDERS_RATIO = 4;
  private static final int HOT_BLOCK = 100;
  private static final int AVG_PERSON_BYTES = 200;
  private static final int AVG_AUCTION_BYTES = 500;
  private static final int AVG_BID_BYTES = 100;
  private static final int MIN_STRING_LENGTH = 3;

  private static final String[] US_STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
  private static final String[] US_CITIES = {
    "Phoenix",
    "Los Angeles",
    "San Francisco",
    "Boise",
    "Portland",
    "Bend",
    "Redmond",
    "Seattle",
    "Kent",
    "Cheyenne"
  };
  private static final String[] FIRST_NAMES = {
    "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"
  };
  private static final String[] LAST_NAMES = {
    "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
  };

  /**
   * What to generate.
   *
   * @param events events in the whole input
   * @param generators parallel timelines (Nexmark's {@code numEventGenerators}); 1 gives one
   *     timeline of ids 0, 1, 2, ...
   * @param eventsPerSecond events per second of event time over all timelines (Nexmark's {@code
   *     firstEventRate}); not a wall-clock rate: the sources emit as fast as they can
   * @param baseTime event time of each timeline's first event, ms since epoch
   */
  public record Config(long events, int generators, long eventsPerSecond, long baseTime)
      implements Serializable {
    public Config {
      if (events < 1 || generators < 1 || eventsPerSecond < 1) {
        throw new IllegalArgumentException(
            "Nexmark needs events, generators and events per second of at least 1, not "
                + events
                + ", "
                + generators
                + ", "
                + eventsPerSecond);
      }
    }

    /** {@code events} events on two timelines at 10 000 events per second from 2026-01-01. */
    public static Config of(long events) {
      return new Config(events, 2, 10_000, 1_767_225_600_000L);
    }
  }

  private final Config config;
  private final long idsPerGenerator;
  private final double interEventDelayUs;

  public NexmarkGenerator(Config config) {
    this.config = config;
    this.idsPerGenerator = (config.events() + config.generators() - 1) / config.generators();
    this.interEventDelayUs = 1_000_000.0 / config.eventsPerSecond() * config.generators();
  }

  public Config config() {
    return config;
  }

  /** The event at {@code position} (0 until {@code events}) of the whole input. */
  public Event event(long position) {
    long number = position / config.generators();
    long eventId = (position % config.generators()) * idsPerGenerator + number;
    long timestamp = timestampOfNumber(number);
    Random random = new Random(eventId);
    long rem = eventId % TOTAL_PROPORTION;
    if (rem < PERSON_PROPORTION) {
      return new Event(person(eventId, random, timestamp), null, null);
    } else if (rem < PERSON_PROPORTION + AUCTION_PROPORTION) {
      return new Event(null, auction(number, eventId, random, timestamp), null);
    } else {
      return new Event(null, null, bid(eventId, random, timestamp));
    }
  }

  /** The event time of the event at {@code position} of the whole input. */
  public long timestamp(long position) {
    return timestampOfNumber(position / config.generators());
  }

  private long timestampOfNumber(long number) {
    return config.baseTime() + (long) (number * interEventDelayUs) / 1000L;
  }

  // ------------------------------------------------------------------ persons

  private static Person person(long eventId, Random random, long timestamp) {
    long id = lastBase0PersonId(eventId) + FIRST_PERSON_ID;
    String name =
        FIRST_NAMES[random.nextInt(FIRST_NAMES.length)]
            + " "
            + LAST_NAMES[random.nextInt(LAST_NAMES.length)];
    String email = string(random, 7) + "@" + string(random, 5) + ".com";
    StringBuilder card = new StringBuilder(19);
    for (int group = 0; group < 4; group++) {
      if (group > 0) {
        card.append(' ');
      }
      String digits = Integer.toString(random.nextInt(10_000));
      card.append("0000", digits.length(), 4).append(digits);
    }
    String creditCard = card.toString();
    String city = US_CITIES[random.nextInt(US_CITIES.length)];
    String state = US_STATES[random.nextInt(US_STATES.length)];
    int size = 8 + name.length() + email.length() + creditCard.length() + city.length();
    size += state.length();
    String extra = extra(random, size, AVG_PERSON_BYTES);
    return new Person(id, name, email, creditCard, city, state, timestamp, extra);
  }

  /** The id (from 0) of the latest person at or before {@code eventId}. */
  static long lastBase0PersonId(long eventId) {
    long epoch = eventId / TOTAL_PROPORTION;
    long offset = eventId % TOTAL_PROPORTION;
    if (offset >= PERSON_PROPORTION) {
      offset = PERSON_PROPORTION - 1;
    }
    return epoch * PERSON_PROPORTION + offset;
  }

  /** A recently created person, or one of the next few. */
  private static long nextBase0PersonId(long eventId, Random random) {
    long people = lastBase0PersonId(eventId) + 1;
    long active = Math.min(people, NUM_ACTIVE_PEOPLE);
    return people - active + nextLong(random, active + PERSON_ID_LEAD);
  }

  // ------------------------------------------------------------------ auctions

  private Auction auction(long number, long eventId, Random random, long timestamp) {
    long id = lastBase0AuctionId(eventId) + FIRST_AUCTION_ID;
    long seller;
    if (random.nextInt(HOT_SELLERS_RATIO) > 0) {
      seller = (lastBase0PersonId(eventId) / HOT_BLOCK) * HOT_BLOCK;
    } else {
      seller = nextBase0PersonId(eventId, random);
    }
    seller += FIRST_PERSON_ID;
    long category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
    long initialBid = price(random);
    long expires = timestamp + auctionLengthMs(number, random, timestamp);
    String name = string(random, 20);
    String description = string(random, 100);
    long reserve = initialBid + price(random);
    int size = 8 + name.length() + description.length() + 8 + 8 + 8 + 8 + 8;
    String extra = extra(random, size, AVG_AUCTION_BYTES);
    return new Auction(
        id, name, description, initialBid, reserve, timestamp, expires, seller, category, extra);
  }

  /** The id (from 0) of the latest auction at or before {@code eventId}. */
  static long lastBase0AuctionId(long eventId) {
    long epoch = eventId / TOTAL_PROPORTION;
    long offset = eventId % TOTAL_PROPORTION;
    if (offset < PERSON_PROPORTION) {
      epoch--;
      offset = AUCTION_PROPORTION - 1;
    } else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION) {
      offset = AUCTION_PROPORTION - 1;
    } else {
      offset -= PERSON_PROPORTION;
    }
    return epoch * AUCTION_PROPORTION + offset;
  }

  /** One of the auctions likely still open, or one of the next few. */
  private static long nextBase0AuctionId(long eventId, Random random) {
    long max = lastBase0AuctionId(eventId);
    long min = Math.max(max - NUM_IN_FLIGHT_AUCTIONS, 0);
    return min + nextLong(random, max - min + 1 + AUCTION_ID_LEAD);
  }

  /** On average, the event time it takes this timeline to create 100 more auctions. */
  private long auctionLengthMs(long number, Random random, long timestamp) {
    long eventsFor100Auctions =
        ((long) NUM_IN_FLIGHT_AUCTIONS * TOTAL_PROPORTION) / AUCTION_PROPORTION;
    long horizonMs = timestampOfNumber(number + eventsFor100Auctions) - timestamp;
    return 1L + nextLong(random, Math.max(horizonMs * 2, 1L));
  }

  // ------------------------------------------------------------------ bids

  private static Bid bid(long eventId, Random random, long timestamp) {
    long auction;
    if (random.nextInt(HOT_AUCTION_RATIO) > 0) {
      auction = (lastBase0AuctionId(eventId) / HOT_BLOCK) * HOT_BLOCK;
    } else {
      auction = nextBase0AuctionId(eventId, random);
    }
    auction += FIRST_AUCTION_ID;
    long bidder;
    if (random.nextInt(HOT_BIDDERS_RATIO) > 0) {
      // The second person of the block, so that hot bidders are not hot sellers.
      bidder = (lastBase0PersonId(eventId) / HOT_BLOCK) * HOT_BLOCK + 1;
    } else {
      bidder = nextBase0PersonId(eventId, random);
    }
    bidder += FIRST_PERSON_ID;
    long price = price(random);
    String extra = extra(random, 8 + 8 + 8 + 8, AVG_BID_BYTES);
    return new Bid(auction, bidder, price, timestamp, extra);
  }

  // ------------------------------------------------------------------ values

  /** A price in cents, log-uniform between 1 dollar and 1 000 000 dollars. */
  private static long price(Random random) {
    return Math.round(Math.pow(10.0, random.nextDouble() * 6.0) * 100.0);
  }

  /** A uniform long in [0, n). */
  private static long nextLong(Random random, long n) {
    if (n < Integer.MAX_VALUE) {
      return random.nextInt((int) n);
    }
    return Math.floorMod(random.nextLong(), n);
  }

  /** Lower-case letters and a few spaces, 3 to {@code maxLength - 1} long before trimming. */
  private static String string(Random random, int maxLength) {
    int length = MIN_STRING_LENGTH + random.nextInt(maxLength - MIN_STRING_LENGTH);
    char[] chars = new char[length];
    for (int i = 0; i < length; i++) {
      chars[i] = random.nextInt(13) == 0 ? ' ' : (char) ('a' + random.nextInt(26));
    }
    return new String(chars).trim();
  }

  /**
   * Padding that brings an event of {@code size} bytes to {@code average} bytes on average: random
   * lowercase letters, six from each random number (26^6 < 2^31) as Nexmark's reference generator
   * takes them, not one, which made the generator the bottleneck of the lighter queries for both
   * engines (q8: 70 % of the samples of Weir's run were here).
   */
  static String extra(Random random, int size, int average) {
    if (size > average) {
      return "";
    }
    int wanted = average - size;
    int delta = (int) Math.round(wanted * 0.2);
    int length = wanted - delta + (delta == 0 ? 0 : random.nextInt(2 * delta));
    char[] chars = new char[length];
    int letters = 0;
    int left = 0;
    for (int i = 0; i < length; i++) {
      if (left == 0) {
        letters = random.nextInt() >>> 1;
        left = 6;
      }
      chars[i] = (char) ('a' + letters % 26);
      letters /= 26;
      left--;
    }
    return new String(chars);
  }
}
