package dev.tide.shuffle.client;

import java.nio.ByteBuffer;

/**
 * Receives the blocks of one fetch as they stream in from the network, without the client
 * assembling them into arrays first ({@link ShuffleClient#fetch(String, int, java.util.List,
 * BlockReader)}). Called on the client's I/O thread: keep the work short, and do not block;
 * work that may block (a write to a local file) goes to the fetching thread through the
 * {@link Offload} given to {@link #attach}.
 *
 * <p>Order: {@link #start} once, then {@link #read} with the bytes of block 0, then block 1, ...
 * (in the order the blocks were asked for; an empty block gets no call), each block's bytes in
 * order, split wherever the network split them.
 */
public interface BlockReader {
  /**
   * Runs a reader's blocking work on the thread that called {@code fetch}, which waits for the
   * reply anyway. While more than {@link ShuffleClient#OFFLOAD_PAUSE_BYTES} of handed-over work
   * waits, the connection is not read (the server is held back by TCP, no read timeout counts);
   * reading resumes when the work is down to half of that.
   */
  interface Offload {
    /**
     * Runs {@code work} on the fetching thread after all work handed over before it, and before
     * {@code fetch} returns. {@code bytes}: the memory the work holds until it has run.
     */
    void submit(long bytes, Runnable work);
  }

  /** Before {@link #start}: where this fetch's blocking work goes. The default ignores it. */
  default void attach(Offload offload) {}

  /** The reply has begun: the length of every block, in the order asked. */
  default void start(long[] blockLengths) {}

  /**
   * The reply has begun: the length of every block, in the order asked, and the CRC32C each
   * block had when its map task wrote it ({@code -1}: none), for the reader to verify the bytes
   * as they stream by. The default calls {@link #start(long[])}.
   */
  default void start(long[] blockLengths, long[] blockChecksums) {
    start(blockLengths);
  }

  /**
   * The next bytes of block {@code index}. {@code data} is a read-only view of the client's
   * network buffer, valid only during this call: copy what must be kept.
   */
  void read(int index, ByteBuffer data);
}
