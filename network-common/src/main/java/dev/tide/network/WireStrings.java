package dev.tide.network;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * UTF-8 strings on the wire: {@code uint16 byteLength | bytes}. Decoding checks the length
 * against the readable bytes and a caller-given maximum before allocating. Thread-safe.
 */
public final class WireStrings {
  private WireStrings() {}

  /** Bytes {@link #write} will use for {@code s}. */
  public static int encodedLength(String s) {
    return 2 + s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** @throws IllegalArgumentException if the UTF-8 form exceeds 65535 bytes */
  public static void write(ByteBuf buf, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xFFFF) {
      throw new IllegalArgumentException("string of " + bytes.length + " bytes exceeds 65535");
    }
    buf.writeShort(bytes.length);
    buf.writeBytes(bytes);
  }

  /**
   * @throws MalformedFrameException if the string is truncated, longer than maxBytes or not
   *     valid UTF-8
   */
  public static String read(ByteBuf buf, int maxBytes, String what) {
    if (buf.readableBytes() < 2) {
      throw new MalformedFrameException("truncated " + what);
    }
    int len = buf.readUnsignedShort();
    if (len > maxBytes || len > buf.readableBytes()) {
      throw new MalformedFrameException(what + " of " + len + " bytes is too long or truncated");
    }
    ByteBuffer bytes = buf.nioBuffer(buf.readerIndex(), len);
    String s;
    try {
      // Strict: a peer that sends malformed UTF-8 is told so instead of being read with U+FFFD.
      s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(bytes).toString();
    } catch (CharacterCodingException e) {
      throw new MalformedFrameException(what + " is not valid UTF-8");
    }
    buf.skipBytes(len);
    return s;
  }
}
