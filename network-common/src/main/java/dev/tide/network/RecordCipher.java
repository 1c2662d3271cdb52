package dev.tide.network;

import java.security.GeneralSecurityException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM over the records of one direction of one connection. Record layout (all of it
 * authenticated; the 4-byte length is the additional data, the counter is in the nonce):
 *
 * <pre>
 *   +--------+--------------------------+----------+
 *   | int32  | ciphertext               | 16 bytes |
 *   | length | (length - 16 bytes)      | GCM tag  |
 *   +--------+--------------------------+----------+
 *   nonce (12 bytes) = 0x00000000 | int64 record number (0, 1, 2, ... per direction)
 * </pre>
 *
 * The record number is never sent: each side counts, so a replayed, reordered or dropped
 * record, or one sealed under another key, fails its tag. A record carries 1 to
 * {@link #MAX_PLAINTEXT_BYTES} bytes. One instance seals or opens (not both), on one thread.
 */
final class RecordCipher {
  /** The most plaintext one record carries; a larger length prefix is refused unread. */
  static final int MAX_PLAINTEXT_BYTES = 64 * 1024;
  static final int TAG_BYTES = 16;
  static final int HEADER_BYTES = 4;
  /** The largest length prefix a receiver accepts. */
  static final int MAX_RECORD_LENGTH = MAX_PLAINTEXT_BYTES + TAG_BYTES;

  /** Sealed and opened records of the warm-up: enough for HotSpot's C2 (5000 invocations). */
  static final int WARM_UP_RECORDS = 12_000;
  private static final AtomicBoolean WARMING = new AtomicBoolean();

  private final Cipher cipher;
  private final SecretKeySpec key;
  private final int mode;
  private final byte[] nonce = new byte[12];
  private final byte[] header = new byte[HEADER_BYTES];
  private long recordNumber;

  private RecordCipher(byte[] key, int mode) {
    try {
      this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES/GCM/NoPadding unavailable", e);
    }
    this.key = new SecretKeySpec(key, "AES");
    this.mode = mode;
  }

  static RecordCipher sealer(byte[] key) {
    return new RecordCipher(key, Cipher.ENCRYPT_MODE);
  }

  static RecordCipher opener(byte[] key) {
    return new RecordCipher(key, Cipher.DECRYPT_MODE);
  }

  /**
   * Once per JVM, in a daemon thread: seals and opens {@link #WARM_UP_RECORDS} small records
   * under a throw-away key, so that the JIT compiles the JDK's GCM code with its AES and GHASH
   * intrinsics before real records need it. Without it the first ~1,500 records of 64 KiB run
   * at 7-50 MB/s instead of ~400 MB/s (measured on JDK 17): the callers of the intrinsics are
   * called once per record and reach the C2 threshold only after thousands of records.
   */
  static void warmUpOnce() {
    if (!WARMING.compareAndSet(false, true)) {
      return;
    }
    Thread t = new Thread(() -> {
      byte[] key = new byte[SessionKeys.KEY_BYTES];
      byte[] plain = new byte[1024];
      byte[] record = new byte[HEADER_BYTES + plain.length + TAG_BYTES];
      RecordCipher sealer = sealer(key);
      RecordCipher opener = opener(key);
      try {
        for (int i = 0; i < WARM_UP_RECORDS; i++) { // in place, as RecordSealer seals
          int n = sealer.seal(record, HEADER_BYTES, plain.length, record, 0);
          opener.open(n - HEADER_BYTES, record, HEADER_BYTES, plain, 0);
        }
      } catch (GeneralSecurityException | RuntimeException e) {
        // only a warm-up: real records report their own failures
      }
    }, "tide-crypto-warm-up");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
  }

  /** The number the next record sealed or opened will have. */
  long recordNumber() {
    return recordNumber;
  }

  /**
   * Seals {@code len} bytes of {@code in} into {@code out} at {@code outOff}: writes the whole
   * record (header, ciphertext, tag), {@code HEADER_BYTES + len + TAG_BYTES} bytes. May seal in
   * place: {@code in == out} with {@code inOff == outOff + HEADER_BYTES} (the JDK's ciphers are
   * copy-safe; no input byte is overwritten before it was read).
   */
  int seal(byte[] in, int inOff, int len, byte[] out, int outOff) {
    if (len < 1 || len > MAX_PLAINTEXT_BYTES) {
      throw new IllegalArgumentException("a record carries 1 to " + MAX_PLAINTEXT_BYTES
          + " bytes, not " + len);
    }
    int length = len + TAG_BYTES;
    writeHeader(length);
    System.arraycopy(header, 0, out, outOff, HEADER_BYTES);
    try {
      start();
      return HEADER_BYTES + cipher.doFinal(in, inOff, len, out, outOff + HEADER_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("sealing record " + (recordNumber - 1) + " failed", e);
    }
  }

  /**
   * Opens the record whose length prefix was {@code length} and whose ciphertext and tag are
   * {@code in[inOff, inOff + length)}; writes the plaintext to {@code out} at {@code outOff}.
   *
   * @return the plaintext's length ({@code length - TAG_BYTES})
   * @throws AEADBadTagException if the record is not the next one sealed with this key
   *     (tampered, replayed, reordered, cut or sealed under another key)
   */
  int open(int length, byte[] in, int inOff, byte[] out, int outOff) throws AEADBadTagException {
    if (length <= TAG_BYTES || length > MAX_RECORD_LENGTH) {
      throw new IllegalArgumentException("record length " + length + " outside "
          + (TAG_BYTES + 1) + ".." + MAX_RECORD_LENGTH);
    }
    writeHeader(length);
    try {
      start();
      return cipher.doFinal(in, inOff, length, out, outOff);
    } catch (AEADBadTagException e) {
      throw e;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("opening record " + (recordNumber - 1) + " failed", e);
    }
  }

  private void writeHeader(int length) {
    header[0] = (byte) (length >>> 24);
    header[1] = (byte) (length >>> 16);
    header[2] = (byte) (length >>> 8);
    header[3] = (byte) length;
  }

  /** Starts the next record: its nonce from the record number, the header as additional data. */
  private void start() throws GeneralSecurityException {
    long n = recordNumber++;
    if (n < 0) {
      throw new IllegalStateException("record numbers of this connection are used up");
    }
    for (int i = 0; i < 8; i++) {
      nonce[4 + i] = (byte) (n >>> (56 - 8 * i));
    }
    cipher.init(mode, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
    cipher.updateAAD(header);
  }
}
