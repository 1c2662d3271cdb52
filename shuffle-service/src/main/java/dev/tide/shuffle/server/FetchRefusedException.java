package dev.tide.shuffle.server;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.protocol.ErrorCode;
import java.util.List;

/** A request the server answers with an ERROR reply: the code, a message and the blocks. */
final class FetchRefusedException extends Exception {
  private final ErrorCode code;
  private final List<BlockId> blocks;

  FetchRefusedException(ErrorCode code, String message, List<BlockId> blocks) {
    super(message);
    this.code = code;
    this.blocks = List.copyOf(blocks);
  }

  ErrorCode code() {
    return code;
  }

  List<BlockId> blocks() {
    return blocks;
  }
}
