package dev.tide.shuffle.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShuffleFetchExceptionTest {
  @Test
  void aFetchNamesItsBlockCountTheServerAndWhy() {
    ShuffleFetchException e = new ShuffleFetchException("node1", 7337,
        List.of(new BlockId(0, 1, 0, 1), new BlockId(0, 2, 0, 1)), Reason.NOT_FOUND,
        "no map output 0/1", null);
    assertEquals("fetch of 2 block(s) from tide_shuffle at node1:7337 failed (NOT_FOUND):"
        + " no map output 0/1", e.getMessage());
  }

  @Test
  void aRequestNamingNoBlockReadsAsARequest() {
    ShuffleFetchException e = new ShuffleFetchException("node2", 7337, List.of(),
        Reason.CONNECT, "connection refused", null);
    assertEquals("request to tide_shuffle at node2:7337 failed (CONNECT): connection refused",
        e.getMessage());
  }
}
