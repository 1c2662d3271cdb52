package dev.tide.driver.job;

/** One key/value record of a shuffle. */
public record Record(byte[] key, byte[] value) {}
