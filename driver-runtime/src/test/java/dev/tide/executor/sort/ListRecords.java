package dev.tide.executor.sort;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Sorted records from a list of "key=value" strings, for tests of what consumes
 * {@link SortedRecords}; remembers whether it was closed and can be made to fail on close.
 */
final class ListRecords implements SortedRecords {
  private final List<String[]> records = new ArrayList<>();
  private final IOException closeFailure;
  private int at = -1;
  boolean closed;

  private ListRecords(IOException closeFailure, String... records) {
    for (String r : records) {
      add(r);
    }
    this.closeFailure = closeFailure;
  }

  private void add(String record) {
    int eq = record.indexOf('=');
    records.add(new String[] {record.substring(0, eq), record.substring(eq + 1)});
  }

  static ListRecords of(String... records) {
    return new ListRecords(null, records);
  }

  static ListRecords failingOnClose(String message, String... records) {
    return new ListRecords(new IOException(message), records);
  }

  /** Reads {@code in} to its end as "key=value" strings. */
  static List<String> drain(SortedRecords in) throws IOException {
    List<String> out = new ArrayList<>();
    while (in.advance()) {
      out.add(text(in.key()) + "=" + text(in.value()));
    }
    return out;
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Override
  public boolean advance() {
    return ++at < records.size();
  }

  @Override
  public byte[] key() {
    return bytes(records.get(at)[0]);
  }

  @Override
  public byte[] value() {
    return bytes(records.get(at)[1]);
  }

  @Override
  public void close() throws IOException {
    closed = true;
    if (closeFailure != null) {
      throw closeFailure;
    }
  }
}
