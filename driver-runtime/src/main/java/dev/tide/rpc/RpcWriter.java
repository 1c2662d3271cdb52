package dev.tide.rpc;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Collection;

/** The writing side of {@link RpcReader}: strings, byte arrays and booleans. Stateless. */
final class RpcWriter {
  private RpcWriter() {}

  /** {@code len:i32 utf8}. */
  static void string(ByteBuf out, String s) {
    bytes(out, s.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code len:i32 bytes}. */
  static void bytes(ByteBuf out, byte[] bytes) {
    out.writeInt(bytes.length);
    out.writeBytes(bytes);
  }

  /** {@code count:i32} then each string. */
  static void strings(ByteBuf out, Collection<String> strings) {
    out.writeInt(strings.size());
    strings.forEach(s -> string(out, s));
  }

  static void bool(ByteBuf out, boolean b) {
    out.writeByte(b ? 1 : 0);
  }
}
