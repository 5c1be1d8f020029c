package io.weir.benchmarks.nexmark;

/** A person who sells or bids: Nexmark's {@code Person}. Times are event time, ms since epoch. */
public record Person(
    long id,
    String name,
    String emailAddress,
    String creditCard,
    String city,
    String state,
    long dateTime,
    String extra) {}
