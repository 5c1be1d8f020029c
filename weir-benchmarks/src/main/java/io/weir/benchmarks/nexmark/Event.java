package io.weir.benchmarks.nexmark;

/**
 * One Nexmark event: exactly one of {@code person}, {@code auction} and {@code bid} is set, as in
 * the Beam and Flink Nexmark implementations (a record with nullable fields serializes on both
 * engines without a union type).
 */
public record Event(Person person, Auction auction, Bid bid) {

  /** The event's time, ms since epoch. */
  public long dateTime() {
    if (person != null) {
      return person.dateTime();
    }
    return auction != null ? auction.dateTime() : bid.dateTime();
  }
}
