package io.weir.benchmarks.nexmark;

/** A bid of {@code bidder} on {@code auction}: Nexmark's {@code Bid}. Price in cents. */
public record Bid(long auction, long bidder, long price, long dateTime, String extra) {}
