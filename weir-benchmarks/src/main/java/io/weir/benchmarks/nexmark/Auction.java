package io.weir.benchmarks.nexmark;

/**
 * An item put up for auction by {@code seller}, open from {@code dateTime} until {@code expires}:
 * Nexmark's {@code Auction}. Prices in cents, times in event time (ms since epoch).
 */
public record Auction(
    long id,
    String itemName,
    String description,
    long initialBid,
    long reserve,
    long dateTime,
    long expires,
    long seller,
    long category,
    String extra) {}
