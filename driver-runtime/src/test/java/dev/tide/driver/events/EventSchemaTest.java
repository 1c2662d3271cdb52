package dev.tide.driver.events;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which event lines readers can use, and what a damaged one is refused for. */
class EventSchemaTest {
  private static Optional<String> problem(String fieldsJson) {
    return EventSchema.problem(EventLine.parse("{\"schema\":1,\"time\":5," + fieldsJson + "}"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "\"event\":\"jobStart\",\"app\":\"application_1_0001\",\"job\":\"wordcount\"",
      "\"event\":\"jobEnd\",\"succeeded\":false,\"state\":\"killed\"",
      "\"event\":\"jobEnd\",\"succeeded\":true",
      "\"event\":\"planStart\",\"plan\":\"p\",\"stages\":2,\"tasks\":-0",
      "\"event\":\"stageSubmitted\",\"stage\":\"3\",\"name\":\"map\",\"tasks\":12",
      "\"event\":\"taskEnd\",\"task\":\"1\",\"stage\":\"0\",\"executor\":\"2\",\"result\":\"ok\"",
      "\"event\":\"containerCompleted\",\"container\":\"c\",\"executor\":\"1\","
          + "\"exitStatus\":-100",
      "\"event\":\"batchCompleted\",\"batch\":1700000002000,\"records\":0,\"processingMs\":3,"
          + "\"schedulingDelayMs\":0,\"executors\":1,\"target\":2,\"extra\":\"free\"",
      "\"event\":\"somethingNew\",\"anything\":\"goes\""})
  void eventsWithTheirFieldsOrUnknownToReadersAreUsable(String fields) {
    assertEquals(Optional.empty(), problem(fields));
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      "\"event\":\"taskEnd\",\"task\":\"1\",\"stage\":\"0\",\"executor\":\"2\""
          + " | event taskEnd has no field result",
      "\"event\":\"jobEnd\" | event jobEnd has no field succeeded",
      "\"event\":\"stageSubmitted\",\"stage\":\"3\",\"name\":\"map\",\"tasks\":\"twelve\""
          + " | field tasks of event stageSubmitted is not a whole number: 'twelve'",
      "\"event\":\"targetChanged\",\"reason\":\"r\",\"from\":1.5,\"target\":2"
          + " | field from of event targetChanged is not a whole number: '1.5'",
      "\"event\":\"planEnd\",\"plan\":\"p\",\"succeeded\":\"yes\""
          + " | field succeeded of event planEnd is not true or false: 'yes'",
      "\"event\":\"jobEnd\",\"succeeded\":false,\"state\":\"crashed\""
          + " | field state of event jobEnd is not one of [succeeded, failed, killed]:"
          + " 'crashed'"})
  void aDamagedEventIsRefusedSayingWhichFieldAndWhy(String fields, String problem) {
    assertEquals(Optional.of(problem), problem(fields));
  }

  /** Logs written before jobEnd had a state say only whether the job succeeded. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "\"succeeded\":true | SUCCEEDED",
      "\"succeeded\":false | FAILED",
      "\"succeeded\":false,\"state\":\"killed\" | KILLED",
      "\"succeeded\":true,\"state\":\"succeeded\" | SUCCEEDED"})
  void aJobsEndStateComesFromItsStateOrElseFromSucceeded(String fields, JobEndState state) {
    assertEquals(state, JobEndState.of(EventLine.parse(
        "{\"schema\":1,\"time\":5,\"event\":\"jobEnd\"," + fields + "}")));
  }
}
