package dev.tide.bench.shuffle.tide;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The ceiling of encrypted Tide on one core: how fast this JVM seals and opens records as Tide's
 * record layer does (AES-256-GCM, 12-byte nonce from a record counter, the 4-byte length prefix
 * as additional data, 64 KiB of plaintext sealed in place in one array, opened from one array
 * into another), after the same JIT warm-up (12,000 records of 1 KiB), and how fast it copies
 * 64 KiB. Run it on the server's CPU ({@code taskset -c 0}); prints for each: MB/s of wall time
 * and CPU-seconds per GB of the measuring thread (the steadier figure on a shared machine).
 *
 * <pre>taskset -c 0 java -cp bench/shuffle/tide/target/classes dev.tide.bench.shuffle.tide.GcmRate [seconds]</pre>
 */
public final class GcmRate {
  private static final int RECORD = 64 * 1024;
  private static final int HEADER = 4;
  private static final int TAG = 16;

  private final SecretKeySpec key = new SecretKeySpec(new byte[32], "AES");
  private final byte[] nonce = new byte[12];
  private final byte[] aad = new byte[HEADER];
  private final Cipher cipher;
  private long counter;

  private GcmRate() throws Exception {
    cipher = Cipher.getInstance("AES/GCM/NoPadding");
  }

  private void start(int mode, long number, int length) throws Exception {
    for (int i = 0; i < 8; i++) {
      nonce[4 + i] = (byte) (number >>> (56 - 8 * i));
    }
    aad[0] = (byte) (length >>> 24);
    aad[1] = (byte) (length >>> 16);
    aad[2] = (byte) (length >>> 8);
    aad[3] = (byte) length;
    cipher.init(mode, key, new GCMParameterSpec(TAG * 8, nonce));
    cipher.updateAAD(aad);
  }

  /** Seals {@code len} bytes at record[HEADER..] in place. */
  private void seal(byte[] record, int len) throws Exception {
    start(Cipher.ENCRYPT_MODE, counter++, len + TAG);
    cipher.doFinal(record, HEADER, len, record, HEADER);
  }

  private void open(byte[] sealed, int len, long number, byte[] plain) throws Exception {
    start(Cipher.DECRYPT_MODE, number, len + TAG);
    cipher.doFinal(sealed, HEADER, len + TAG, plain, 0);
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
    GcmRate g = new GcmRate();
    byte[] small = new byte[HEADER + 1024 + TAG];
    byte[] smallPlain = new byte[1024];
    GcmRate warm = new GcmRate();
    for (int i = 0; i < 12_000; i++) { // as RecordCipher.warmUpOnce
      long n = warm.counter;
      warm.seal(small, 1024);
      warm.open(small, 1024, n, smallPlain);
    }
    byte[] record = new byte[HEADER + RECORD + TAG];
    new Random(1).nextBytes(record);
    byte[] plain = new byte[RECORD];
    // a sealed record to open over and over (opening does not need a fresh nonce)
    byte[] sealed = record.clone();
    long sealedNumber = g.counter;
    g.seal(sealed, RECORD);
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    for (String what : new String[] {"seal", "open", "copy", "seal", "open", "copy"}) {
      long bytes = 0;
      long cpu0 = mx.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      long end = t0 + (long) (seconds * 1e9);
      while (System.nanoTime() < end) {
        for (int i = 0; i < 16; i++) {
          switch (what) {
            case "seal" -> g.seal(record, RECORD);
            case "open" -> g.open(sealed, RECORD, sealedNumber, plain);
            default -> System.arraycopy(record, HEADER, plain, 0, RECORD);
          }
          bytes += RECORD;
        }
      }
      double wall = (System.nanoTime() - t0) / 1e9;
      double cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1e9;
      System.out.printf("%s 64 KiB: %.0f MB/s, %.3f CPU-s/GB (%.0f MB per CPU-second)%n", what,
          bytes / wall / 1e6, cpu / (bytes / 1e9), bytes / cpu / 1e6);
    }
  }
}
