package dev.tide.shuffle.client;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.VerifyReply;

/**
 * Why a fetched block failed its checksum, from what the serving service finds when it reads
 * the block from its disk again ({@link ShuffleClient#verify}):
 * <ul>
 *   <li>{@link Cause#DISK}: the file is bad — the service's CRC32C of the bytes on disk differs
 *       from the one the map task wrote, or the service refuses the map output as CORRUPT. The
 *       map output is lost: its map must rerun.
 *   <li>{@link Cause#NETWORK}: the bytes on disk are as written, yet the reducer read others:
 *       damaged between the disk and the reducer. Fetching again may succeed.
 *   <li>{@link Cause#UNKNOWN}: the service could not say (unreachable, busy, a service that does
 *       not know VERIFY_REQUEST, the map output is gone or changed since the fetch).
 * </ul>
 *
 * @param detail what was compared, for the task's failure reason and the logs
 */
public record CorruptBlockDiagnosis(Cause cause, String detail) {
  /** The cause of a corrupt block; {@link #label()} is how logs and the event log name it. */
  public enum Cause {
    DISK, NETWORK, UNKNOWN;

    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * Asks the service at host:port to verify {@code block} and classifies the answer; never
   * throws (a failed verify is {@link Cause#UNKNOWN}, or {@link Cause#DISK} when it failed
   * because the service found the map output damaged).
   *
   * @param written the CRC32C the fetch reply announced for the block (the index's, as written)
   * @param read the CRC32C of the bytes the reducer received
   * @param length the block's length in the fetch reply
   */
  public static CorruptBlockDiagnosis diagnose(ShuffleClient client, String host, int port,
      BlockId block, long written, long read, long length) {
    VerifyReply reply;
    try {
      reply = client.verify(host, port, block);
    } catch (ShuffleFetchException e) {
      return failedVerify(e);
    } catch (RuntimeException e) {
      return new CorruptBlockDiagnosis(Cause.UNKNOWN, "the service could not verify the block: "
          + e);
    }
    return classify(written, read, length, reply);
  }

  /** The diagnosis when the verify request itself failed. */
  static CorruptBlockDiagnosis failedVerify(ShuffleFetchException e) {
    if (e.reason() == ShuffleFetchException.Reason.CORRUPT) {
      return new CorruptBlockDiagnosis(Cause.DISK, "the service finds the map output damaged on"
          + " its disk: " + e.detail());
    }
    return new CorruptBlockDiagnosis(Cause.UNKNOWN, "the service could not verify the block ("
        + e.reason() + "): " + e.detail());
  }

  /**
   * Classifies a verify reply against what the reducer saw: recomputed != stored -> disk;
   * recomputed == stored and != what the reducer read -> network; anything that does not fit
   * (no stored checksum, the block changed since the fetch) -> unknown.
   */
  public static CorruptBlockDiagnosis classify(long written, long read, long length,
      VerifyReply reply) {
    String now = "read from disk again: CRC32C " + hex(reply.computedChecksum()) + ", written "
        + hex(reply.storedChecksum());
    if (reply.storedChecksum() == FetchReply.NO_CHECKSUM || reply.storedChecksum() != written
        || reply.length() != length) {
      return new CorruptBlockDiagnosis(Cause.UNKNOWN, "the map output changed since the fetch ("
          + "the fetch announced " + length + " bytes with CRC32C " + hex(written)
          + "; " + reply.length() + " bytes " + now + ")");
    }
    if (reply.damagedOnDisk()) {
      return new CorruptBlockDiagnosis(Cause.DISK, now + ": the file on the node's disk is"
          + " damaged");
    }
    if (reply.computedChecksum() != read) {
      return new CorruptBlockDiagnosis(Cause.NETWORK, now + ", the reducer read "
          + hex(read) + ": damaged between the disk and the reducer");
    }
    return new CorruptBlockDiagnosis(Cause.UNKNOWN, now + ", the reducer read " + hex(read)
        + ": all agree now");
  }

  private static String hex(long checksum) {
    return checksum == FetchReply.NO_CHECKSUM ? "none" : Long.toHexString(checksum);
  }
}
