package dev.tide.rpc;

import dev.tide.network.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.function.ToIntFunction;

/**
 * Bounds-checked reads of one RPC message's payload (layouts in {@code driver-runtime/
 * RPC-PROTOCOL.md}). Every read names its field; any failure is a {@link MalformedFrameException}
 * saying {@code <MESSAGE> (<id>) <field>: <what is wrong>}. A length or count is checked against
 * the bytes left in the frame before anything is allocated. Reads from the body's reader index;
 * not thread-safe (one per frame).
 */
public final class RpcReader {
  /** Strings and byte arrays longer than this are refused before any allocation. */
  public static final int MAX_FIELD_BYTES = 64 * 1024 * 1024;
  private final ByteBuf in;
  private final String message;

  RpcReader(ByteBuf in, String message) {
    this.in = in;
    this.message = message;
  }

  public long i64(String field) {
    need(field, Long.BYTES);
    return in.readLong();
  }

  public int i32(String field) {
    need(field, Integer.BYTES);
    return in.readInt();
  }

  public int u8(String field) {
    need(field, 1);
    return in.readUnsignedByte();
  }

  /** {@code u8} 0 or 1. */
  public boolean bool(String field) {
    int b = u8(field);
    if (b > 1) {
      throw malformed(field, "boolean byte " + b + " is neither 0 nor 1");
    }
    return b == 1;
  }

  /**
   * An enum's {@code u8} wire code: the one of {@code values} whose {@code wireOf} it is; a code
   * none has is refused naming the code.
   */
  public <E> E code(String field, E[] values, ToIntFunction<E> wireOf) {
    int code = u8(field);
    for (E value : values) {
      if (wireOf.applyAsInt(value) == code) {
        return value;
      }
    }
    throw malformed(field, "unknown code " + code);
  }

  /** {@code len:i32 bytes}, at most {@link #MAX_FIELD_BYTES}. */
  public byte[] bytes(String field) {
    byte[] bytes = new byte[length(field)];
    in.readBytes(bytes);
    return bytes;
  }

  /** {@code len:i32 utf8}; malformed UTF-8 is refused, never replaced. */
  public String string(String field) {
    int length = length(field);
    try {
      String s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(in.nioBuffer(in.readerIndex(), length)).toString();
      in.skipBytes(length);
      return s;
    } catch (CharacterCodingException e) {
      throw malformed(field, "not valid UTF-8");
    }
  }

  /**
   * A list's {@code count:i32}, checked against the bytes left: each item takes at least
   * {@code minItemBytes}, so a lying count cannot make the reader allocate much.
   */
  public int count(String field, int minItemBytes) {
    int count = i32(field);
    if (count < 0 || (long) count * minItemBytes > in.readableBytes()) {
      throw malformed(field, "list count " + count + " does not fit the " + in.readableBytes()
          + " bytes left");
    }
    return count;
  }

  /** A failure of {@code field} of this message. */
  public MalformedFrameException malformed(String field, String what) {
    return new MalformedFrameException(message + " " + field + ": " + what);
  }

  /** Refuses bytes after the last field. */
  void end() {
    if (in.isReadable()) {
      throw new MalformedFrameException(message + " has " + in.readableBytes()
          + " trailing bytes");
    }
  }

  private int length(String field) {
    int length = i32(field);
    if (length < 0 || length > MAX_FIELD_BYTES || length > in.readableBytes()) {
      throw malformed(field, "field length " + length + " is negative, above " + MAX_FIELD_BYTES
          + " or beyond the " + in.readableBytes() + " bytes left");
    }
    return length;
  }

  private void need(String field, int bytes) {
    if (in.readableBytes() < bytes) {
      throw malformed(field, "truncated: needs " + bytes + " bytes, " + in.readableBytes()
          + " left");
    }
  }
}
