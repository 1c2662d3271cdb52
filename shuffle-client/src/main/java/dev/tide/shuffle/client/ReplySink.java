package dev.tide.shuffle.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the blocks of one FETCH_REPLY go as {@link ReplyStreamDecoder} reads them: called on the
 * connection's event loop, {@link #start} once, then {@link #data} for each piece of each block
 * in order, then {@link #finish}.
 */
interface ReplySink<T> {
  /** @param blockChecksums CRC32C of each block as written, or -1 where there is none */
  void start(long[] blockLengths, long[] blockChecksums);

  /** The next bytes of block {@code block}; {@code piece} is valid only during the call. */
  void data(int block, ByteBuf piece);

  /** The reply is complete; the value the fetch returns. */
  T finish();

  /** Whether any part of a reply reached this sink (a fetch that did cannot be retried). */
  boolean started();

  /** Before {@link #start}: the connection the reply arrives on. */
  default void receivingOn(Channel channel) {}

  /** Copies every block into its own {@code byte[]}: one copy from the network buffers. */
  final class ByteArrays implements ReplySink<List<byte[]>> {
    private byte[][] blocks;
    private int filledBlock;
    private int filled;
    private boolean started;

    @Override
    public void start(long[] blockLengths, long[] blockChecksums) {
      started = true;
      blocks = new byte[blockLengths.length][];
      for (int i = 0; i < blocks.length; i++) {
        blocks[i] = new byte[(int) blockLengths[i]];
      }
    }

    @Override
    public void data(int block, ByteBuf piece) {
      if (block != filledBlock) {
        filledBlock = block;
        filled = 0;
      }
      int n = piece.readableBytes();
      piece.getBytes(piece.readerIndex(), blocks[block], filled, n);
      filled += n;
    }

    @Override
    public List<byte[]> finish() {
      List<byte[]> out = new ArrayList<>(blocks.length);
      for (byte[] b : blocks) {
        out.add(b);
      }
      return out;
    }

    @Override
    public boolean started() {
      return started;
    }
  }

  /**
   * Hands every piece to the caller's {@link BlockReader}, and the reader's blocking work to
   * {@code offload} (run by the fetching thread).
   */
  final class Reader implements ReplySink<Void> {
    private final BlockReader reader;
    private final CallerRunsQueue offload;
    private volatile boolean started;

    Reader(BlockReader reader, CallerRunsQueue offload) {
      this.reader = reader;
      this.offload = offload;
      reader.attach(offload);
    }

    @Override
    public void receivingOn(Channel channel) {
      offload.receivingOn(channel);
    }

    @Override
    public void start(long[] blockLengths, long[] blockChecksums) {
      started = true;
      reader.start(blockLengths.clone(), blockChecksums.clone());
    }

    @Override
    public void data(int block, ByteBuf piece) {
      reader.read(block, piece.nioBuffer().asReadOnlyBuffer());
    }

    @Override
    public Void finish() {
      return null;
    }

    @Override
    public boolean started() {
      return started;
    }
  }
}
