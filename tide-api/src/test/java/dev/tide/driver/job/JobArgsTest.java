package dev.tide.driver.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Job arguments through the one setting that carries them. */
class JobArgsTest {
  static Stream<List<String>> argumentLists() {
    return Stream.of(
        List.of(),
        List.of("hdfs:///in", "hdfs:///out"),
        List.of("with space", "a,b", "k=v", "100%", "a+b", "~/x?y#z"),
        List.of("", "middle", ""),
        List.of("naïve", "日本", "tab\there", "new\nline"));
  }

  @ParameterizedTest
  @MethodSource("argumentLists")
  void argumentsSurviveTheirEncodingExactly(List<String> args) {
    String encoded = JobArgs.encode(args);
    assertEquals(args, JobArgs.decode(encoded));
    assertFalse(encoded.contains("\n") || encoded.contains("\t"), encoded);
    assertEquals(args.size(), encoded.isEmpty() ? 0 : encoded.split(" ").length,
        "one space-free word per argument: " + encoded);
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "   "})
  void noSettingMeansNoArguments(String text) {
    assertEquals(List.of(), JobArgs.decode(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a  b", " a b ", "a b"})
  void extraSpacesBetweenArgumentsAreIgnored(String text) {
    assertEquals(List.of("a", "b"), JobArgs.decode(text));
  }
}
