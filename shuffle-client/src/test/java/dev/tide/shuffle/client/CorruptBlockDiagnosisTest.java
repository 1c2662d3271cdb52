package dev.tide.shuffle.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.shuffle.BlockId;
import dev.tide.shuffle.client.CorruptBlockDiagnosis.Cause;
import dev.tide.shuffle.client.ShuffleFetchException.Reason;
import dev.tide.shuffle.protocol.FetchReply;
import dev.tide.shuffle.protocol.VerifyReply;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The classification rule: recomputed != stored -> disk; == stored, != read -> network. */
class CorruptBlockDiagnosisTest {
  private static final long WRITTEN = 0xcafe;
  private static final long READ = 0xbad;

  private static CorruptBlockDiagnosis classify(long length, long computed, long stored) {
    return CorruptBlockDiagnosis.classify(WRITTEN, READ, 100, new VerifyReply(1, length,
        computed, stored));
  }

  @Test
  void bytesOnDiskThatDifferFromWhatWasWrittenAreTheDisk() {
    CorruptBlockDiagnosis d = classify(100, READ, WRITTEN);
    assertEquals(Cause.DISK, d.cause());
    assertTrue(d.detail().contains("CRC32C bad, written cafe"), d.detail());
    assertEquals(Cause.DISK, classify(100, 0x1234, WRITTEN).cause(), "damaged on disk, and"
        + " the reducer read yet other bytes: still the disk");
  }

  @Test
  void bytesOnDiskAsWrittenButReadOtherwiseAreTheNetwork() {
    CorruptBlockDiagnosis d = classify(100, WRITTEN, WRITTEN);
    assertEquals(Cause.NETWORK, d.cause());
    assertTrue(d.detail().contains("the reducer read bad"), d.detail());
  }

  @Test
  void anAnswerThatDoesNotFitWhatWasFetchedIsUnknown() {
    assertEquals(Cause.UNKNOWN, classify(100, WRITTEN, FetchReply.NO_CHECKSUM).cause());
    assertEquals(Cause.UNKNOWN, classify(100, 7, 7).cause(), "a new map output since");
    assertEquals(Cause.UNKNOWN, classify(99, WRITTEN, WRITTEN).cause(), "another length");
    assertEquals(Cause.UNKNOWN, CorruptBlockDiagnosis.classify(WRITTEN, WRITTEN, 100,
        new VerifyReply(1, 100, WRITTEN, WRITTEN)).cause(), "all agree now");
  }

  @Test
  void aFailedVerifyIsTheDiskOnlyWhenTheServiceFoundTheOutputCorrupt() {
    List<BlockId> block = List.of(BlockId.of(1, 2, 3));
    assertEquals(Cause.DISK, CorruptBlockDiagnosis.failedVerify(new ShuffleFetchException("h", 1,
        block, Reason.CORRUPT, "CORRUPT: index x fails its checksum", null)).cause());
    for (Reason r : new Reason[] {Reason.CONNECT, Reason.TIMEOUT, Reason.BUSY, Reason.PROTOCOL,
        Reason.NOT_FOUND, Reason.AUTH, Reason.SERVER_ERROR}) {
      CorruptBlockDiagnosis d = CorruptBlockDiagnosis.failedVerify(new ShuffleFetchException("h",
          1, block, r, "why", null));
      assertEquals(Cause.UNKNOWN, d.cause(), r.toString());
      assertTrue(d.detail().contains(r.toString()), d.detail());
    }
  }

  @Test
  void labelsAreLowerCase() {
    assertEquals("disk", Cause.DISK.label());
    assertEquals("network", Cause.NETWORK.label());
    assertEquals("unknown", Cause.UNKNOWN.label());
  }
}
