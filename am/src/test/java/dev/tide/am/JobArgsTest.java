package dev.tide.am;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class JobArgsTest {
  @Test
  void roundTrip() {
    for (List<String> args : List.of(List.<String>of(), List.of("a"), List.of("a", "b c"),
        List.of("x,y", "back\\slash", ",", "", "trailing\\"), List.of("", ""))) {
      assertEquals(args, JobArgs.decode(JobArgs.encode(args)), args::toString);
    }
  }

  @Test
  void plainArgsReadBackWithGetStrings() {
    Configuration conf = new Configuration(false);
    conf.set("tide.job.args", JobArgs.encode(List.of("/in", "/out", "3")));
    assertArrayEquals(new String[] {"/in", "/out", "3"}, conf.getStrings("tide.job.args"));
  }
}
